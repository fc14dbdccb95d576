# a grid one step longer than the blocks of its operands: the block index past the array is the
# error at the call, as on the emulated TPU (and `--emit-cuda` says so instead of stopping short)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


x = jnp.ones((512, 128), jnp.float32)
spec = pl.BlockSpec((256, 128), lambda i: (i, 0))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32), grid=(3,),  # cuda-error: does not match the BlockSpecs
                     in_specs=[spec], out_specs=spec)(x)
print(out.sum())

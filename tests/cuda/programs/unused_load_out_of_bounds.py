# A load whose value the kernel never uses still reads memory: at the grid's last step its
# window runs past the block, and both backends stop there (the CUDA backend leaves the unused
# load out of its element loop, but not its bounds check).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    i = pl.program_id(0)
    unused = x_ref[pl.ds(i * 4, 8)] * 2.0
    o_ref[...] = x_ref[pl.ds(0, 8)] + 1.0


x = jnp.arange(16, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    grid=(4,),
    in_specs=[pl.BlockSpec((16,), lambda i: (0,))],
    out_specs=pl.BlockSpec((8,), lambda i: (0,)),
    out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
)(x)
print(out)

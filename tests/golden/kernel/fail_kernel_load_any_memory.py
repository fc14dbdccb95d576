# an operand in memory_space=pl.ANY stays in HBM: the kernel may only copy it with a DMA
# real JAX interpret=True loads the whole array without complaint; the TPU lowering rejects it, and
# interpret=pltpu.InterpretParams() raises ValueError: get_p: Buffers with a memory space of HBM or
# ANY cannot be referenced directly
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0  # error: cannot be referenced directly


x = jnp.arange(8).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)], interpret=True)(x)
print(out)

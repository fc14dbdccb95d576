# a DMA wait needs a DMA semaphore (same ValueError as real JAX, raised while tracing)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, buf, sem):
    pltpu.make_async_copy(x_hbm, buf, sem).wait()  # error: dma_wait requires a DMA semaphore
    o_ref[...] = buf[...]


x = jnp.arange(8, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.REGULAR],
    interpret=True,
)(x)
print(out)

# a DMA's source and destination must have the same shape, checked while tracing (real JAX
# fails later with an unrelated "while_loop body function carry" TypeError)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm, buf, sem)  # error: must have the same shape
    copy.start()
    copy.wait()
    o_ref[...] = buf[...]


x = jnp.arange(16, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA],
    interpret=True,
)(x)
print(out)

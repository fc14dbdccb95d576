# writing the source of a DMA that is still in flight is a race: the copy may read either value
# (interpret=True copies at the start and does not notice)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_hbm, buf, sem):
    buf[...] = x_ref[...]
    copy = pltpu.make_async_copy(buf, o_hbm, sem)
    copy.start()
    buf[...] = jnp.zeros((8,), jnp.float32)  # error: DMA race: write to `buf` in grid step ()
    copy.wait()


x = jnp.arange(8, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
    out_specs=pl.BlockSpec(memory_space=pl.ANY),
    scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA],
    interpret=True,
)(x)
print(out)

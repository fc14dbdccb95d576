# reading a DMA's destination before waiting for it is a race: the data may not have landed
# (JAX's TPU interpret mode with detect_races=True prints "RACE DETECTED"; interpret=True copies
# at the start, so the race goes unnoticed)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm, buf, sem)
    copy.start()
    o_ref[...] = buf[...]  # error: DMA race: read of `buf` in grid step () while the DMA
    copy.wait()


x = jnp.arange(8, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA],
    interpret=True,
)(x)
print(out)

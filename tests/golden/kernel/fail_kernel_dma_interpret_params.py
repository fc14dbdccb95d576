# interpret=pltpu.InterpretParams(...) (JAX's TPU interpret mode) is accepted, whatever its fields,
# and runs the default tpu semantics: a read before the wait is a race, as in JAX with detect_races
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(8, 8)], buf, sem)
    copy.start()
    o_ref[...] = buf[...]  # error: read of `buf` in grid step () while the DMA `x_hbm[8:16]`
    copy.wait()


x = jnp.arange(16, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA],
    interpret=pltpu.InterpretParams(detect_races=True, dma_execution_mode="on_wait"),
)(x)
print(out)

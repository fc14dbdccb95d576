# a DMA that reads memory another in-flight DMA is still writing: HBM -> VMEM, then VMEM -> HBM
# out of the same buffer before the first copy was waited (interpret=True does not notice)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_hbm, buf, sems):
    fetch = pltpu.make_async_copy(x_hbm, buf, sems.at[0])
    store = pltpu.make_async_copy(buf, o_hbm, sems.at[1])
    fetch.start()
    store.start()  # error: DMA race: this DMA `buf` -> `o_hbm` (32 bytes) (grid step ()) reads
    fetch.wait()
    store.wait()


x = jnp.arange(8, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    out_specs=pl.BlockSpec(memory_space=pl.ANY),
    scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
    interpret=True,
)(x)
print(out)

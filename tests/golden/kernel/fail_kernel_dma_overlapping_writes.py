# two DMAs in flight whose destinations overlap: which data lands last is undefined
# (interpret=True runs them in order and does not notice)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, buf, sems):
    first = pltpu.make_async_copy(x_hbm.at[pl.ds(0, 8)], buf.at[pl.ds(0, 8)], sems.at[0])
    second = pltpu.make_async_copy(x_hbm.at[pl.ds(8, 8)], buf.at[pl.ds(4, 8)], sems.at[1])
    first.start()
    second.start()  # error: two DMAs in flight write overlapping memory
    first.wait()
    second.wait()
    o_ref[...] = buf[...]


x = jnp.arange(16, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((12,), jnp.float32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    scratch_shapes=[pltpu.VMEM((12,), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
    interpret=True,
)(x)
print(out)

# double buffering that waits on the other slot's semaphore: the slot it reads is still in flight;
# the error names the views (`buf[0]`, `x_hbm[0:8]`) and the note the semaphore to wait on
# (JAX's TPU interpret mode reads unwritten (NaN) data; interpret=True does not notice)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, buf, sems):
    i = pl.program_id(0)
    slot = i % 2

    def copy(step, slot):
        return pltpu.make_async_copy(x_hbm.at[pl.ds(step * 8, 8)], buf.at[slot], sems.at[slot])

    @pl.when(i == 0)
    def _():
        copy(0, 0).start()

    @pl.when(i + 1 < pl.num_programs(0))
    def _():
        copy(i + 1, 1 - slot).start()

    copy(i, 1 - slot).wait()
    o_ref[...] = buf[slot]  # error: read of `buf[0]` in grid step (0,) while the DMA `x_hbm[0:8]`


x = jnp.arange(32, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((32,), jnp.float32),
    grid=(4,),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    out_specs=pl.BlockSpec((8,), lambda i: (i,)),
    scratch_shapes=[pltpu.VMEM((2, 8), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
    interpret=True,
)(x)
print(out)

# double buffering across grid steps: step i starts the copy of chunk i + 1 into the other slot,
# then waits for chunk i with a descriptor rebuilt in this step (same semaphore and size)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

CHUNK = 8


def kernel(x_hbm, o_ref, buf, sems):
    i = pl.program_id(0)
    n = pl.num_programs(0)

    def copy(chunk, slot):
        return pltpu.make_async_copy(x_hbm.at[pl.ds(chunk * CHUNK, CHUNK)], buf.at[slot],
                                     sems.at[slot])

    @pl.when(i == 0)
    def _():
        copy(0, 0).start()

    @pl.when(i + 1 < n)
    def _():
        copy(i + 1, (i + 1) % 2).start()

    copy(i, i % 2).wait()
    o_ref[...] = buf[i % 2] * 10.0


x = jnp.arange(32, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((32,), jnp.float32),
    grid=(4,),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    out_specs=pl.BlockSpec((CHUNK,), lambda i: (i,)),
    scratch_shapes=[pltpu.VMEM((2, CHUNK), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
    interpret=True,
)(x)
print(out)
# expect: [  0.  10.  20.  30.  40.  50.  60.  70.  80.  90. 100. 110. 120. 130.
# expect:  140. 150. 160. 170. 180. 190. 200. 210. 220. 230. 240. 250. 260. 270.
# expect:  280. 290. 300. 310.]

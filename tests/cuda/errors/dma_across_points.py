# a chain of copies along a "parallel" axis: each step starts the copy of the next step's chunk,
# so the first step of every point but the first waits for a copy the point before started. The
# emulated TPU runs the steps in order on one core and prints the right values (so does JAX's
# interpret mode); the CUDA backend runs each point as a CUDA block of its own, where that wait
# would never end, so it refuses the kernel at the wait, as a megacore TPU would hang on it
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

CHUNK = 8


def kernel(x_hbm, o_ref, buf, sems):
    i = pl.program_id(0)

    def copy(chunk, slot):
        return pltpu.make_async_copy(x_hbm.at[pl.ds(chunk * CHUNK, CHUNK)], buf.at[slot],
                                     sems.at[slot])

    @pl.when(i == 0)
    def _():
        copy(0, 0).start()

    @pl.when(i + 1 < pl.num_programs(0))
    def _():
        copy(i + 1, (i + 1) % 2).start()

    copy(i, i % 2).wait()  # cuda-error: at grid step (1,), where a point starts, this waits for a DMA on semaphore `sems`
    o_ref[...] = buf[i % 2] * 10.0


x = jnp.arange(32, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((32,), jnp.float32),
    grid=(4,),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    out_specs=pl.BlockSpec((CHUNK,), lambda i: (i,)),
    scratch_shapes=[pltpu.VMEM((2, CHUNK), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
)(x)
print(out)

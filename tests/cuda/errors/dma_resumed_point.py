# A chain of copies across a "parallel" axis inside an "arbitrary" one, grid (3, 2): each point
# starts its own first copy, and every later step starts the copy of the step after it in the
# grid's row-major order, which belongs to the other point. The emulated TPU runs the steps in
# that order and prints the right values (so does JAX's interpret mode). The CUDA backend runs
# each point of axis 1 as a CUDA block of its own, (0, 0), (1, 0), (2, 0) on one: at (1, 0) the
# wait takes a copy that only the other point's step (0, 1) started, so it refuses the kernel at
# the wait. `per_point_kernel` in programs/dma_per_point_chain.py is the same chain kept within
# each point, which both run.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NI, NJ = 3, 2


def kernel(x_hbm, o_ref, buf, sem):
    i, j = pl.program_id(0), pl.program_id(1)
    step = i * NJ + j
    slot = step % 2

    def copy(s, sl):
        return pltpu.make_async_copy(x_hbm.at[s], buf.at[sl], sem.at[sl])

    @pl.when(i == 0)
    def _():
        copy(step, slot).start()

    copy(step, slot).wait()  # cuda-error: at grid step (1, 0), where its point resumes after steps of others, this waits for a DMA on semaphore `sem`

    # The next step in row-major order, unless a point starts there (it starts its own copy).
    @pl.when((step + 1 < NI * NJ) & ~((i == 0) & (j + 1 < NJ)))
    def _():
        copy(step + 1, 1 - slot).start()

    o_ref[...] = buf[slot]


x = jnp.arange(NI * NJ * 8 * 128, dtype=jnp.float32).reshape(NI * NJ, 8, 128)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((NI, NJ, 8, 128), jnp.float32),
    grid=(NI, NJ),
    in_specs=[pl.BlockSpec(memory_space=pltpu.ANY)],
    out_specs=pl.BlockSpec((None, None, 8, 128), lambda i, j: (i, j, 0, 0)),
    scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary", "parallel")),
)(x)
print(out[:, :, 0, 0] / 1024)

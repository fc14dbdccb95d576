# A chain of copies kept within each point of a "parallel" axis inside an "arbitrary" one, grid
# (3, 2): each point has buffers and semaphores of its own, starts its first copy at its first
# step, and every step starts the copy of the point's next step. The emulated TPU runs the steps
# in row-major order, the CUDA backend each point as a CUDA block of its own: where a point
# resumes, the wait takes only what the point's own step before started, on both, so the CUDA
# backend runs it (errors/dma_resumed_point.py is the chain that crosses points, which it
# refuses).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NI, NJ = 3, 2


def per_point_kernel(x_hbm, o_ref, buf, sem):
    i, j = pl.program_id(0), pl.program_id(1)
    slot = i % 2

    def copy(row, sl):
        return pltpu.make_async_copy(x_hbm.at[row * NJ + j], buf.at[j, sl], sem.at[j, sl])

    @pl.when(i == 0)
    def _():
        copy(0, 0).start()

    copy(i, slot).wait()

    @pl.when(i + 1 < NI)
    def _():
        copy(i + 1, 1 - slot).start()

    o_ref[...] = buf[j, slot] + 1.0


x = jnp.arange(NI * NJ * 8 * 128, dtype=jnp.float32).reshape(NI * NJ, 8, 128)
out = pl.pallas_call(
    per_point_kernel,
    out_shape=jax.ShapeDtypeStruct((NI, NJ, 8, 128), jnp.float32),
    grid=(NI, NJ),
    in_specs=[pl.BlockSpec(memory_space=pltpu.ANY)],
    out_specs=pl.BlockSpec((None, None, 8, 128), lambda i, j: (i, j, 0, 0)),
    scratch_shapes=[pltpu.VMEM((NJ, 2, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA((NJ, 2))],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary", "parallel")),
)(x)
print(out[:, :, 0, 0])
print(out[:, :, 7, 127])

# args: --lint
# with --lint, a wait at the first step of a point of the leading "parallel" axes for a DMA that
# no earlier instruction of that step started is a megacore hazard: it waits for a copy the point
# before started, and on a v4 / v5p the second TensorCore's first point waits for a copy its core
# never started (JAX's TPU interpret mode with two cores hangs on it; one core, as here, runs
# every step in order and prints the right values). A chain of copies that starts again with each
# point, or one along "arbitrary" axes, is fine.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

CHUNK = 128


def chained(x_hbm, o_ref, buf, sems):
    # One chain of copies through the whole grid: step s prefetches the block of step s + 1.
    i, j = pl.program_id(0), pl.program_id(1)
    per_row = pl.num_programs(1)
    step = i * per_row + j
    steps = pl.num_programs(0) * per_row

    def copy(s, slot):
        src = x_hbm.at[s // per_row, :, pl.ds((s % per_row) * CHUNK, CHUNK)]
        return pltpu.make_async_copy(src, buf.at[slot], sems.at[slot])

    @pl.when(step == 0)
    def _():
        copy(0, 0).start()

    @pl.when(step + 1 < steps)
    def _():
        copy(step + 1, (step + 1) % 2).start()

    copy(step, step % 2).wait()  # warning: this waits for a DMA that no earlier instruction of the step started
    o_ref[...] = buf[step % 2] * 2.0


def restarted(x_hbm, o_ref, buf, sems):
    # A chain per row: the first step of each row starts it again.
    i, j = pl.program_id(0), pl.program_id(1)

    def copy(k, slot):
        return pltpu.make_async_copy(x_hbm.at[i, :, pl.ds(k * CHUNK, CHUNK)], buf.at[slot],
                                     sems.at[slot])

    @pl.when(j == 0)
    def _():
        copy(0, 0).start()

    @pl.when(j + 1 < pl.num_programs(1))
    def _():
        copy(j + 1, (j + 1) % 2).start()

    copy(j, j % 2).wait()
    o_ref[...] = buf[j % 2] * 2.0


def call(kernel, semantics):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((4, 8, 256), jnp.float32),
        grid=(4, 2),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((None, 8, CHUNK), lambda i, j: (i, 0, j)),
        scratch_shapes=[pltpu.VMEM((2, 8, CHUNK), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        compiler_params=pltpu.CompilerParams(dimension_semantics=semantics),
        interpret=True,
    )(x)


x = jnp.arange(4 * 8 * 256, dtype=jnp.float32).reshape(4, 8, 256)
print(call(chained, ("parallel", "arbitrary"))[:, 0, ::128])
# expect: [[    0.   256.]
# expect:  [ 4096.  4352.]
# expect:  [ 8192.  8448.]
# expect:  [12288. 12544.]]
print(call(restarted, ("parallel", "arbitrary"))[:, 0, ::128])
# expect: [[    0.   256.]
# expect:  [ 4096.  4352.]
# expect:  [ 8192.  8448.]
# expect:  [12288. 12544.]]
print(call(chained, ("arbitrary", "arbitrary"))[:, 0, ::128])
# expect: [[    0.   256.]
# expect:  [ 4096.  4352.]
# expect:  [ 8192.  8448.]
# expect:  [12288. 12544.]]

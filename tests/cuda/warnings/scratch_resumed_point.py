# A "parallel" axis inside an "arbitrary" one: the CUDA backend runs each point of the inner axis
# as a chain of its own (grid steps (0, 0), (1, 0), (2, 0) on one CUDA block; (0, 1), (1, 1),
# (2, 1) on another), where the emulated TPU runs the steps in row-major order, so a point's
# steps after its first come right after another point's. `shared_kernel` keeps one accumulator
# for every point: on the emulated TPU the read at (1, 0) sees what (0, 1) left there, on CUDA
# what (0, 0) left, and the backend warns at the read. `own_rows_kernel` gives each point a slice
# of the scratch of its own, which no other point stores into, so both runs read the same values
# and it must not be warned of.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def shared_kernel(x_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += x_ref[...]  # cuda-warning: scratch `acc_ref` is read at grid step (1, 0), where its point
    o_ref[...] = acc_ref[...]


def own_rows_kernel(x_ref, o_ref, acc_ref):
    j = pl.program_id(1)

    @pl.when(pl.program_id(0) == 0)
    def _():
        acc_ref[j] = jnp.zeros((8, 128), jnp.float32)

    acc_ref[j] += x_ref[...]
    o_ref[...] = acc_ref[j]


def run(kernel, scratch):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((3, 16, 128), jnp.float32),
        grid=(3, 2),
        in_specs=[pl.BlockSpec((None, 8, 128), lambda i, j: (i, j, 0))],
        out_specs=pl.BlockSpec((None, 8, 128), lambda i, j: (i, j, 0)),
        scratch_shapes=[pltpu.VMEM(scratch, jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary", "parallel")),
    )(x)


x = jnp.arange(3 * 16 * 128, dtype=jnp.float32).reshape(3, 16, 128)
print(run(shared_kernel, (8, 128)).shape)
print(run(own_rows_kernel, (2, 8, 128))[:, ::8, 0])

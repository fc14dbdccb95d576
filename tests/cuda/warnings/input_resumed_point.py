# A "parallel" axis inside an "arbitrary" one: the CUDA backend runs each point of the inner axis
# as a chain of its own (grid steps (0, 0), (1, 0), (2, 0) on one CUDA block; (0, 1), (1, 1),
# (2, 1) on another), where the emulated TPU runs the steps in row-major order, so a point's
# steps after its first come right after another point's. `resumed_kernel` stores into its input
# block at the points of axis 1 at 1, and the block's index never changes: on the emulated TPU
# the read at (1, 0) sees what (0, 1) stored there, on CUDA it does not, and the backend warns at
# the read. `own_block_kernel` gives each point a block of its own, which the emulated TPU fetches
# again at every step (its index changes between a point's step and the other point's), and so
# does the CUDA backend (programs/input_fetched_between_chain_steps.py checks the values): nothing
# carries over, and it must not be warned of.
# Nor must `own_rows_kernel`, whose points share one resident block but each store into and read
# only a row of it of their own: the other point's stores never reach what a point reads.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def resumed_kernel(x_ref, o_ref):
    v = x_ref[...]  # cuda-warning: input `x_ref` is read at grid step (1, 0), where its point
    @pl.when(pl.program_id(1) == 1)
    def _():
        x_ref[...] = v + 1.0

    o_ref[...] = v


def own_block_kernel(x_ref, o_ref):
    v = x_ref[...]
    @pl.when(pl.program_id(1) == 1)
    def _():
        x_ref[...] = v + 1.0

    o_ref[...] = v


def own_rows_kernel(x_ref, o_ref):
    j = pl.program_id(1)
    v = x_ref[j]
    x_ref[j] = v + 1.0
    o_ref[...] = v


def run(kernel, in_map):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((3, 2, 8, 128), jnp.float32),
        grid=(3, 2),
        in_specs=[pl.BlockSpec((None, 8, 128), in_map)],
        out_specs=pl.BlockSpec((None, None, 8, 128), lambda i, j: (i, j, 0, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary", "parallel")),
    )(x)


x = jnp.zeros((2, 8, 128), jnp.float32)
print(run(resumed_kernel, lambda i, j: (0, 0, 0)).shape)
print(run(own_block_kernel, lambda i, j: (j, 0, 0))[:, :, 0, 0])
rows = pl.pallas_call(
    own_rows_kernel,
    out_shape=jax.ShapeDtypeStruct((3, 2, 8, 128), jnp.float32),
    grid=(3, 2),
    in_specs=[pl.BlockSpec((2, 8, 128), lambda i, j: (0, 0, 0))],
    out_specs=pl.BlockSpec((None, None, 8, 128), lambda i, j: (i, j, 0, 0)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary", "parallel")),
)(x)
print(rows[:, :, 0, 0])

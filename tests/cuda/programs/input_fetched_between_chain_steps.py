# An input block that a kernel stores into, with a "parallel" axis inside an "arbitrary" one:
# grid (3, 2), each point of axis 1 has a block of its own, and point 1 adds 1 to its block at
# every step. On the emulated TPU the steps run in row-major order, so the other point's step
# (with the other block) runs between two steps of a point: its block is fetched afresh each
# time, without the point's earlier stores, and every read sees the array's zeros. The CUDA
# backend runs each point as a chain of its own, whose steps keep one block index: it once kept
# the block, and the stores with it (printing 0, 1, 2), where it must fetch the block wherever
# the emulated TPU does (the step table's fetch columns, plan.h).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def own_block_kernel(x_ref, o_ref):
    v = x_ref[...]

    @pl.when(pl.program_id(1) == 1)
    def _():
        x_ref[...] = v + 1.0

    o_ref[...] = v


x = jnp.zeros((2, 8, 128), jnp.float32)
out = pl.pallas_call(
    own_block_kernel,
    out_shape=jax.ShapeDtypeStruct((3, 2, 8, 128), jnp.float32),
    grid=(3, 2),
    in_specs=[pl.BlockSpec((None, 8, 128), lambda i, j: (j, 0, 0))],
    out_specs=pl.BlockSpec((None, None, 8, 128), lambda i, j: (i, j, 0, 0)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary", "parallel")),
)(x)
print(out[:, :, 0, 0])


# The same block for both points, and a grid whose "parallel" axis comes first: the chains'
# steps are consecutive there, and a point keeps its own stores from step to step on both.
def counter_kernel(x_ref, o_ref):
    v = x_ref[...]
    x_ref[...] = v + 1.0
    o_ref[...] = v


out = pl.pallas_call(
    counter_kernel,
    out_shape=jax.ShapeDtypeStruct((2, 3, 8, 128), jnp.float32),
    grid=(2, 3),
    in_specs=[pl.BlockSpec((None, 8, 128), lambda i, j: (i, 0, 0))],
    out_specs=pl.BlockSpec((None, None, 8, 128), lambda i, j: (i, j, 0, 0)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
)(x)
print(out[:, :, 0, 0])


# A "parallel" axis along which the output block does not move: two chains would write one
# window, so the call runs as one chain in the grid's order, its step table made again. Each step
# reads its own input block, stores into it, and fetches the next (the fetch columns of that
# second table: they were once left at zero, and the block never fetched).
def overwrite_kernel(x_ref, o_ref):
    v = x_ref[...]
    x_ref[...] = v * 0.0
    o_ref[...] = v + 1.0


y = jnp.arange(4 * 8 * 128, dtype=jnp.float32).reshape(4, 8, 128)
out = pl.pallas_call(
    overwrite_kernel,
    out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
    grid=(4,),
    in_specs=[pl.BlockSpec((None, 8, 128), lambda i: (i, 0, 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i: (0, 0)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
)(y)
print(out[0, :3], out[7, -3:])

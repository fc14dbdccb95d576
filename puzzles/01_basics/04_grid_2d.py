# %% [markdown]
# # 2-D grid
#
# **Goal:** process a matrix in 2-D blocks on a 2-D grid, and make each block record which
# grid step wrote it.
#
# ## Two grid axes
#
# A matrix is cut into blocks along both dimensions. `grid=(gm, gn)` runs `gm * gn` steps, and
# each step has two indices `(i, j)`. The index map takes both and returns a 2-D block index:
#
# ```python
# pl.BlockSpec((bm, bn), lambda i, j: (i, j))   # block row i, block column j
# ```
#
# Block `(i, j)` covers rows `i*bm : (i+1)*bm` and columns `j*bn : (j+1)*bn`.
#
# ## The order of the steps
#
# The grid is a set of nested loops, and **the last axis is the innermost**:
#
# ```python
# for i in range(gm):        # grid axis 0
#     for j in range(gn):    # grid axis 1, the fastest
#         kernel(...)        # step number i * gn + j
# ```
#
# ![a 2-D grid of blocks, numbered in the order the steps run](../../images/basics_grid_order.svg)
#
# The order does not matter for an elementwise kernel, but it will matter a lot from puzzle 7
# on, when a block is revisited by several consecutive steps.
#
# ## Where am I? `pl.program_id` and `pl.num_programs`
#
# Inside the kernel, `pl.program_id(axis)` gives this step's index on a grid axis, as an int32
# scalar, and `pl.num_programs(axis)` gives the size of that axis. A worked example on a
# `(2, 3)` grid: the step with `program_id(0) == 1` and `program_id(1) == 2` is step number
# `1 * 3 + 2 = 5`, the last of the six.
#
# `program_id` is a *traced* value: it is different at every step, so the kernel cannot use it
# in a Python `if` or `range`; it can use it in arithmetic. Adding an int32 scalar to a float32
# block gives a float32 block.
#
# ## The task
#
# Write a kernel whose output is its input plus the number of the grid step that processed
# that block. The inputs lie in `[0, 1)`, so the integer part of each output element is the
# step number, a picture of the traversal order.
#
# A note on block shapes: on a TPU the last two dimensions of a block should be multiples of 8
# and 128 (or the whole array dimension), because VMEM is laid out in tiles of 8 rows by 128
# lanes. All blocks in this chapter follow that rule.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import check

# %%
bm, bn = 16, 128  # block shape


def step_label_kernel(x_ref, o_ref):
    # x_ref, o_ref: (bm, bn) blocks
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def step_label(x):
    M, N = x.shape
    spec = pl.BlockSpec((bm, bn), lambda i, j: (i, j))
    return pl.pallas_call(
        step_label_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), x.dtype),
        grid=(M // bm, N // bn),
        in_specs=[spec],
        out_specs=spec,
        interpret=True,
    )(x)


def step_label_reference(x):
    gm, gn = x.shape[0] // bm, x.shape[1] // bn
    steps = jnp.arange(gm * gn, dtype=jnp.float32).reshape(gm, gn)
    # every block gets its step number: repeat each entry bm times down and bn times across
    steps = jnp.repeat(jnp.repeat(steps, bm, axis=0), bn, axis=1)
    return x + steps


# %%
x = jax.random.uniform(jax.random.key(30), (64, 512))
check(step_label(x), step_label_reference(x), name="4 x 4 grid")

x = jax.random.uniform(jax.random.key(31), (48, 256))
check(step_label(x), step_label_reference(x), name="3 x 2 grid")

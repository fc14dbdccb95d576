# %% [markdown]
# # Configure the matmul `pallas_call`
#
# **Goal:** the matmul kernel is written; you write everything that feeds it: the grid, the
# three BlockSpecs and the scratch buffer.
#
# ## Read the configuration off the kernel
#
# The kernel below is your kernel from puzzle 8, unchanged apart from some trace-time checks of
# its ref shapes. Everything the `pallas_call` needs can be read from it:
#
# - **The grid.** The kernel reads `pl.program_id(2)` as the reduction index and stores on the
#   last step along that axis, so the grid has three axes and the reduction axis comes last:
#   one axis for block rows of the output, one for block columns, one for the blocks of `K`.
#   Each size is an array size divided by a block size.
# - **in_specs.** One BlockSpec per input, in argument order. Ask for each input: at grid step
#   `(i, j, k)`, which of my blocks does the formula `o[i, j] += a[i, k] @ b[k, j]` touch?
# - **out_specs.** Step `(i, j, k)` contributes to output block `(i, j)`, for every `k`.
# - **scratch_shapes.** The fourth ref, `acc_ref`, is not an input or an output: it is a
#   scratch buffer, declared as `pltpu.VMEM(shape, dtype)` in a list. The kernel's refs come in
#   the order inputs, outputs, scratch.
#
# The checks in the kernel run while it is traced, before any step executes, and tell you
# which ref has the wrong shape. A wrong *index map* cannot be caught that way: that is what the
# comparison with `a @ b` is for.
#
# ## Things to get right
#
# - Block indices, not element offsets (puzzle 2).
# - The reduction axis last, so that the steps writing one output block are consecutive
#   (puzzle 7). With `k` first, each output block would be written, left, and come back later,
#   after its buffer had been recycled: on a TPU, a silently wrong result (`pallas-puzzles`
#   reports it as a revisited block).
# - Nothing in the grid is a hard-coded number: the same function must work for both shapes
#   below.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bm, bk, bn = 128, 128, 128  # block shapes: a (bm, bk), b (bk, bn), output (bm, bn)


def matmul_kernel(a_ref, b_ref, o_ref, acc_ref):
    # trace-time checks: each step must see one block of each operand
    assert a_ref.shape == (bm, bk), f"a_ref is {a_ref.shape}; it should be one ({bm}, {bk}) block"
    assert b_ref.shape == (bk, bn), f"b_ref is {b_ref.shape}; it should be one ({bk}, {bn}) block"
    assert o_ref.shape == (bm, bn), f"o_ref is {o_ref.shape}; it should be one ({bm}, {bn}) block"
    assert acc_ref.shape == (bm, bn), f"acc_ref is {acc_ref.shape}; it should be ({bm}, {bn})"
    k = pl.program_id(2)

    @pl.when(k == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(a_ref[...], b_ref[...])

    @pl.when(k == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = acc_ref[...]


def matmul(a, b):
    M, K = a.shape
    _, N = b.shape
    # YOUR CODE BEGIN
    grid = (M // bm, N // bn, K // bk)
    in_specs = [
        pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
        pl.BlockSpec((bk, bn), lambda i, j, k: (k, j)),
    ]
    out_specs = pl.BlockSpec((bm, bn), lambda i, j, k: (i, j))
    scratch_shapes = [pltpu.VMEM((bm, bn), jnp.float32)]
    # YOUR CODE END
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
        grid=grid,
        in_specs=in_specs,
        out_specs=out_specs,
        scratch_shapes=scratch_shapes,
        interpret=True,
    )(a, b)


# %%
a = jax.random.normal(jax.random.key(80), (256, 256))
b = jax.random.normal(jax.random.key(81), (256, 256))
check(matmul(a, b), a @ b, atol=1e-3, rtol=1e-3, name="grid (2, 2, 2)")

a = jax.random.normal(jax.random.key(82), (128, 384))
b = jax.random.normal(jax.random.key(83), (384, 256))
check(matmul(a, b), a @ b, atol=1e-3, rtol=1e-3, name="grid (1, 2, 3)")

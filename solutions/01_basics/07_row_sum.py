# %% [markdown]
# # Row sum
#
# **Goal:** sum every row of a matrix when a row is too long to see in one block: the kernel
# adds up a row block by block, across grid steps.
#
# ## A reduction axis in the grid
#
# Cut `x` of shape `(M, N)` into `(bm, bk)` blocks on a grid `(M // bm, N // bk)`, and call the
# grid indices `(i, k)`. The output `o` of shape `(M,)` is cut into blocks of `bm`. Output
# block `i` needs *all* the input blocks of row block `i`, so its index map ignores `k`:
#
# ```python
# in_specs=[pl.BlockSpec((bm, bk), lambda i, k: (i, k))]
# out_specs=pl.BlockSpec((bm,), lambda i, k: (i,))
# ```
#
# Several steps in a row now share one output block. That is how a kernel accumulates: each
# step adds its partial sum into the same output buffer in VMEM.
#
# ![row block i is summed over the steps k = 0..3; the output block stays in VMEM meanwhile](../../images/basics_rowsum.svg)
#
# ![the solution step by step: the output block stays put while the k steps stream the row block's pieces (drawn by `pallas-puzzles diagram 1.7 --all-steps`)](../../images/basics_rowsum_steps.svg)
#
# ## What the pipeline does with a revisited output block
#
# On a TPU the output buffer is **copied back to HBM only when the output block index
# changes** (or after the last step), and it is **never loaded from HBM**. Two consequences:
#
# 1. **Nothing initialises the buffer.** At the first step of a new output block it holds
#    garbage: whatever the previous block left there, or uninitialised memory. The kernel must
#    set it to zero itself, at `k == 0`, before adding.
# 2. **The visits must be consecutive.** The reduction axis goes *last* in the grid (the
#    fastest), so that all the steps for output block `i` come one after another. If another
#    block were written in between, the buffer would be recycled and the partial sum lost.
#    JAX's `interpret=True` mode re-reads the block from the full output array and hides
#    this mistake; `pallas-puzzles` stops with an error, as the hardware would give you a
#    silently wrong answer.
#
# ## `@pl.when`: run part of the kernel on some steps only
#
# `k = pl.program_id(1)` is a traced value, so `if k == 0:` cannot work: the kernel is traced
# once, before any step runs, and Python would have to choose a branch for all steps at once.
# `pl.when(condition)` instead records a branch that the TPU decides at every step. It is used
# as a decorator on a small function with no arguments, and runs that function only on the
# steps where the condition holds:
#
# ```python
# @pl.when(k == 0)
# def _():
#     ...  # runs on the first step along k only
# ```
#
# Everything outside the decorated function runs on every step. A worked example for one row
# block with `N // bk = 3` steps and partial sums `5, 2, 4`: step 0 zeroes the output block,
# then adds 5; step 1 adds 2; step 2 adds 4, and the block holds 11 when it is copied back.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import check

# %%
bm, bk = 128, 128  # rows per block, columns per block


def row_sum_kernel(x_ref, o_ref):
    # x_ref: (bm, bk) block of rows i, columns k; o_ref: (bm,) partial sums of those rows
    k = pl.program_id(1)
    # YOUR CODE BEGIN
    @pl.when(k == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += jnp.sum(x_ref[...], axis=1)
    # YOUR CODE END


def row_sum(x):
    M, N = x.shape
    return pl.pallas_call(
        row_sum_kernel,
        out_shape=jax.ShapeDtypeStruct((M,), x.dtype),
        grid=(M // bm, N // bk),  # the reduction axis k is last
        in_specs=[pl.BlockSpec((bm, bk), lambda i, k: (i, k))],
        out_specs=pl.BlockSpec((bm,), lambda i, k: (i,)),
        interpret=True,
    )(x)


# %%
x = jax.random.normal(jax.random.key(60), (256, 512))
check(row_sum(x), jnp.sum(x, axis=1), atol=1e-4, rtol=1e-4, name="2 row blocks x 4 steps")

x = jax.random.uniform(jax.random.key(61), (384, 384))
check(row_sum(x), jnp.sum(x, axis=1), atol=1e-4, rtol=1e-4, name="3 row blocks x 3 steps")

# %% [markdown]
# # Tiled matmul
#
# **Goal:** multiply `a` of shape `(M, K)` by `b` of shape `(K, N)` block by block, summing
# the partial products in a VMEM scratch accumulator.
#
# ## Why tile a matmul?
#
# Matrix multiplication is what TPUs are built for: the **MXU** (matrix unit) multiplies whole
# blocks at once, for example 128 x 128 per pass. But the operands of a real layer do not fit
# in VMEM, so the kernel works on blocks, and every output block is a sum over the `K`
# dimension:
#
# ```
# o[i, j] = a[i, 0] @ b[0, j] + a[i, 1] @ b[1, j] + ... + a[i, K/bk - 1] @ b[K/bk - 1, j]
# ```
#
# where `a[i, k]` is the `(bm, bk)` block of `a` in block row `i` and block column `k`, and
# `b[k, j]` is the `(bk, bn)` block of `b`. This is the row sum of puzzle 7 again, with `@` in
# place of `sum`: a grid `(M // bm, N // bn, K // bk)` with the reduction axis `k` last, and
# index maps that follow the formula:
#
# ```python
# a: pl.BlockSpec((bm, bk), lambda i, j, k: (i, k))
# b: pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))
# o: pl.BlockSpec((bm, bn), lambda i, j, k: (i, j))   # the same block for every k
# ```
#
# ![output block (i, j) is the sum over k of a-block (i, k) times b-block (k, j)](../../images/basics_matmul.svg)
#
# ![the same call, step by step: the a, b and o blocks in VMEM at each grid step (drawn from this puzzle's solution by `pallas-puzzles diagram 1.8 --all-steps`)](../../images/basics_matmul_steps.svg)
#
# ## Scratch memory: an accumulator that belongs to you
#
# `scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)]` gives the kernel one more ref after the
# outputs: a `(bm, bn)` float32 buffer in VMEM that no BlockSpec moves. It is never copied from
# or to HBM, and it **persists across all grid steps**: it is not reset when the output block
# changes, and it starts as garbage.
#
# Why not add into `o_ref` as in puzzle 7? For a float32 output that would work. But the output
# is often bfloat16 (puzzle 13), and summing in a narrow type loses precision at every step; and
# a kernel often transforms the finished sum before storing it (puzzle 11). Keeping the running
# sum in a float32 scratch buffer, and writing the output once, handles both. The pattern has
# three parts:
#
# 1. **zero** the accumulator on the first step along `k`;
# 2. **accumulate** `a_block @ b_block` on every step;
# 3. **store** the accumulator into `o_ref` on the last step along `k`.
#
# Because the scratch buffer is shared by all output blocks, step 1 must run at the start of
# *every* output block, not only at the very first grid step: `k == 0` does exactly that.
# `pl.num_programs(2)` gives the number of steps along `k`, so the last one is
# `k == pl.num_programs(2) - 1`.
#
# Inside a kernel, `a @ b` or `jnp.dot(a, b)` on two loaded blocks runs on the MXU.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bm, bk, bn = 64, 128, 128  # block shapes: a (bm, bk), b (bk, bn), output (bm, bn)


def matmul_kernel(a_ref, b_ref, o_ref, acc_ref):
    # a_ref: (bm, bk), b_ref: (bk, bn), o_ref: (bm, bn), acc_ref: (bm, bn) float32 scratch
    k = pl.program_id(2)
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def matmul(a, b):
    M, K = a.shape
    _, N = b.shape
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
        grid=(M // bm, N // bn, K // bk),
        in_specs=[
            pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
            pl.BlockSpec((bk, bn), lambda i, j, k: (k, j)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        interpret=True,
    )(a, b)


# %%
a = jax.random.normal(jax.random.key(70), (128, 256))
b = jax.random.normal(jax.random.key(71), (256, 256))
check(matmul(a, b), a @ b, atol=1e-3, rtol=1e-3, name="grid (2, 2, 2)")

a = jax.random.normal(jax.random.key(72), (192, 384))
b = jax.random.normal(jax.random.key(73), (384, 128))
check(matmul(a, b), a @ b, atol=1e-3, rtol=1e-3, name="grid (3, 1, 3)")

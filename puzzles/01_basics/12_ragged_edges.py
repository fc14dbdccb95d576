# %% [markdown]
# # Ragged edges
#
# **Goal:** a tiled matmul for sizes that are not multiples of the block sizes: a grid that
# covers the whole arrays, and a mask that keeps garbage out of the sum.
#
# ## Real sizes are not multiples of 128
#
# Sequence lengths, vocabularies and batch sizes come in whatever sizes they like, but a
# block shape is fixed, and on a TPU its last two dimensions must be multiples of 8 and 128
# (puzzle 4). So the last block along an axis may stick out past the end of the array.
#
# **The grid.** `M // bm` rounds down and forgets the partial last block. Round up instead:
# `pl.cdiv(M, bm)` is `(M + bm - 1) // bm`, the number of blocks needed to cover `M`
# elements. For `M = 200` and `bm = 128` that is 2 blocks: rows `0:128` and `128:256`, of
# which only `128:200` exist.
#
# **What a partial block holds.** The ref is still a full `(bm, bk)` block. For an *input*, the
# part that lies past the end of the array is **garbage**: on a TPU, whatever was in that VMEM
# buffer before; in `pallas-puzzles` and in JAX's interpret mode, NaN. For an *output*, the part
# past the end is simply **not copied back** to HBM.
#
# ![the last block along K sticks out of the array; its extra columns hold garbage](../../images/basics_ragged.svg)
#
# ![the solution's grid step by step; the last block along each axis reaches past the array, though every cell is drawn the same size (drawn by `pallas-puzzles diagram 1.12 --all-steps`)](../../images/basics_ragged_steps.svg)
#
# ## Which edges need a mask?
#
# Think about where garbage can flow in a matmul `o = a @ b`:
#
# - **Ragged `M` or `N`:** garbage rows of `a` (or columns of `b`) only produce garbage rows
#   (or columns) of the output block, and exactly those are dropped at write-back. No mask is
#   needed.
# - **Ragged `K`:** every output element sums over `K`. Garbage columns of `a` and garbage rows
#   of `b` are multiplied together and added into *valid* outputs. These must be masked.
#
# Mask **both** operands. It is tempting to zero only the garbage columns of `a`, since
# `0 * anything` should be `0`; but when the garbage is NaN or infinity, `0 * NaN` is NaN.
#
# ## Building a mask: iota and where
#
# `lax.broadcasted_iota(jnp.int32, shape, dim)` gives an array of `shape` whose entries count
# `0, 1, 2, ...` along dimension `dim`. Adding the block's starting offset gives each element's
# position in the whole array:
#
# ```python
# col = k * bk + lax.broadcasted_iota(jnp.int32, (bm, bk), 1)   # global column of each element
# a = jnp.where(col < K, a_ref[...], 0.0)                        # zero where past the end
# ```
#
# A worked example with `K = 300`, `bk = 128`: at `k = 2` the block covers columns `256:384`;
# `col < 300` is true for the first 44 columns only.
#
# The kernel needs `K`, which its refs do not show (they have the block shape). A static value
# like this is passed with `functools.partial`, as a keyword argument of the kernel. Masking
# costs a little on every step; production kernels often mask only on the last step along `k`
# (under `pl.when`), but masking every step is simpler and just as correct.

# %%
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bm, bk, bn = 128, 128, 128  # block shapes: a (bm, bk), b (bk, bn), output (bm, bn)


def ragged_matmul_kernel(a_ref, b_ref, o_ref, acc_ref, *, K):
    # a_ref: (bm, bk), b_ref: (bk, bn), o_ref: (bm, bn), acc_ref: (bm, bn) float32 scratch;
    # K: the true length of the reduction dimension (a Python int)
    k = pl.program_id(2)
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def ragged_matmul(a, b):
    M, K = a.shape
    _, N = b.shape
    # YOUR CODE BEGIN
    grid = (M // bm, N // bn, K // bk)
    # YOUR CODE END
    return pl.pallas_call(
        functools.partial(ragged_matmul_kernel, K=K),
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
        grid=grid,
        in_specs=[
            pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
            pl.BlockSpec((bk, bn), lambda i, j, k: (k, j)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        interpret=True,
    )(a, b)


# %%
# Every dimension ragged: the last block along each axis sticks out.
a = jax.random.normal(jax.random.key(120), (200, 300))
b = jax.random.normal(jax.random.key(121), (300, 160))
check(ragged_matmul(a, b), a @ b, atol=1e-3, rtol=1e-3, name="(200, 300) @ (300, 160)")

# Block multiples still work (the mask is all true).
a = jax.random.normal(jax.random.key(122), (256, 384))
b = jax.random.normal(jax.random.key(123), (384, 128))
check(ragged_matmul(a, b), a @ b, atol=1e-3, rtol=1e-3, name="(256, 384) @ (384, 128)")

# K shorter than one block.
a = jax.random.normal(jax.random.key(124), (128, 40))
b = jax.random.normal(jax.random.key(125), (40, 256))
check(ragged_matmul(a, b), a @ b, atol=1e-3, rtol=1e-3, name="(128, 40) @ (40, 256)")

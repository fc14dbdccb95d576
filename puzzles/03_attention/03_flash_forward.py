# %% [markdown]
# # Flash attention forward: the same body on a 2-D grid
#
# **Goal:** compute attention for *all* query blocks by adding one grid axis. The kernel body
# is the one you wrote in puzzle 2; only the grid and the index maps change.
#
# ## From one query block to all of them
#
# Puzzle 2 handled query block 0 (or any single block) with a grid over the key/value blocks.
# The other query blocks are independent of it: they need the same keys and values but their
# own statistics and their own output block. So give them their own grid axis:
#
# ```
# grid = (T // bq, S // bk)          step (i, kv): query block i, key/value block kv
# q:   block (bq, H) at (i, 0)       fetched once per query block, stays while kv runs
# k,v: block (bk, H) at (kv, 0)      streams past, once per query block
# o:   block (bq, H) at (i, 0)       the same block for all kv: written back when i changes
# ```
#
# The key/value axis comes **last**: it is the reduction, and the steps that fold into one
# query block's `m`, `l` and `acc` must be consecutive (chapter 01, puzzle 7). The query axis
# is independent work, so it is marked `"parallel"`: a chip with two TensorCores may split it
# between them. The key/value axis is `"arbitrary"`.
#
# ![the (i, kv) grid: row i keeps its query block and scratch while the key/value blocks stream](../../images/attn_flash_grid.svg)
#
# ![grid step (2, 1) of the solution: query block 2 stays while key/value block 1 streams through (drawn by `pallas-puzzles diagram 3.3 --step 2,1`)](../../images/attn_flash_step.svg)
#
# ## Scratch is shared by all rows
#
# There is one set of scratch buffers for the whole grid, not one per query block. When the
# grid moves from row `i` to row `i + 1`, `m`, `l` and `acc` still hold row `i`'s final state.
# Resetting them at `kv == 0` (the first key/value block *of every row*) is what makes that
# harmless; resetting them only at the very first grid step would start row 1 from row 0's
# statistics. That is why the body of puzzle 2 works unchanged: it already tests `kv == 0` and
# `kv == num_programs - 1`, and neither depends on `i`. Only the axis that `kv` comes from
# moves, from 0 to 1.
#
# ## What this costs in memory traffic
#
# Each query block reads all of `k` and `v` once, so `k` and `v` are read `T / bq` times in
# total; `q` is read once and `o` written once. Nothing else touches HBM: the scores and the
# weights live only in VMEM, one `(bq, bk)` block at a time. Larger query blocks mean fewer
# passes over `k` and `v`; the VMEM budget (the blocks, double-buffered, plus the scratch)
# limits how large. Production kernels use blocks of 128 to 512 rows or more.
#
# ## Your task
#
# 1. The kernel: the body of puzzle 2, with `kv` now the second grid index (given).
# 2. The wiring: the grid and the block specs above. The starter still has puzzle 2's
#    one-dimensional grid.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bq, bk = 32, 64  # query rows per block, key/value rows per block


def flash_kernel(q_ref, k_ref, v_ref, o_ref, m_ref, l_ref, acc_ref):
    # q_ref: (bq, H), k_ref and v_ref: (bk, H), o_ref: (bq, H)
    # m_ref, l_ref: (bq, 1) and acc_ref: (bq, H), float32 VMEM scratch kept across the grid
    kv = pl.program_id(1)
    scale = q_ref.shape[1] ** -0.5
    s = jnp.einsum("qh,kh->qk", q_ref[...], k_ref[...]) * scale
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def flash_attention(q, k, v):
    T, H = q.shape
    S = k.shape[0]
    # YOUR CODE BEGIN
    # Puzzle 2's wiring, for query block 0 only: give the query blocks a grid axis of their own.
    grid = (S // bk,)
    in_specs = [
        pl.BlockSpec((bq, H), lambda kv: (0, 0)),
        pl.BlockSpec((bk, H), lambda kv: (kv, 0)),
        pl.BlockSpec((bk, H), lambda kv: (kv, 0)),
    ]
    out_specs = pl.BlockSpec((bq, H), lambda kv: (0, 0))
    # YOUR CODE END
    return pl.pallas_call(
        flash_kernel,
        out_shape=jax.ShapeDtypeStruct((T, H), jnp.float32),
        grid=grid,
        in_specs=in_specs,
        out_specs=out_specs,
        scratch_shapes=[
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, H), jnp.float32),
        ],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
        interpret=True,
    )(q, k, v)


# The reference from puzzle 1.
def attention(q, k, v, mask=None):
    s = (q @ k.T) * (q.shape[1] ** -0.5)
    if mask is not None:
        s = jnp.where(mask, s, -jnp.inf)
    m = jnp.max(s, axis=1, keepdims=True)
    m = jnp.where(m == -jnp.inf, 0.0, m)
    p = jnp.exp(s - m)
    l = jnp.sum(p, axis=1, keepdims=True)
    return (p @ v) / jnp.where(l == 0.0, 1.0, l)


def make_qkv(seed, T, S, H, score_scale=1.0):
    # Keys that drift upwards, so the running maximum keeps moving (as in puzzle 2).
    kq, kk, kv = jax.random.split(jax.random.key(seed), 3)
    q = (jax.random.normal(kq, (T, H)) + 0.5) * score_scale
    k = jax.random.normal(kk, (S, H)) + jnp.linspace(0.0, 1.5, S)[:, None]
    v = jax.random.normal(kv, (S, H))
    return q, k, v


# %%
# Self-attention: 8 query blocks by 4 key/value blocks.
q, k, v = make_qkv(820, T=256, S=256, H=64)
check(flash_attention(q, k, v), attention(q, k, v), atol=1e-5, rtol=1e-4, name="grid (8, 4)")

# Cross-attention with fewer queries than keys, and scores in the hundreds.
q, k, v = make_qkv(821, T=96, S=384, H=64, score_scale=20.0)
check(flash_attention(q, k, v), attention(q, k, v), atol=1e-5, rtol=1e-4,
      name="grid (3, 6), large scores")

# A wider head.
q, k, v = make_qkv(822, T=64, S=128, H=128)
check(flash_attention(q, k, v), attention(q, k, v), atol=1e-5, rtol=1e-4, name="H = 128")

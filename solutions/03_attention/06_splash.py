# %% [markdown]
# # Splash attention: a compacted grid driven by scalar prefetch
#
# **Goal:** run the block-sparse attention of puzzle 5 on a grid that has *only* the blocks
# that do work. The host lists, for every query block, which key/value blocks to visit; the
# index maps read that list from SMEM, so the pipeline fetches exactly those blocks.
#
# ## What skipping with `pl.when` still costs
#
# In puzzle 5 a SKIP block ran no arithmetic, but it still cost a grid step, and the pipeline
# still copied its `k`, `v` and mask blocks from HBM, because the index maps named them. For a
# sliding window over a long sequence almost every block is SKIP: with `T // bq` query blocks
# and a window of `w` keys, each row needs about `w / bk + 1` blocks out of `S // bk`. The
# dense grid grows with `T * S`, the useful work with `T * w`.
#
# ## Compacting the grid
#
# Give the grid a second axis of length `width`, the largest number of non-SKIP blocks in any
# row, instead of `S // bk`. Step `(i, j)` handles the `j`-th useful block of row `i`, and the
# host says which one that is in three small `(T // bq, width)` int32 tables:
#
# - `data_next[i, j]`: the key/value block index to fetch at step `(i, j)`;
# - `kind_next[i, j]`: its kind, `FULL` or `PARTIAL`, or `SKIP` for padding;
# - `mask_next[i, j]`: which mask block to use, as an index into `partial_blocks`, the
#   *distinct* partial blocks of the mask. A sliding window has only a handful of distinct
#   partial blocks (the diagonal triangle, the far edge of the window), however long the
#   sequence, so this is much smaller than the whole mask.
#
# Rows with fewer useful blocks than `width` are padded with SKIP steps. A padding step
# repeats the row's last `data_next` and `mask_next`: the block index does not change, so the
# pipeline fetches nothing for it. `mask_next` also keeps its previous value at FULL steps, for
# the same reason.
#
# ![the dense grid of puzzle 5 and the compacted grid: data_next lists the useful kv blocks per row](../../images/attn_splash_compaction.svg)
#
# ![step (2, 1) of the solution's compacted grid: the k, v and mask blocks come from the tables (drawn by `pallas-puzzles diagram 3.6 --call 2 --step 2,1`)](../../images/attn_splash_step.svg)
#
# ## Scalar prefetch: tables the index maps can read
#
# An index map is a function of the grid indices. To look the block index up in `data_next`,
# it needs the table too, *before* the step runs, since the pipeline computes the next step's
# block indices while the current one computes. `pltpu.PrefetchScalarGridSpec` does exactly
# that:
#
# ```python
# grid_spec = pltpu.PrefetchScalarGridSpec(
#     num_scalar_prefetch=3,               # the first 3 call arguments are tables
#     grid=(T // bq, width),
#     in_specs=[...], out_specs=..., scratch_shapes=[...])
# pl.pallas_call(kernel, out_shape=..., grid_spec=grid_spec)(data_next, kind_next, mask_next,
#                                                            q, k, v, partial_blocks)
# ```
#
# The first `num_scalar_prefetch` arguments are copied whole into SMEM before the grid starts.
# They get no BlockSpec. Every index map receives them after the grid indices,
# `index_map(i, j, data_next_ref, kind_next_ref, mask_next_ref)`, and the kernel receives them
# first, before the refs of the blocked inputs. Both read them by scalar indexing,
# `data_next_ref[i, j]`. Note that `out_shape` is still required: the grid spec replaces
# `grid`, `in_specs`, `out_specs` and `scratch_shapes`, not the output's shape.
#
# The mask input is `partial_blocks`, of shape `(P, bq, bk)`. Its BlockSpec
# `pl.BlockSpec((None, bq, bk), ...)` squeezes the first dimension (chapter 01, puzzle 10), so
# the kernel sees one `(bq, bk)` block, chosen by the index map from `mask_next`.
#
# ## The kernel
#
# Nearly puzzle 5's. The step index `j` is no longer a key/value block index, so everything the
# kernel needs to know about the block comes from the tables: its kind from `kind_next[i, j]`,
# its data and mask already in the refs. Initialise at `j == 0` and finish at the last step of
# the *compacted* axis, `j == pl.num_programs(1) - 1`.
#
# This is the design of JAX's production splash attention (`ops/tpu/splash_attention`): host
# tables of next blocks and deduplicated partial mask blocks, scalar prefetch, a shrunk grid.
#
# ## Your task
#
# 1. The index maps of `k`, `v` and the mask block: look the block up in the tables.
# 2. The kernel body: fold the block according to `kind_next[i, j]`, and write the output at
#    the last step.
#
# The check runs the dense kernel of puzzle 5 next to yours on the same mask, and
# `report_work` prints the grid steps, flops and HBM bytes that the emulator counted for each.
# Expect about the same flops: puzzle 5's `pl.when` already skipped the arithmetic. What
# compaction saves is grid steps (each has a fixed overhead on a TPU) and HBM reads.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check, report_work

# %%
SKIP, PARTIAL, FULL = 0, 1, 2  # block kinds


def fold_block(s, v_ref, m_ref, l_ref, acc_ref):
    # Puzzle 5's update, safe for rows whose scores are all -inf.
    m_old = m_ref[...]
    m_new = jnp.maximum(m_old, jnp.max(s, axis=1, keepdims=True))
    m_safe = jnp.where(m_new == -jnp.inf, 0.0, m_new)
    corr = jnp.exp(m_old - m_safe)
    p = jnp.exp(s - m_safe)
    l_ref[...] = l_ref[...] * corr + jnp.sum(p, axis=1, keepdims=True)
    acc_ref[...] = acc_ref[...] * corr + jnp.dot(p, v_ref[...])
    m_ref[...] = m_new


def splash_kernel(data_next_ref, kind_next_ref, mask_next_ref, q_ref, k_ref, v_ref, mask_ref,
                  o_ref, m_ref, l_ref, acc_ref):
    # data_next_ref, kind_next_ref, mask_next_ref: (T // bq, width) int32 tables in SMEM
    # q_ref: (bq, H), k_ref and v_ref: (bk, H), mask_ref: (bq, bk) int8, o_ref: (bq, H)
    i = pl.program_id(0)
    j = pl.program_id(1)  # the j-th useful block of row i, not a key/value block index

    @pl.when(j == 0)
    def _init():
        m_ref[...] = jnp.full(m_ref.shape, -jnp.inf, jnp.float32)
        l_ref[...] = jnp.zeros(l_ref.shape, jnp.float32)
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    def scores():
        scale = q_ref.shape[1] ** -0.5
        return jnp.einsum("qh,kh->qk", q_ref[...], k_ref[...]) * scale

    # YOUR CODE BEGIN
    kind = kind_next_ref[i, j]

    @pl.when(kind == FULL)
    def _full():
        fold_block(scores(), v_ref, m_ref, l_ref, acc_ref)

    @pl.when(kind == PARTIAL)
    def _partial():
        s = jnp.where(mask_ref[...] != 0, scores(), -jnp.inf)
        fold_block(s, v_ref, m_ref, l_ref, acc_ref)

    @pl.when(j == pl.num_programs(1) - 1)
    def _finish():
        l = l_ref[...]
        o_ref[...] = acc_ref[...] / jnp.where(l == 0.0, 1.0, l)
    # YOUR CODE END


def splash_attention(q, k, v, mask, bq, bk):
    T, H = q.shape
    block_mask = classify_blocks(mask, bq, bk)
    partial_blocks, partial_index = dedupe_partial_blocks(mask, block_mask, bq, bk)
    data_next, kind_next, mask_next = compact(block_mask, partial_index)
    width = data_next.shape[1]

    def q_index(i, j, data_next_ref, kind_next_ref, mask_next_ref):
        return i, 0

    # YOUR CODE BEGIN
    def kv_index(i, j, data_next_ref, kind_next_ref, mask_next_ref):
        return data_next_ref[i, j], 0

    def mask_index(i, j, data_next_ref, kind_next_ref, mask_next_ref):
        return mask_next_ref[i, j], 0, 0
    # YOUR CODE END

    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=3,
        grid=(T // bq, width),
        in_specs=[
            pl.BlockSpec((bq, H), q_index),
            pl.BlockSpec((bk, H), kv_index),
            pl.BlockSpec((bk, H), kv_index),
            pl.BlockSpec((None, bq, bk), mask_index),
        ],
        out_specs=pl.BlockSpec((bq, H), q_index),
        scratch_shapes=[
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, H), jnp.float32),
        ],
    )
    return pl.pallas_call(
        splash_kernel,
        out_shape=jax.ShapeDtypeStruct((T, H), jnp.float32),
        grid_spec=grid_spec,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
        interpret=True,
    )(data_next, kind_next, mask_next, q, k, v, partial_blocks)


# Host-side tables. These run once per mask, in ordinary Python, before any kernel.
def classify_blocks(mask, bq, bk):
    # Puzzle 5's classification: SKIP, PARTIAL or FULL per (bq, bk) block.
    T, S = mask.shape
    blocks = mask.reshape(T // bq, bq, S // bk, bk)
    some = jnp.any(blocks, axis=(1, 3))
    every = jnp.all(blocks, axis=(1, 3))
    return jnp.where(every, FULL, jnp.where(some, PARTIAL, SKIP)).astype(jnp.int32)


def dedupe_partial_blocks(mask, block_mask, bq, bk):
    # The distinct PARTIAL blocks of the mask, (P, bq, bk) int8, and for each block of the
    # grid the index of its pattern among them (0 where the block is not PARTIAL).
    tq, tk = block_mask.shape
    distinct = []
    index = [[0] * tk for _ in range(tq)]
    for i in range(tq):
        for kv in range(tk):
            if int(block_mask[i, kv]) != PARTIAL:
                continue
            block = mask[i * bq:(i + 1) * bq, kv * bk:(kv + 1) * bk]
            found = [p for p, seen in enumerate(distinct) if bool(jnp.all(seen == block))]
            if found:
                index[i][kv] = found[0]
            else:
                index[i][kv] = len(distinct)
                distinct.append(block)
    if not distinct:  # a mask without partial blocks still needs one block to point at
        distinct.append(jnp.ones((bq, bk), dtype=bool))
    return jnp.stack(distinct).astype(jnp.int8), index


def compact(block_mask, partial_index):
    # Lists each row's non-SKIP blocks in order and pads the rows to the longest one.
    # Padding steps are SKIP and repeat the row's last block indices, so nothing is refetched.
    tq, tk = block_mask.shape
    useful = [[kv for kv in range(tk) if int(block_mask[i, kv]) != SKIP] for i in range(tq)]
    width = max(1, max(len(row) for row in useful))
    data_next, kind_next, mask_next = [], [], []
    last_mask = 0
    for i in range(tq):
        row_data, row_kind, row_mask = [], [], []
        for kv in useful[i]:
            if int(block_mask[i, kv]) == PARTIAL:
                last_mask = partial_index[i][kv]
            row_data.append(kv)
            row_kind.append(int(block_mask[i, kv]))
            row_mask.append(last_mask)
        last_data = row_data[-1] if row_data else 0
        padding = width - len(row_data)
        data_next.append(row_data + [last_data] * padding)
        kind_next.append(row_kind + [SKIP] * padding)
        mask_next.append(row_mask + [last_mask] * padding)
    return (jnp.array(data_next, jnp.int32), jnp.array(kind_next, jnp.int32),
            jnp.array(mask_next, jnp.int32))


# The dense baseline: puzzle 5's kernel and wiring, unchanged.
def block_sparse_kernel(block_mask_ref, q_ref, k_ref, v_ref, mask_ref, o_ref, m_ref, l_ref,
                        acc_ref):
    i = pl.program_id(0)
    kv = pl.program_id(1)

    @pl.when(kv == 0)
    def _init():
        m_ref[...] = jnp.full(m_ref.shape, -jnp.inf, jnp.float32)
        l_ref[...] = jnp.zeros(l_ref.shape, jnp.float32)
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    def scores():
        scale = q_ref.shape[1] ** -0.5
        return jnp.einsum("qh,kh->qk", q_ref[...], k_ref[...]) * scale

    kind = block_mask_ref[i, kv]

    @pl.when(kind == FULL)
    def _full():
        fold_block(scores(), v_ref, m_ref, l_ref, acc_ref)

    @pl.when(kind == PARTIAL)
    def _partial():
        s = jnp.where(mask_ref[...] != 0, scores(), -jnp.inf)
        fold_block(s, v_ref, m_ref, l_ref, acc_ref)

    @pl.when(kv == pl.num_programs(1) - 1)
    def _finish():
        l = l_ref[...]
        o_ref[...] = acc_ref[...] / jnp.where(l == 0.0, 1.0, l)


def block_sparse_attention(q, k, v, mask, bq, bk):
    T, H = q.shape
    S = k.shape[0]
    return pl.pallas_call(
        block_sparse_kernel,
        out_shape=jax.ShapeDtypeStruct((T, H), jnp.float32),
        grid=(T // bq, S // bk),
        in_specs=[
            pl.BlockSpec(memory_space=pltpu.SMEM),
            pl.BlockSpec((bq, H), lambda i, kv: (i, 0)),
            pl.BlockSpec((bk, H), lambda i, kv: (kv, 0)),
            pl.BlockSpec((bk, H), lambda i, kv: (kv, 0)),
            pl.BlockSpec((bq, bk), lambda i, kv: (i, kv)),
        ],
        out_specs=pl.BlockSpec((bq, H), lambda i, kv: (i, 0)),
        scratch_shapes=[
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, H), jnp.float32),
        ],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
        interpret=True,
    )(classify_blocks(mask, bq, bk), q, k, v, mask.astype(jnp.int8))


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


def make_qkv(seed, T, H, score_scale=1.0):
    kq, kk, kv = jax.random.split(jax.random.key(seed), 3)
    q = jax.random.normal(kq, (T, H)) * score_scale
    k = jax.random.normal(kk, (T, H))
    v = jax.random.normal(kv, (T, H))
    return q, k, v


def local_global_mask(T, window, n_global):
    # Causal; query t sees the last `window` keys, plus the first `n_global` keys.
    rows = jnp.arange(T)[:, None]
    cols = jnp.arange(T)[None, :]
    return (cols <= rows) & ((cols > rows - window) | (cols < n_global))


# %%
bq, bk = 128, 128
q, k, v = make_qkv(860, T=1024, H=64)

# A window of 256 keys plus 64 global tokens over 1024 tokens: an (8, 8) dense grid.
mask = local_global_mask(1024, window=256, n_global=64)
block_mask = classify_blocks(mask, bq, bk)
partial_blocks, partial_index = dedupe_partial_blocks(mask, block_mask, bq, bk)
data_next, kind_next, mask_next = compact(block_mask, partial_index)
print(f"{partial_blocks.shape[0]} distinct partial blocks; data_next (kind_next):")
for i in range(data_next.shape[0]):
    print("  row", i, [f"{int(d)}({int(c)})" for d, c in zip(data_next[i], kind_next[i])])
expected = attention(q, k, v, mask)
dense = block_sparse_attention(q, k, v, mask, bq, bk)
splash = splash_attention(q, k, v, mask, bq, bk)
check(dense, expected, atol=1e-5, rtol=1e-4, name="dense grid (puzzle 5)")
check(splash, expected, atol=1e-5, rtol=1e-4, name="window 256 + 64 global tokens")
report_work(dense=dense, splash=splash)

# A plain window of 100 keys: two useful blocks per row.
mask = local_global_mask(1024, window=100, n_global=0)
check(splash_attention(q, k, v, mask, bq, bk), attention(q, k, v, mask), atol=1e-5,
      rtol=1e-4, name="window 100")

# Queries 896..1023 are padding: the last row of blocks has no useful block at all.
mask = local_global_mask(1024, window=300, n_global=16) & (jnp.arange(1024) < 896)[:, None]
check(splash_attention(q, k, v, mask, bq, bk), attention(q, k, v, mask), atol=1e-5,
      rtol=1e-4, name="padded queries")

# Larger scores and smaller query blocks: a (16, 3) compacted grid.
q, k, v = make_qkv(861, T=1024, H=64, score_scale=20.0)
mask = local_global_mask(1024, window=200, n_global=32)
check(splash_attention(q, k, v, mask, 64, bk), attention(q, k, v, mask), atol=1e-5, rtol=1e-4,
      name="bq 64, large scores")

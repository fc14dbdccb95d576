# %% [markdown]
# # Causal masking: full, partial and skipped blocks
#
# **Goal:** causal flash attention (query `t` sees keys `0..t`) that does no work at all for
# the blocks above the diagonal, and masks element by element only where it must.
#
# ## Three kinds of blocks
#
# Lay the `(T, S)` score matrix out as the grid of `(bq, bk)` blocks that the kernel visits.
# Block `(i, kv)` covers query rows `i*bq .. i*bq + bq - 1` and key columns
# `kv*bk .. kv*bk + bk - 1`. Against the causal rule `col <= row` it is one of three kinds:
#
# - **SKIP:** every key comes after every query of the block, `first_col > last_row`. Every
#   score would be `-inf` and every weight 0: the block changes nothing. Skip it.
# - **FULL:** every key comes at or before every query, `last_col <= first_row`. No element is
#   masked: compute it exactly as in puzzle 3.
# - **PARTIAL:** the rest, the blocks the diagonal passes through. Compute the scores, then set
#   the masked ones to `-inf`.
#
# Look at which corner of the block decides each test. A block has *some* visible element
# when its earliest key is at or before its *latest* query, and all of its elements are visible
# when its latest key is at or before its *earliest* query. Comparing the block starts
# (`kv*bk <= i*bq`) works when `bq == bk` but not in general: with `bq = 64` and `bk = 32` it skips
# block `(0, 1)`, whose keys 32..63 are visible to queries 32..63. Nearly half the grid
# skips for long sequences, so causal attention costs about half of full attention.
#
# ![blocks of a causal mask with bq = 64 and bk = 32: full, partial and skipped](../../images/attn_causal_blocks.svg)
#
# ## Skipping a block: `pl.when`
#
# The classification depends on `program_id`, a traced value, so a Python `if` cannot test it.
# `pl.when(condition)` runs the decorated function only at the steps where the condition
# holds. Here the pattern is two guarded updates, one for FULL and one for PARTIAL blocks; a
# SKIP block runs neither. The scratch initialisation at `kv == 0` and the final division at
# the last `kv` stay outside both: they must run at every row, whatever its blocks are.
#
# ## The mask inside a partial block: iota
#
# Inside the kernel, the global row and column of every score come from
# `lax.broadcasted_iota(jnp.int32, shape, dim)`, an array whose entries count along `dim`
# (0, 1, 2, ...), plus the block's offset:
#
# ```python
# rows = i * bq + lax.broadcasted_iota(jnp.int32, (bq, bk), 0)
# cols = kv * bk + lax.broadcasted_iota(jnp.int32, (bq, bk), 1)
# s = jnp.where(cols <= rows, s, -jnp.inf)
# ```
#
# On a TPU this builds the mask in vector registers; no mask array is ever read from memory.
#
# ## Is `-inf` safe here?
#
# A masked score gives `exp(-inf - m) = 0` as long as the running maximum `m` is finite. It
# becomes `-inf - (-inf) = NaN` if a row meets a block in which *all* its scores are masked
# before it has seen any visible key. In causal attention that cannot happen: the key/value
# blocks come in order, and block 0 holds key 0, which every query sees. Keep this in mind for
# the next puzzle, where it can.
#
# ## Skipping the copies too
#
# `pl.when` skips the arithmetic, but the pipeline still copies the `k` and `v` blocks that
# the index map names, skipped or not. The wiring below therefore clamps the key/value index
# to the last block that row `i` needs: `jnp.minimum(kv, ((i + 1) * bq - 1) // bk)`. At the
# skipped steps the index does not change, and the pipeline only fetches a block when its
# index changes, so nothing is copied. Index maps may compute with the grid indices like this;
# they run for every step, before the kernel body. The last checks run the kernel with and
# without the clamp, and `report_work` prints what the emulator counted for each: the same grid
# steps and arithmetic, fewer bytes read from HBM. Then `check_saves` compares your kernel's
# flops with puzzle 3's unmasked kernel on the same grid: a kernel that computes every block
# and masks the SKIP ones away gets the right numbers but fails there.
#
# ## Your task
#
# Classify block `(i, kv)`, and fold it into the running statistics with the given
# `fold_block` (puzzle 2's update, as a function): unmasked for a FULL block, masked with the
# iota test for a PARTIAL one, and not at all for a SKIP block. The checks use different block
# shapes (`bq > bk`, `bq < bk`, `bq == bk`), so classifying by block starts fails. (Until a
# block is folded, every row ends with `l = 0` and the given final division yields
# `0 / 0 = NaN`: that is what the starter shows.)

# %%
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check, check_saves, report_work


# %%
def fold_block(s, v_ref, m_ref, l_ref, acc_ref):
    # Puzzle 2's update: fold one (bq, bk) block of scores into m, l and acc.
    m_old = m_ref[...]
    m_new = jnp.maximum(m_old, jnp.max(s, axis=1, keepdims=True))
    corr = jnp.exp(m_old - m_new)
    p = jnp.exp(s - m_new)
    l_ref[...] = l_ref[...] * corr + jnp.sum(p, axis=1, keepdims=True)
    acc_ref[...] = acc_ref[...] * corr + jnp.dot(p, v_ref[...])
    m_ref[...] = m_new


def causal_kernel(q_ref, k_ref, v_ref, o_ref, m_ref, l_ref, acc_ref):
    # q_ref: (bq, H), k_ref and v_ref: (bk, H), o_ref: (bq, H); scratch as in puzzle 3
    i = pl.program_id(0)
    kv = pl.program_id(1)
    bq = q_ref.shape[0]
    bk = k_ref.shape[0]

    @pl.when(kv == 0)
    def _init():
        m_ref[...] = jnp.full(m_ref.shape, -jnp.inf, jnp.float32)
        l_ref[...] = jnp.zeros(l_ref.shape, jnp.float32)
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    def scores():
        scale = q_ref.shape[1] ** -0.5
        return jnp.einsum("qh,kh->qk", q_ref[...], k_ref[...]) * scale

    # YOUR CODE BEGIN
    first_row = i * bq
    last_row = first_row + bq - 1
    first_col = kv * bk
    last_col = first_col + bk - 1
    full = last_col <= first_row
    partial = (first_col <= last_row) & (last_col > first_row)

    @pl.when(full)
    def _full():
        fold_block(scores(), v_ref, m_ref, l_ref, acc_ref)

    @pl.when(partial)
    def _partial():
        rows = first_row + lax.broadcasted_iota(jnp.int32, (bq, bk), 0)
        cols = first_col + lax.broadcasted_iota(jnp.int32, (bq, bk), 1)
        s = jnp.where(cols <= rows, scores(), -jnp.inf)
        fold_block(s, v_ref, m_ref, l_ref, acc_ref)
    # YOUR CODE END

    @pl.when(kv == pl.num_programs(1) - 1)
    def _finish():
        o_ref[...] = acc_ref[...] / l_ref[...]


def flash_kernel(q_ref, k_ref, v_ref, o_ref, m_ref, l_ref, acc_ref):
    # Puzzle 3's kernel, no mask: every block folded in. Only the work check below uses it.
    kv = pl.program_id(1)

    @pl.when(kv == 0)
    def _init():
        m_ref[...] = jnp.full(m_ref.shape, -jnp.inf, jnp.float32)
        l_ref[...] = jnp.zeros(l_ref.shape, jnp.float32)
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    s = jnp.einsum("qh,kh->qk", q_ref[...], k_ref[...]) * q_ref.shape[1] ** -0.5
    fold_block(s, v_ref, m_ref, l_ref, acc_ref)

    @pl.when(kv == pl.num_programs(1) - 1)
    def _finish():
        o_ref[...] = acc_ref[...] / l_ref[...]


def causal_attention(q, k, v, bq, bk, clamp_copies=True, kernel=causal_kernel):
    T, H = q.shape

    def kv_index(i, kv):
        # Clamped to the last key/value block that query block i needs: skipped steps repeat
        # the previous block index, so the pipeline copies nothing for them.
        if not clamp_copies:  # a Python bool: for the comparison at the end
            return kv, 0
        return jnp.minimum(kv, ((i + 1) * bq - 1) // bk), 0

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((T, H), jnp.float32),
        grid=(T // bq, T // bk),
        in_specs=[
            pl.BlockSpec((bq, H), lambda i, kv: (i, 0)),
            pl.BlockSpec((bk, H), kv_index),
            pl.BlockSpec((bk, H), kv_index),
        ],
        out_specs=pl.BlockSpec((bq, H), lambda i, kv: (i, 0)),
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


def make_qkv(seed, T, H, score_scale=1.0):
    kq, kk, kv = jax.random.split(jax.random.key(seed), 3)
    q = jax.random.normal(kq, (T, H)) * score_scale
    k = jax.random.normal(kk, (T, H))
    v = jax.random.normal(kv, (T, H))
    return q, k, v


def causal_mask(T):
    return jnp.arange(T)[:, None] >= jnp.arange(T)[None, :]


# %%
# Tall query blocks: bq = 64, bk = 32, a (4, 8) grid.
q, k, v = make_qkv(830, T=256, H=64)
check(causal_attention(q, k, v, bq=64, bk=32), attention(q, k, v, causal_mask(256)),
      atol=1e-5, rtol=1e-4, name="bq 64, bk 32")

# Wide key/value blocks: bq = 32, bk = 64, an (8, 4) grid.
check(causal_attention(q, k, v, bq=32, bk=64), attention(q, k, v, causal_mask(256)),
      atol=1e-5, rtol=1e-4, name="bq 32, bk 64")

# Square blocks and scores in the hundreds.
q, k, v = make_qkv(831, T=128, H=32, score_scale=30.0)
check(causal_attention(q, k, v, bq=32, bk=32), attention(q, k, v, causal_mask(128)),
      atol=1e-5, rtol=1e-4, name="bq 32, bk 32, large scores")

# What the clamped index maps save: the same kernel, with and without the clamp.
unclamped = causal_attention(q, k, v, bq=32, bk=32, clamp_copies=False)
clamped = causal_attention(q, k, v, bq=32, bk=32)
check(unclamped, attention(q, k, v, causal_mask(128)), atol=1e-5, rtol=1e-4,
      name="without the clamp")
report_work(unclamped=unclamped, clamped=clamped)

# Skipping is the point: the blocks above the diagonal must cost no arithmetic at all, not be
# computed and then masked. Against puzzle 3's kernel, which folds in all 16 blocks, a kernel
# that skips the 6 blocks above the diagonal saves more than a third of the flops.
dense = causal_attention(q, k, v, bq=32, bk=32, clamp_copies=False, kernel=flash_kernel)
check_saves(dense, clamped, at_least=0.3, name="SKIP blocks cost no arithmetic")

# %% [markdown]
# # Block-sparse attention from a host-built block mask
#
# **Goal:** attention under *any* mask (sliding windows, packed documents, padding), with the
# block classification of puzzle 4 computed once on the host and handed to the kernel as a
# small table. Along the way, meet the `-inf` trap that causal masking never sprang.
#
# ## A table instead of a formula
#
# In puzzle 4 the kernel classified each block with arithmetic on `i` and `kv`. That works for
# masks with a formula, but real masks are often data: documents packed into one sequence, a
# window plus a few global tokens, padding that varies per batch. The general approach splits
# the work:
#
# 1. **On the host**, cut the `(T, S)` boolean mask into `(bq, bk)` blocks and classify each:
#    `SKIP = 0` (no element visible), `PARTIAL = 1` (some), `FULL = 2` (all). The result is a
#    small `(T // bq, S // bk)` int32 table, `block_mask` (the name JAX's splash attention uses
#    for the same table).
# 2. **In the kernel**, read `block_mask[i, kv]` and branch with `pl.when`, as before. A
#    PARTIAL block masks its scores with its `(bq, bk)` block of the mask itself, which arrives
#    as an ordinary blocked input.
#
# ![the mask cut into blocks, and the block_mask table the host builds from it](../../images/attn_block_sparse.svg)
#
# ## Where the table lives: SMEM
#
# `block_mask` is read one scalar at a time, at an index that depends on the grid step. That is
# what SMEM, the scalar memory, is for. `pl.BlockSpec(memory_space=pltpu.SMEM)` with no block
# shape copies the whole table into SMEM before the grid starts; the kernel reads it as
# `block_mask_ref[i, kv]`. (SMEM is much smaller than VMEM, but a table of one word per block
# fits easily.) Reading one number out of a VMEM block to steer control flow would mean moving
# it from the vector unit to the scalar unit, which is slow on a TPU where it is supported at
# all: keep per-block metadata in SMEM.
#
# The mask blocks are int8, one byte per flag, cut with
# `pl.BlockSpec((bq, bk), lambda i, kv: (i, kv))`. The pipeline fetches one for every step,
# also where it is not needed; the next puzzle removes that waste.
#
# ## The `-inf` trap
#
# With a sliding window, a row can meet a block that holds none of its keys *before* it has
# seen any key at all. Take a window of 96 keys, `bq = 64`, `bk = 128`. Query 250 sees keys
# 155..250. Its query block (rows 192..255) also needs key block 0 (rows 192..222 see keys
# 97..127 there), and key block 0 comes first. For row 250 all scores of that block are
# `-inf`, so:
#
# ```
# m_new = max(-inf, -inf) = -inf
# p     = exp(s - m_new) = exp(-inf - (-inf)) = exp(NaN) = NaN
# ```
#
# and the `NaN` stays in `l` and `acc` forever (`NaN * 0` is still `NaN`). The fix is puzzle
# 1's guard, per step: subtract `m_safe = where(m_new == -inf, 0, m_new)` instead of `m_new`.
# Then the masked scores give `exp(-inf - 0) = 0`, the correction `exp(m_old - m_safe)` is
# `exp(-inf) = 0` or a normal factor, and `m` itself still records `-inf` until a real key
# arrives. A row that never sees any key (padding) ends with `l = 0` and `acc = 0`, and the
# final division must use `where(l == 0, 1, l)`, to give 0 rather than `0 / 0`.
#
# (Production kernels often use a large finite negative number instead of `-inf` as the mask
# value, which avoids `NaN` but lets a fully masked row quietly average all of `v`: an answer
# that is finite and wrong. Either way the empty rows need a decision; ours is 0.)
#
# ## Your task
#
# 1. `classify_blocks`: build `block_mask` from a boolean mask with `jnp` (reshape the mask into
#    blocks, then `any` and `all` over each block).
# 2. `fold_block`: puzzle 4's update, made safe for rows whose scores are all `-inf`.
# 3. The kernel body: fold FULL blocks unmasked and PARTIAL blocks masked, skip SKIP blocks, and
#    write the output at the last step, with zeros for rows that saw no key.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
SKIP, PARTIAL, FULL = 0, 1, 2  # block kinds


def classify_blocks(mask, bq, bk):
    # mask: (T, S) bool; returns (T // bq, S // bk) int32 with SKIP, PARTIAL or FULL per block
    T, S = mask.shape
    # YOUR CODE BEGIN
    return jnp.full((T // bq, S // bk), FULL, dtype=jnp.int32)  # every block FULL: replace
    # YOUR CODE END


def fold_block(s, v_ref, m_ref, l_ref, acc_ref):
    # Fold one (bq, bk) block of scores into m, l and acc, where whole rows of s may be -inf.
    # YOUR CODE BEGIN
    # Puzzle 4's update: make it safe for rows whose scores are all -inf.
    m_old = m_ref[...]
    m_new = jnp.maximum(m_old, jnp.max(s, axis=1, keepdims=True))
    corr = jnp.exp(m_old - m_new)
    p = jnp.exp(s - m_new)
    l_ref[...] = l_ref[...] * corr + jnp.sum(p, axis=1, keepdims=True)
    acc_ref[...] = acc_ref[...] * corr + jnp.dot(p, v_ref[...])
    m_ref[...] = m_new
    # YOUR CODE END


def block_sparse_kernel(block_mask_ref, q_ref, k_ref, v_ref, mask_ref, o_ref, m_ref, l_ref,
                        acc_ref):
    # block_mask_ref: (T // bq, S // bk) int32 in SMEM, the whole table
    # q_ref: (bq, H), k_ref and v_ref: (bk, H), mask_ref: (bq, bk) int8, o_ref: (bq, H)
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

    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def block_sparse_attention(q, k, v, mask, bq, bk):
    T, H = q.shape
    S = k.shape[0]
    block_mask = classify_blocks(mask, bq, bk)
    return pl.pallas_call(
        block_sparse_kernel,
        out_shape=jax.ShapeDtypeStruct((T, H), jnp.float32),
        grid=(T // bq, S // bk),
        in_specs=[
            pl.BlockSpec(memory_space=pltpu.SMEM),  # block_mask: the whole table, in SMEM
            pl.BlockSpec((bq, H), lambda i, kv: (i, 0)),
            pl.BlockSpec((bk, H), lambda i, kv: (kv, 0)),
            pl.BlockSpec((bk, H), lambda i, kv: (kv, 0)),
            pl.BlockSpec((bq, bk), lambda i, kv: (i, kv)),  # this step's block of the mask
        ],
        out_specs=pl.BlockSpec((bq, H), lambda i, kv: (i, 0)),
        scratch_shapes=[
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, H), jnp.float32),
        ],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
        interpret=True,
    )(block_mask, q, k, v, mask.astype(jnp.int8))


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


def window_mask(T, window):
    # Query t sees keys t - window + 1 .. t.
    rows = jnp.arange(T)[:, None]
    cols = jnp.arange(T)[None, :]
    return (cols <= rows) & (cols > rows - window)


def documents_mask(lengths):
    # Documents packed into one sequence: causal inside each document, nothing across them.
    doc = jnp.repeat(jnp.arange(len(lengths)), jnp.array(lengths), total_repeat_length=sum(lengths))
    pos = jnp.arange(sum(lengths))
    return (doc[:, None] == doc[None, :]) & (pos[None, :] <= pos[:, None])


# %%
q, k, v = make_qkv(850, T=512, H=64)

# A sliding window of 96 keys; rows meet blocks that hold none of their keys.
mask = window_mask(512, 96)
print("block_mask for the sliding window:")
print(classify_blocks(mask, 64, 128))
check(block_sparse_attention(q, k, v, mask, bq=64, bk=128), attention(q, k, v, mask),
      atol=1e-5, rtol=1e-4, name="sliding window")

# Four documents of different lengths packed into one sequence.
mask = documents_mask([100, 180, 60, 172])
check(block_sparse_attention(q, k, v, mask, bq=64, bk=128), attention(q, k, v, mask),
      atol=1e-5, rtol=1e-4, name="packed documents")

# Causal, with queries 440..511 as padding that sees no key: their output rows must be 0.
mask = window_mask(512, 512) & (jnp.arange(512) < 440)[:, None]
check(block_sparse_attention(q, k, v, mask, bq=64, bk=128), attention(q, k, v, mask),
      atol=1e-5, rtol=1e-4, name="padded queries")

# Square blocks, a wider window and scores in the hundreds.
q, k, v = make_qkv(851, T=512, H=64, score_scale=20.0)
mask = window_mask(512, 200)
check(block_sparse_attention(q, k, v, mask, bq=128, bk=128), attention(q, k, v, mask),
      atol=1e-5, rtol=1e-4, name="window 200, large scores")

# %% [markdown]
# # Tiled attention for one query block
#
# **Goal:** compute the attention output of one block of `bq` query rows while the keys and
# values stream past in blocks of `bk` rows, keeping only `(bq, bk)` scores at a time. This is
# chapter 02's online softmax with one new ingredient: a rescaled output accumulator.
#
# ## The idea behind FlashAttention
#
# The reference builds all of `s` and `p` before it uses them. But each output row only needs
# its *own* row of `p`, and `p @ v` is a sum over the keys, so it can be accumulated block by
# block, exactly like the `k` axis of chapter 01's tiled matmul:
#
# ```
# o = p[:, block 0] @ v[block 0] + p[:, block 1] @ v[block 1] + ...     (then divide by l)
# ```
#
# The catch is the softmax: `p = exp(s - m)` needs the row maximum `m` over *all* keys, which is
# unknown until the last block. Chapter 02 (puzzle 3) solved that for the row sum `l`: keep a
# running maximum, and when it grows from `m_old` to `m_new`, multiply what has been summed so
# far by the correction `exp(m_old - m_new)`. The accumulator `acc = p @ v` so far is a sum of
# terms `exp(s - m_old) * v`, so it is off by the *same* factor per row and takes the same
# correction. One step, for each `(bq, bk)` block of scores `s`:
#
# ```
# m_new = max(m_old, rowmax(s))                 (bq, 1)
# corr  = exp(m_old - m_new)                    (bq, 1), at most 1
# p     = exp(s - m_new)                        (bq, bk)
# l     = l * corr + rowsum(p)                  (bq, 1)
# acc   = acc * corr + p @ v_block              (bq, H)
# ```
#
# and after the last block, `o = acc / l`. Nothing of size `(T, S)` is ever stored: the state
# is `m`, `l` (one number per query row) and `acc` (one output-sized block). This is the heart
# of FlashAttention (Dao et al., 2022): *tile the keys, keep running softmax statistics, and
# rescale the partial output*, so the scores never leave fast memory.
#
# ![one query block in VMEM; key and value blocks stream past and update m, l and acc](../../images/attn_one_block.svg)
#
# ## The TPU picture
#
# The grid is `(S // bk,)`, one step per key/value block. The query block's index map ignores
# the step, so the pipeline fetches it once and it stays in VMEM; the `k` and `v` blocks change
# every step. `m`, `l` and `acc` live in VMEM scratch: they persist from step to step and
# start as garbage, so the first step sets them to the identities (`-inf`, `0`, `0`), and the
# last step writes `acc / l` into the output block. Why divide at the end rather than keep
# `acc` normalised all along? Dividing is exact only once `l` is final; dividing `acc` by a
# partial `l` at every step and then adding new terms to it mixes weights of different
# denominators.
#
# The two matmuls (`q @ k.T` for the scores, `p @ v` for the accumulator) run on the MXU; the
# softmax bookkeeping runs on the vector unit, on data already in VMEM.
#
# ## Your task
#
# The scores block `s` is given. Write the rest of the kernel: initialise the scratch at the
# first step, apply the update above, and write the normalised output at the last step. The
# keys in the checks are built so that the scores grow from block to block, so the running
# maximum moves at almost every step and a missing correction shows.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bq, bk = 32, 64  # query rows per block, key/value rows per block


def one_block_kernel(q_ref, k_ref, v_ref, o_ref, m_ref, l_ref, acc_ref):
    # q_ref: (bq, H), k_ref and v_ref: (bk, H), o_ref: (bq, H)
    # m_ref, l_ref: (bq, 1) and acc_ref: (bq, H), float32 VMEM scratch kept across the grid
    kv = pl.program_id(0)
    scale = q_ref.shape[1] ** -0.5
    # This step's (bq, bk) block of scores: q times k transposed, contracting over H.
    s = jnp.einsum("qh,kh->qk", q_ref[...], k_ref[...]) * scale
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def attention_one_block(q, k, v, q_block):
    S, H = k.shape
    return pl.pallas_call(
        one_block_kernel,
        out_shape=jax.ShapeDtypeStruct((bq, H), jnp.float32),
        grid=(S // bk,),
        in_specs=[
            pl.BlockSpec((bq, H), lambda kv: (q_block, 0)),  # the same block at every step
            pl.BlockSpec((bk, H), lambda kv: (kv, 0)),
            pl.BlockSpec((bk, H), lambda kv: (kv, 0)),
        ],
        out_specs=pl.BlockSpec((bq, H), lambda kv: (0, 0)),
        scratch_shapes=[
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, H), jnp.float32),
        ],
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
    # Queries with a positive mean and keys that drift upwards: later keys score higher, so the
    # running maximum of most rows grows from block to block.
    kq, kk, kv = jax.random.split(jax.random.key(seed), 3)
    q = (jax.random.normal(kq, (T, H)) + 0.5) * score_scale
    k = jax.random.normal(kk, (S, H)) + jnp.linspace(0.0, 1.5, S)[:, None]
    v = jax.random.normal(kv, (S, H))
    return q, k, v


# %%
# Query block 0 against 8 key/value blocks.
q, k, v = make_qkv(810, T=128, S=512, H=64)
check(attention_one_block(q, k, v, q_block=0), attention(q, k, v)[0:bq], atol=1e-5, rtol=1e-4,
      name="block 0, 8 kv blocks")

# The last query block, with scores in the hundreds.
q, k, v = make_qkv(811, T=128, S=256, H=64, score_scale=20.0)
check(attention_one_block(q, k, v, q_block=3), attention(q, k, v)[96:128], atol=1e-5,
      rtol=1e-4, name="block 3, large scores")

# A single key/value block: the first step is also the last.
q, k, v = make_qkv(812, T=64, S=64, H=32)
check(attention_one_block(q, k, v, q_block=1), attention(q, k, v)[32:64], atol=1e-5, rtol=1e-4,
      name="one kv block")

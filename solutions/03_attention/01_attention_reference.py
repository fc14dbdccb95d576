# %% [markdown]
# # Attention in plain jnp: the reference
#
# **Goal:** write scaled dot-product attention, with an optional mask, as ordinary array code.
# Every kernel in this chapter is checked against it, so it has to be right in the corner cases
# too: large scores, and query rows that are not allowed to see any key at all.
#
# ## What attention computes
#
# Each of the `T` queries (rows of `q`, shape `(T, H)`) looks at the `S` keys (rows of `k`, shape
# `(S, H)`), turns its similarity with each of them into a weight, and returns the weighted
# average of the values (rows of `v`, shape `(S, H)`):
#
# ```
# s = q @ k.T / sqrt(H)          (T, S)  scores: one per query and key
# p = softmax(s, axis=1)         (T, S)  weights: each row is positive and sums to 1
# o = p @ v                      (T, H)  each output row is a weighted average of value rows
# ```
#
# The `1 / sqrt(H)` keeps the scores in a sensible range. A dot product of two `H`-long vectors
# with unit-variance entries has variance `H`; without the scale, large heads would push the
# softmax towards a one-hot choice and its gradients towards zero.
#
# ## Masks
#
# A mask is a `(T, S)` boolean array: `mask[t, s]` says whether query `t` may look at key `s`.
# A **causal** mask (`s <= t`) stops a language model from peeking at later tokens; a **local**
# mask limits each query to a window of recent keys; padding masks hide keys that are not real
# tokens. Masked scores are set to `-inf` before the softmax, so their weight `exp(-inf)` is
# exactly 0 and the other weights of the row still sum to 1.
#
# ![scores, weights and output, with the (T, S) arrays that every row needs](../../images/attn_reference.svg)
#
# ## Two corner cases
#
# 1. **Large scores.** `exp` of a score in the hundreds overflows float32. Chapter 02's fix
#    applies row by row: subtract the row maximum `m` before `exp`. The weights do not change,
#    and the largest term becomes `exp(0) = 1`.
# 2. **A row with no visible key.** Padding queries, or a block-sparse pattern that leaves a
#    row empty, give a row of scores that is all `-inf`. Its maximum is `-inf`, and
#    `-inf - (-inf)` is `NaN`: the textbook softmax returns a row of `NaN`, and the `NaN` spreads
#    into every later computation that touches it. This course's convention (the one the
#    kernels will follow too): such a row has no weights, so its output is **0**. Two small
#    guards do it. Where the row maximum is `-inf`, subtract 0 instead (then every `exp` is
#    `exp(-inf) = 0`); and where the row sum `l` is 0, divide by 1 instead.
#
# ## Why this is not how a kernel should do it
#
# Count the memory. `s` and `p` are `(T, S)` arrays. For a sequence of 32k tokens that is a
# billion entries, 4 GiB in float32, *per head*, while `q`, `k`, `v` and `o` are 16 MiB each
# (with `H = 128`). Now count the work per byte. The two matmuls do `4 * T * S * H` operations on inputs and
# outputs of only `4 * T * H` numbers (with `T = S`): thousands of operations per byte for long
# sequences, which keeps the matrix unit busy. The softmax between them does a handful of
# operations per entry of `s`, and each entry crosses HBM at least twice (written, then read
# back): about one operation per byte. A TPU core can do hundreds of operations in the time HBM
# delivers one byte, so a plain implementation is **memory-bound**: it spends most of its time,
# and nearly all of its memory, moving the `(T, S)` intermediates. The rest of the chapter
# removes them.
#
# ## Your task
#
# Write `attention(q, k, v, mask=None)` with `jnp` only: scores, the mask, a shifted
# exponential, the row sums, and the output, following the convention above for empty rows.
# Keep `p` unnormalised and divide the `(T, H)` output by the row sums, not the `(T, S)` weights:
# it is fewer divisions, and the kernels will do the same.

# %%
import jax
import jax.numpy as jnp
from pallas_check import check


# %%
def attention(q, k, v, mask=None):
    # q: (T, H), k and v: (S, H), mask: (T, S) bool or None; returns (T, H)
    # YOUR CODE BEGIN
    s = (q @ k.T) * (q.shape[1] ** -0.5)
    if mask is not None:
        s = jnp.where(mask, s, -jnp.inf)
    m = jnp.max(s, axis=1, keepdims=True)
    m = jnp.where(m == -jnp.inf, 0.0, m)  # a row with no visible key: every exp is then 0
    p = jnp.exp(s - m)
    l = jnp.sum(p, axis=1, keepdims=True)
    return (p @ v) / jnp.where(l == 0.0, 1.0, l)
    # YOUR CODE END


def make_qkv(seed, T, S, H, score_scale=1.0):
    kq, kk, kv = jax.random.split(jax.random.key(seed), 3)
    q = jax.random.normal(kq, (T, H)) * score_scale
    k = jax.random.normal(kk, (S, H))
    v = jax.random.normal(kv, (S, H))
    return q, k, v


def softmax_attention(q, k, v, mask):
    # An independent check: jax.nn.softmax, then zeros for the rows that see no key at all.
    s = jnp.where(mask, (q @ k.T) / jnp.sqrt(jnp.float32(q.shape[1])), -jnp.inf)
    return jnp.where(jnp.any(mask, axis=1, keepdims=True), jax.nn.softmax(s, axis=1) @ v, 0.0)


# %%
# One key: every weight is 1, so each output row is that key's value row.
q, k, v = make_qkv(800, T=8, S=1, H=16)
check(attention(q, k, v), jnp.broadcast_to(v, (8, 16)), atol=1e-6, name="a single key")

# All-zero queries score every key equally: each output row is the mean of the values.
q, k, v = make_qkv(801, T=8, S=64, H=16)
check(attention(jnp.zeros_like(q), k, v), jnp.broadcast_to(jnp.mean(v, axis=0), (8, 16)),
      atol=1e-5, name="uniform weights")

# More queries than keys, scores in the hundreds: an unshifted exp overflows.
q, k, v = make_qkv(802, T=96, S=64, H=32, score_scale=60.0)
full = jnp.ones((96, 64), dtype=bool)
check(attention(q, k, v), softmax_attention(q, k, v, full), atol=1e-5, rtol=1e-5,
      name="large scores")

# A causal mask: query t sees keys 0..t.
q, k, v = make_qkv(803, T=64, S=64, H=32)
causal = jnp.arange(64)[:, None] >= jnp.arange(64)[None, :]
check(attention(q, k, v, causal), softmax_attention(q, k, v, causal), atol=1e-5, rtol=1e-5,
      name="causal mask")

# The last 8 queries are padding and see no key: their output rows must be 0, not NaN.
padded = causal & (jnp.arange(64) < 56)[:, None]
check(attention(q, k, v, padded), softmax_attention(q, k, v, padded), atol=1e-5, rtol=1e-5,
      name="rows with no visible key")

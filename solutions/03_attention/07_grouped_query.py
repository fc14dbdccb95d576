# %% [markdown]
# # Multi-head and grouped-query attention
#
# **Goal:** run flash attention for all heads at once, including the grouped-query layout in
# which several query heads share one key/value head. The kernel is puzzle 3's; the heads are
# one more grid axis, and the sharing lives entirely in an index map.
#
# ## Heads
#
# A transformer layer runs attention several times side by side, once per **head**, each on
# its own projection of the tokens: `q` has shape `(N, T, H)` for `N` query heads. Heads never
# interact inside attention, so they are independent work, exactly like the query blocks: a
# leading grid axis, marked `"parallel"`.
#
# ```
# grid = (N, T // bq, S // bk)                 step (h, i, kv)
# q, o: pl.BlockSpec((None, bq, H), ...)       head h, query block i
# k, v: pl.BlockSpec((None, bk, H), ...)       the kv head that h reads, key/value block kv
# ```
#
# `None` in a block shape squeezes that dimension (chapter 01, puzzle 10): the kernel sees
# `(bq, H)` and `(bk, H)` refs, the same shapes as in puzzle 3, so its body does not change at
# all.
#
# ## Sharing key/value heads
#
# During generation, a model keeps the keys and values of every past token in HBM (the KV
# cache) and reads all of it for every new token; with long contexts that read dominates the
# time per token. **Grouped-query attention** (GQA) keeps `N` query heads but only `K`
# key/value heads, with `K` dividing `N`: each key/value head serves a group of `G = N // K`
# consecutive query heads, so the cache and its reads shrink by `G`. `K = N` is ordinary
# multi-head attention, and `K = 1` (every query head shares one key/value head) is
# **multi-query attention**.
#
# Query head `h` belongs to group `h // G`, so its key/value index map is
# `(h // G, kv, 0)`. With `N = 8` and `K = 2`, query heads 0..3 read key/value head 0 and heads
# 4..7 read head 1. (`h % K` would interleave the groups instead, a different model.)
#
# ![eight query heads in two groups, each group reading one key/value head](../../images/attn_gqa.svg)
#
# ## What the grid order costs
#
# The pipeline reads every `k` and `v` block once per query block, so their HBM traffic grows
# with the number of query blocks, `N * T / bq`, whatever `K` is. With long query sequences
# that is the same as multi-head attention. It hurts most in decoding, where each head has a
# single new query row: a per-head grid then reads the whole KV cache once per *query* head.
# Production kernels handle a whole group in one step instead. Without a causal mask there is
# a neat way to do it here: reshape `q` from `(N, T, H)` to `(K, G * T, H)`, stacking the `G`
# query heads of each group along the rows. That is plain multi-head attention with `K` heads
# and `G * T` queries, and a query block of it can hold rows of several heads of a group, which
# then share every key/value block fetched. The second check runs this layout through your
# wiring too (with `K` in place of `N`, so `G = 1`).
#
# ## Your task
#
# Write the grid and the block specs for `N` query heads and `K` key/value heads. The kernel is
# puzzle 3's, unchanged. The checks cover multi-head (`K = N`), grouped-query and multi-query
# (`K = 1`) attention.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bq, bk = 32, 64  # query rows per block, key/value rows per block


def flash_kernel(q_ref, k_ref, v_ref, o_ref, m_ref, l_ref, acc_ref):
    # Puzzle 3's kernel, unchanged: the head dimension is squeezed out of every block.
    # q_ref: (bq, H), k_ref and v_ref: (bk, H), o_ref: (bq, H)
    kv = pl.program_id(2)
    scale = q_ref.shape[1] ** -0.5
    s = jnp.einsum("qh,kh->qk", q_ref[...], k_ref[...]) * scale

    @pl.when(kv == 0)
    def _init():
        m_ref[...] = jnp.full(m_ref.shape, -jnp.inf, jnp.float32)
        l_ref[...] = jnp.zeros(l_ref.shape, jnp.float32)
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    m_old = m_ref[...]
    m_new = jnp.maximum(m_old, jnp.max(s, axis=1, keepdims=True))
    corr = jnp.exp(m_old - m_new)
    p = jnp.exp(s - m_new)
    l_ref[...] = l_ref[...] * corr + jnp.sum(p, axis=1, keepdims=True)
    acc_ref[...] = acc_ref[...] * corr + jnp.dot(p, v_ref[...])
    m_ref[...] = m_new

    @pl.when(kv == pl.num_programs(2) - 1)
    def _finish():
        o_ref[...] = acc_ref[...] / l_ref[...]


def grouped_attention(q, k, v):
    # q: (N, T, H) query heads; k and v: (K, S, H) key/value heads, with K dividing N
    N, T, H = q.shape
    K, S, _ = k.shape
    G = N // K  # query heads per key/value head
    # YOUR CODE BEGIN
    grid = (N, T // bq, S // bk)
    in_specs = [
        pl.BlockSpec((None, bq, H), lambda h, i, kv: (h, i, 0)),
        pl.BlockSpec((None, bk, H), lambda h, i, kv: (h // G, kv, 0)),
        pl.BlockSpec((None, bk, H), lambda h, i, kv: (h // G, kv, 0)),
    ]
    out_specs = pl.BlockSpec((None, bq, H), lambda h, i, kv: (h, i, 0))
    # YOUR CODE END
    return pl.pallas_call(
        flash_kernel,
        out_shape=jax.ShapeDtypeStruct((N, T, H), jnp.float32),
        grid=grid,
        in_specs=in_specs,
        out_specs=out_specs,
        scratch_shapes=[
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, H), jnp.float32),
        ],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary")),
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


def grouped_reference(q, k, v):
    # One reference attention per query head, each with its group's key/value head.
    N, K = q.shape[0], k.shape[0]
    return jnp.stack([attention(q[h], k[h // (N // K)], v[h // (N // K)]) for h in range(N)])


def make_heads(seed, N, K, T, S, H):
    kq, kk, kv = jax.random.split(jax.random.key(seed), 3)
    q = jax.random.normal(kq, (N, T, H))
    k = jax.random.normal(kk, (K, S, H))
    v = jax.random.normal(kv, (K, S, H))
    return q, k, v


# %%
# Multi-head attention: 4 query heads, 4 key/value heads.
q, k, v = make_heads(870, N=4, K=4, T=64, S=128, H=64)
check(grouped_attention(q, k, v), grouped_reference(q, k, v), atol=1e-5, rtol=1e-4,
      name="4 heads (multi-head)")

# Grouped-query attention: 8 query heads in 2 groups of 4.
q, k, v = make_heads(871, N=8, K=2, T=64, S=128, H=64)
check(grouped_attention(q, k, v), grouped_reference(q, k, v), atol=1e-5, rtol=1e-4,
      name="8 query heads, 2 kv heads")

# The same heads with each group's query heads stacked along the rows: 2 "heads" of 256 rows.
stacked = grouped_attention(q.reshape(2, 4 * 64, 64), k, v)
check(stacked.reshape(8, 64, 64), grouped_reference(q, k, v), atol=1e-5, rtol=1e-4,
      name="groups stacked along the rows")

# Groups of 2, and more queries than keys.
q, k, v = make_heads(872, N=6, K=3, T=128, S=64, H=32)
check(grouped_attention(q, k, v), grouped_reference(q, k, v), atol=1e-5, rtol=1e-4,
      name="6 query heads, 3 kv heads")

# Multi-query attention: every query head shares one key/value head.
q, k, v = make_heads(873, N=4, K=1, T=64, S=128, H=64)
check(grouped_attention(q, k, v), grouped_reference(q, k, v), atol=1e-5, rtol=1e-4,
      name="4 query heads, 1 kv head (multi-query)")

# %% [markdown]
# # Flash attention backward: dQ, dK and dV without the score matrix
#
# **Goal:** the gradients of attention with respect to `q`, `k` and `v`, computed block by
# block like the forward pass, from the output `o`, its gradient `do` and one number per query
# row saved by the forward pass: the logsumexp.
#
# ## The gradient formulas
#
# Write the forward pass with `P` the normalised weights and `scale = 1 / sqrt(H)`:
#
# ```
# S = scale * Q K^T        P = softmax(S) (per row)        O = P V
# ```
#
# Given `dO`, the gradient of the loss with respect to `O`, work backwards one line at a time.
#
# - `O = P V` is a matmul, so `dV = P^T dO` and `dP = dO V^T`.
# - The softmax couples each row: for one row, `dS_j = P_j * (dP_j - sum_k P_k dP_k)`. The sum
#   looks like it needs the whole row of `P`, but it does not:
#   `sum_k P_k dP_k = sum_k P_k (dO . V_k) = dO . (sum_k P_k V_k) = dO . O`.
#   So each row needs a single number, `D = rowsum(dO * O)`, computable from `(T, H)` arrays
#   before any kernel runs. Then `dS = P * (dP - D)`.
# - `S = scale * Q K^T` is a matmul again: `dQ = scale * dS K` and `dK = scale * dS^T Q`.
#
# ## Recomputing `P` from the logsumexp
#
# The forward kernel never stored `P`, and the backward pass must not either. Each block of `P`
# is recomputed from its block of `S` and one saved number per row: the logsumexp
# `lse = m + log(l)`, the forward pass's final running maximum and sum combined. Since
# `P = exp(S - m) / l = exp(S - lse)`, a block of weights is one `exp` away:
#
# ```
# p = exp(s - lse)          (bq, bk), already normalised; masked scores give exp(-inf) = 0
# ```
#
# Recomputing costs one more `q @ k.T` per block, which is cheap next to the HBM traffic of
# storing and reloading `(T, S)` weights. This trade (recompute instead of store) is why flash
# attention's backward pass saves memory as well as time.
#
# ## Two kernels, two reduction axes
#
# `dQ` for a query block sums over all key/value blocks; `dK` and `dV` for a key/value block
# sum over all query blocks. A grid's reduction axis has to be its last one (the output block
# stays resident while it accumulates), and one grid cannot have both axes last. So there are
# two kernels:
#
# - **dQ kernel**, grid `(T // bq, S // bk)`: for each query block, stream the key/value
#   blocks and accumulate `scale * ds @ k` in a `(bq, H)` scratch buffer.
# - **dK/dV kernel**, grid `(S // bk, T // bq)`: for each key/value block, stream the query
#   blocks (with their `do`, `lse` and `D`) and accumulate `scale * ds^T @ q` and `p^T @ do`
#   in two `(bk, H)` scratch buffers.
#
# Both recompute `s`, `p`, `dp` and `ds` for their block, so the score work is done twice.
# GPU kernels often fuse the two and add `dQ` contributions into HBM with atomic adds; JAX's TPU
# flash attention keeps two kernels, as here.
#
# ![the dQ grid streams key/value blocks into a query block; the dK/dV grid streams query blocks into a key/value block](../../images/attn_backward.svg)
#
# `p^T @ do` contracts over the query rows. `jnp.einsum("qk,qh->kh", p, do)` says so directly,
# without materialising a transpose. The forward pass, `D`, and the score blocks (with the
# causal mask when asked) are given.
#
# ## Your task
#
# Write the two kernel bodies: initialise the accumulators at the first step of the reduction
# axis, recompute `p` from `lse`, form `dp` and `ds`, accumulate, and write the gradients at
# the last step. The checks compare against the formulas above in plain `jnp`, with and
# without a causal mask.

# %%
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bq, bk = 64, 64  # query rows per block, key/value rows per block


def block_scores(q_ref, k_ref, i, kv, causal):
    # The (bq, bk) block of scaled scores of query block i and key/value block kv.
    s = jnp.einsum("qh,kh->qk", q_ref[...], k_ref[...]) * (q_ref.shape[1] ** -0.5)
    if causal:  # a Python bool: decided when the kernel is traced
        rows = i * bq + lax.broadcasted_iota(jnp.int32, s.shape, 0)
        cols = kv * bk + lax.broadcasted_iota(jnp.int32, s.shape, 1)
        s = jnp.where(cols <= rows, s, -jnp.inf)
    return s


def dq_kernel(q_ref, k_ref, v_ref, do_ref, lse_ref, d_ref, dq_ref, dq_acc_ref, *, causal):
    # q_ref, do_ref: (bq, H); k_ref, v_ref: (bk, H); lse_ref, d_ref: (bq, 1)
    # dq_ref: (bq, H) output; dq_acc_ref: (bq, H) float32 scratch
    i = pl.program_id(0)
    kv = pl.program_id(1)
    scale = q_ref.shape[1] ** -0.5
    s = block_scores(q_ref, k_ref, i, kv, causal)
    # YOUR CODE BEGIN
    @pl.when(kv == 0)
    def _init():
        dq_acc_ref[...] = jnp.zeros(dq_acc_ref.shape, jnp.float32)

    p = jnp.exp(s - lse_ref[...])
    dp = jnp.einsum("qh,kh->qk", do_ref[...], v_ref[...])
    ds = p * (dp - d_ref[...])
    dq_acc_ref[...] += scale * jnp.dot(ds, k_ref[...])

    @pl.when(kv == pl.num_programs(1) - 1)
    def _finish():
        dq_ref[...] = dq_acc_ref[...]
    # YOUR CODE END


def dkv_kernel(q_ref, k_ref, v_ref, do_ref, lse_ref, d_ref, dk_ref, dv_ref, dk_acc_ref,
               dv_acc_ref, *, causal):
    # The grid is (S // bk, T // bq): key/value block kv outer, query block i inner.
    # dk_ref, dv_ref: (bk, H) outputs; dk_acc_ref, dv_acc_ref: (bk, H) float32 scratch
    kv = pl.program_id(0)
    i = pl.program_id(1)
    scale = q_ref.shape[1] ** -0.5
    s = block_scores(q_ref, k_ref, i, kv, causal)
    # YOUR CODE BEGIN
    @pl.when(i == 0)
    def _init():
        dk_acc_ref[...] = jnp.zeros(dk_acc_ref.shape, jnp.float32)
        dv_acc_ref[...] = jnp.zeros(dv_acc_ref.shape, jnp.float32)

    p = jnp.exp(s - lse_ref[...])
    dv_acc_ref[...] += jnp.einsum("qk,qh->kh", p, do_ref[...])
    dp = jnp.einsum("qh,kh->qk", do_ref[...], v_ref[...])
    ds = p * (dp - d_ref[...])
    dk_acc_ref[...] += scale * jnp.einsum("qk,qh->kh", ds, q_ref[...])

    @pl.when(i == pl.num_programs(1) - 1)
    def _finish():
        dk_ref[...] = dk_acc_ref[...]
        dv_ref[...] = dv_acc_ref[...]
    # YOUR CODE END


def flash_backward(q, k, v, o, lse, do, causal):
    T, H = q.shape
    S = k.shape[0]
    d = jnp.sum(do * o, axis=1, keepdims=True)  # D = rowsum(dO * O), (T, 1)
    q_rows = pl.BlockSpec((bq, H), lambda i, kv: (i, 0))
    q_stats = pl.BlockSpec((bq, 1), lambda i, kv: (i, 0))
    kv_rows = pl.BlockSpec((bk, H), lambda i, kv: (kv, 0))
    dq = pl.pallas_call(
        functools.partial(dq_kernel, causal=causal),
        out_shape=jax.ShapeDtypeStruct((T, H), jnp.float32),
        grid=(T // bq, S // bk),
        in_specs=[q_rows, kv_rows, kv_rows, q_rows, q_stats, q_stats],
        out_specs=q_rows,
        scratch_shapes=[pltpu.VMEM((bq, H), jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
        interpret=True,
    )(q, k, v, do, lse, d)
    # Swapped grid: the index maps take (kv, i).
    q_rows_t = pl.BlockSpec((bq, H), lambda kv, i: (i, 0))
    q_stats_t = pl.BlockSpec((bq, 1), lambda kv, i: (i, 0))
    kv_rows_t = pl.BlockSpec((bk, H), lambda kv, i: (kv, 0))
    dk, dv = pl.pallas_call(
        functools.partial(dkv_kernel, causal=causal),
        out_shape=(jax.ShapeDtypeStruct((S, H), jnp.float32),) * 2,
        grid=(S // bk, T // bq),
        in_specs=[q_rows_t, kv_rows_t, kv_rows_t, q_rows_t, q_stats_t, q_stats_t],
        out_specs=(kv_rows_t, kv_rows_t),
        scratch_shapes=[pltpu.VMEM((bk, H), jnp.float32)] * 2,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
        interpret=True,
    )(q, k, v, do, lse, d)
    return dq, dk, dv


# The forward pass: puzzle 3's kernel, plus the causal mask and the saved logsumexp.
def forward_kernel(q_ref, k_ref, v_ref, o_ref, lse_ref, m_ref, l_ref, acc_ref, *, causal):
    i = pl.program_id(0)
    kv = pl.program_id(1)
    s = block_scores(q_ref, k_ref, i, kv, causal)

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

    @pl.when(kv == pl.num_programs(1) - 1)
    def _finish():
        o_ref[...] = acc_ref[...] / l_ref[...]
        lse_ref[...] = m_ref[...] + jnp.log(l_ref[...])


def flash_forward(q, k, v, causal):
    T, H = q.shape
    S = k.shape[0]
    q_rows = pl.BlockSpec((bq, H), lambda i, kv: (i, 0))
    kv_rows = pl.BlockSpec((bk, H), lambda i, kv: (kv, 0))
    return pl.pallas_call(
        functools.partial(forward_kernel, causal=causal),
        out_shape=(jax.ShapeDtypeStruct((T, H), jnp.float32),
                   jax.ShapeDtypeStruct((T, 1), jnp.float32)),
        grid=(T // bq, S // bk),
        in_specs=[q_rows, kv_rows, kv_rows],
        out_specs=(q_rows, pl.BlockSpec((bq, 1), lambda i, kv: (i, 0))),
        scratch_shapes=[
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, 1), jnp.float32),
            pltpu.VMEM((bq, H), jnp.float32),
        ],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
        interpret=True,
    )(q, k, v)


def reference_grads(q, k, v, do, causal):
    # The formulas above, written out with whole (T, S) arrays. No autodiff.
    T, H = q.shape
    S = k.shape[0]
    scale = H ** -0.5
    s = (q @ k.T) * scale
    if causal:
        s = jnp.where(jnp.arange(S)[None, :] <= jnp.arange(T)[:, None], s, -jnp.inf)
    p = jnp.exp(s - jnp.max(s, axis=1, keepdims=True))
    p = p / jnp.sum(p, axis=1, keepdims=True)
    o = p @ v
    dp = do @ v.T
    d = jnp.sum(do * o, axis=1, keepdims=True)
    ds = p * (dp - d)
    return ds @ k * scale, ds.T @ q * scale, p.T @ do


def make_inputs(seed, T, S, H, score_scale=1.0):
    kq, kk, kv, kd = jax.random.split(jax.random.key(seed), 4)
    q = jax.random.normal(kq, (T, H)) * score_scale
    k = jax.random.normal(kk, (S, H))
    v = jax.random.normal(kv, (S, H))
    do = jax.random.normal(kd, (T, H))
    return q, k, v, do


def run_backward(q, k, v, do, causal):
    o, lse = flash_forward(q, k, v, causal)
    return flash_backward(q, k, v, o, lse, do, causal)


# %%
# Self-attention, no mask: a (4, 4) grid for both kernels.
q, k, v, do = make_inputs(880, T=256, S=256, H=64)
check(run_backward(q, k, v, do, causal=False), reference_grads(q, k, v, do, causal=False),
      atol=1e-4, rtol=1e-4, name="dq, dk, dv")

# Causal: the masked weights must contribute nothing to any gradient.
check(run_backward(q, k, v, do, causal=True), reference_grads(q, k, v, do, causal=True),
      atol=1e-4, rtol=1e-4, name="causal")

# Cross-attention (fewer queries than keys), with larger scores.
q, k, v, do = make_inputs(881, T=128, S=320, H=64, score_scale=3.0)
check(run_backward(q, k, v, do, causal=False), reference_grads(q, k, v, do, causal=False),
      atol=1e-4, rtol=1e-4, name="T 128, S 320, larger scores")

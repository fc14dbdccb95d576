# %% [markdown]
# # Fused softmax cross-entropy over vocabulary tiles
#
# **Goal:** compute a language model's per-token loss and logsumexp straight from the hidden
# states and the output projection, one vocabulary tile at a time, without ever storing the
# logits. An optional z-loss term comes almost for free.
#
# ## The loss, and why the logits are a problem
#
# A language model ends with a projection: hidden states `h` of shape `(T, D)` (one row per
# token) times an output matrix `w` of shape `(D, V)` give the logits, shape `(T, V)`, one
# score per token and vocabulary entry. The training loss of token `t` with correct next token
# `y[t]` is the cross-entropy:
#
# ```
# loss[t] = -log softmax(logits[t])[y[t]]
#         = logsumexp(logits[t]) - logits[t, y[t]]
# logsumexp(z) = log(sum(exp(z))) = m + log(l)     with m = max(z), l = sum(exp(z - m))
# ```
#
# So the loss needs just three numbers per token: the running maximum `m`, the running sum `l`
# (the online softmax statistics you already know) and the logit of the correct token.
# The probabilities themselves are never needed.
#
# The logits are huge. With 8192 tokens per device and a 256k-entry vocabulary, float32 logits
# take 8 GiB. Writing them to HBM and reading them back costs far more time than the loss
# itself, and training would also keep that much again for their gradient. A **fused** kernel
# computes each `(bt, bv)` tile of the logits in VMEM with a matmul, folds it into the running
# statistics, and throws it away. HBM sees `h`, `w` and two numbers per token.
#
# ## The grid
#
# The grid is `(T // bt, V // bv)`: token blocks, then vocabulary tiles.
#
# - The vocabulary axis comes **last**, because it is the reduction: the steps that update one
#   token block's statistics must be consecutive, like the `k` axis of chapter 01's matmul.
#   It is marked `"arbitrary"`; the token axis is `"parallel"`.
# - The `h` block `(bt, D)` has the same block index for every vocabulary step of a token
#   block, so the pipeline fetches it once and keeps it. The `w` tiles `(D, bv)` stream past.
# - The statistics live in three VMEM scratch buffers of shape `(bt, 1)`: `m`, `l` and
#   `picked` (the correct token's logit). Scratch persists across the whole grid, so it must be
#   reset at the first vocabulary tile **of every token block**, `v == 0`, not just at the
#   first grid step. Identities again: `-inf` for `m`, `0` for `l` and for `picked`.
# - The outputs `loss` and `lse` are `(bt, 1)` blocks indexed by the token block only. They are
#   written once, at the last vocabulary tile.
#
# ![token blocks by vocabulary tiles: h stays, w streams, the logits tile lives only in VMEM](../../images/softmax_cross_entropy_grid.svg)
#
# ![the solution step by step: h stays for a token block while the w tiles stream (drawn by `pallas-puzzles diagram 2.5 --all-steps`)](../../images/softmax_cross_entropy_steps.svg)
#
# ## Picking the correct token's logit
#
# The label `y[t]` falls in exactly one vocabulary tile. The kernel knows the global vocabulary
# index of every column of its tile (`cols`, given below), so compare it with the labels, a
# `(bt, 1)` column broadcast across the tile:
#
# ```
# picked += sum over the tile's columns of where(cols == labels, logits, 0)
# ```
#
# In every tile but one that adds 0, and in the tile holding the label it adds exactly that
# logit. No gather, no branch. Gathers are awkward on the TPU's vector unit, and masked sums
# like this one are cheap.
#
# ## z-loss
#
# Large models are often trained with an extra term `z_loss_weight * lse**2` per token (PaLM
# used a weight of 1e-4). It pulls `logsumexp` towards 0, which keeps the logits from drifting
# to large values; PaLM's authors found it made training more stable. The kernel has `lse`
# anyway, so the term costs two multiplies. The weight is a Python float bound with
# `functools.partial`, so it is a constant of the kernel.
#
# ## Why return `lse` too
#
# The gradient of the loss with respect to the logits is
# `softmax(logits) - one_hot(y) = exp(logits - lse) - one_hot(y)` (with z-loss, the softmax
# part is scaled by `1 + 2 * z_loss_weight * lse`). A backward kernel can recompute each logits
# tile and turn it into gradient contributions using the saved `lse`, again without the full
# logits ever existing. So the forward kernel saves `lse`, one float per token.
#
# ## Your task
#
# The kernel is given this step's logits tile and the column indices. Write the rest: reset the
# three statistics at `v == 0`, fold the tile into them (the online softmax update from the
# previous puzzles, per row, plus `picked`), and at the last vocabulary tile write
# `lse = m + log(l)` and `loss = lse - picked + z_loss_weight * lse * lse`.

# %%
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bt = 8  # tokens per block
bv = 256  # vocabulary entries per tile


def cross_entropy_kernel(h_ref, w_ref, labels_ref, loss_ref, lse_ref, m_ref, l_ref, picked_ref,
                         *, z_loss_weight):
    # h_ref: (bt, D) hidden states of this token block; w_ref: (D, bv) one vocabulary tile
    # labels_ref: (bt, 1) int32 correct token ids; loss_ref, lse_ref: (bt, 1) outputs
    # m_ref, l_ref, picked_ref: (bt, 1) float32 VMEM scratch, kept across the grid
    v = pl.program_id(1)
    # This step's (bt, bv) tile of the logits: it exists only here, in VMEM.
    logits = jnp.dot(h_ref[...], w_ref[...], preferred_element_type=jnp.float32)
    # The global vocabulary index of every column of the tile.
    cols = v * bv + lax.broadcasted_iota(jnp.int32, logits.shape, 1)
    # YOUR CODE BEGIN
    @pl.when(v == 0)
    def _init():
        m_ref[...] = jnp.full(m_ref.shape, -jnp.inf, jnp.float32)
        l_ref[...] = jnp.zeros(l_ref.shape, jnp.float32)
        picked_ref[...] = jnp.zeros(picked_ref.shape, jnp.float32)

    picked_ref[...] += jnp.sum(jnp.where(cols == labels_ref[...], logits, 0.0), axis=1,
                               keepdims=True)
    m_old = m_ref[...]
    m_new = jnp.maximum(m_old, jnp.max(logits, axis=1, keepdims=True))
    l_ref[...] = (l_ref[...] * jnp.exp(m_old - m_new)
                  + jnp.sum(jnp.exp(logits - m_new), axis=1, keepdims=True))
    m_ref[...] = m_new

    @pl.when(v == pl.num_programs(1) - 1)
    def _finish():
        lse = m_ref[...] + jnp.log(l_ref[...])
        lse_ref[...] = lse
        loss_ref[...] = lse - picked_ref[...] + z_loss_weight * lse * lse
    # YOUR CODE END


def fused_cross_entropy(h, w, labels, z_loss_weight=0.0):
    T, D = h.shape
    V = w.shape[1]
    per_token = pl.BlockSpec((bt, 1), lambda i, v: (i, 0))
    column = jax.ShapeDtypeStruct((T, 1), jnp.float32)
    loss, lse = pl.pallas_call(
        functools.partial(cross_entropy_kernel, z_loss_weight=z_loss_weight),
        out_shape=(column, column),
        grid=(T // bt, V // bv),
        in_specs=[pl.BlockSpec((bt, D), lambda i, v: (i, 0)),
                  pl.BlockSpec((D, bv), lambda i, v: (0, v)),
                  per_token],
        out_specs=(per_token, per_token),
        scratch_shapes=[pltpu.VMEM((bt, 1), jnp.float32)] * 3,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
        interpret=True,
    )(h, w, labels[:, None])
    return loss, lse


def reference(h, w, labels, z_loss_weight=0.0):
    logits = h @ w  # (T, V): exactly the array the kernel never builds
    lse = jax.nn.logsumexp(logits, axis=1)
    picked = logits[jnp.arange(logits.shape[0]), labels]
    loss = lse - picked + z_loss_weight * lse * lse
    return loss[:, None], lse[:, None]  # (T, 1) columns, like the kernel's outputs


def make_inputs(seed, T, D, V, logit_scale):
    kh, kw, ky = jax.random.split(jax.random.key(seed), 3)
    h = jax.random.normal(kh, (T, D))
    w = jax.random.normal(kw, (D, V)) * (logit_scale / D**0.5)
    labels = jax.random.randint(ky, (T,), 0, V)
    return h, w, labels


# %%
# 4 token blocks by 4 vocabulary tiles.
h, w, labels = make_inputs(500, T=32, D=64, V=1024, logit_scale=4.0)
check(fused_cross_entropy(h, w, labels), reference(h, w, labels), atol=1e-4, rtol=1e-5,
      name="cross-entropy")

# The same inputs with PaLM's z-loss weight.
check(fused_cross_entropy(h, w, labels, z_loss_weight=1e-4),
      reference(h, w, labels, z_loss_weight=1e-4), atol=1e-4, rtol=1e-5, name="with z-loss")

# A second shape (2 token blocks by 3 vocabulary tiles) with logits in the hundreds.
h, w, labels = make_inputs(501, T=16, D=32, V=768, logit_scale=60.0)
check(fused_cross_entropy(h, w, labels, z_loss_weight=1e-4),
      reference(h, w, labels, z_loss_weight=1e-4), atol=1e-4, rtol=1e-5, name="large logits")

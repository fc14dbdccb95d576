# %% [markdown]
# # The backward kernels: gradients recomputed from the logsumexp
#
# **Goal:** the gradients of the loss with respect to `h` and `w`, computed tile by tile from
# the inputs and the saved logsumexp, so that the backward pass never stores the `(T, V)`
# logits or their gradient either.
#
# ## The gradient of one logit
#
# Take one token `t` and write `p[t, j] = exp(logits[t, j] - lse[t])` for its softmax. Two
# facts from calculus:
#
# ```
# d lse[t] / d logits[t, j]   = p[t, j]
# d loss[t] / d logits[t, j]  = p[t, j] * (1 + 2 * z_loss_weight * lse[t]) - onehot[t, j]
# ```
#
# where `onehot[t, j]` is 1 at the label `j = y[t]` and 0 elsewhere (the z-loss term
# `z_loss_weight * lse**2` contributes `2 * z_loss_weight * lse * p`). The function returns
# *two* outputs, so its backward pass receives two cotangents, one per output and per token:
# `g_loss[t]` (how the final objective changes with `loss[t]`; `1 / T` for a mean loss) and
# `g_lse[t]` (usually 0, unless something downstream uses `lse`, such as a penalty on it).
# The chain rule adds both paths:
#
# ```
# dlogits[t, j] = g_loss[t] * (p[t, j] * (1 + 2 z lse[t]) - onehot[t, j]) + g_lse[t] * p[t, j]
#               = p[t, j] * coef[t] - onehot[t, j] * g_loss[t]
# coef[t]       = g_loss[t] * (1 + 2 z lse[t]) + g_lse[t]
# ```
#
# `coef` is one number per token, computed by the wrapper from `T`-long vectors. That is the
# z-loss staying outside the kernel again: the kernels only ever see `coef` and `g_loss`.
# Finally, `logits = h @ w`, so
#
# ```
# dh = dlogits @ w.T     (T, D): each token's row sums over the whole vocabulary
# dw = h.T @ dlogits     (D, V): each vocabulary column sums over all the tokens
# ```
#
# ## Recompute, do not store
#
# A tile of `dlogits` needs the tile of `p`, and `p = exp(logits - lse)` needs only the
# logits tile, one matmul `h_block @ w_tile` away, and the saved `lse`. No running maximum, no
# running sum: `lse` already normalises. So each backward step recomputes its logits tile,
# exactly as the forward pass computed it, and turns it into a `dlogits` tile in VMEM. This
# is the trade flash attention's backward pass makes too: one more matmul per tile instead of
# writing `T * V` numbers to HBM and reading them back.
#
# ## Two reductions, two kernels
#
# `dh` sums over vocabulary tiles and `dw` sums over token blocks. A grid accumulates into a
# resident output block only along its **last** axis, so one grid cannot serve both:
#
# - **dh kernel**, grid `(T // bt, V // bv)`, vocabulary last: for each token block, stream the
#   `w` tiles and accumulate `dlogits @ w_tile.T` in a `(bt, D)` scratch buffer.
# - **dw kernel**, grid `(V // bv, T // bt)`, tokens last: for each vocabulary tile, stream the
#   token blocks and accumulate `h_block.T @ dlogits` in a `(D, bv)` scratch buffer.
#
# Could one call do both? With the `(T // bt, V // bv)` grid, every `dw` tile is visited once
# per token block, far apart in the grid order. A TPU writes an output block back to HBM when
# its block index changes and never reads it again, so those visits could not accumulate.
# Short of writing `dlogits` to HBM (the very thing to avoid), the only way out would be to
# keep all of `dw`, `(D, V)`, resident in VMEM for the whole grid: 4 GiB in float32 for
# `D = 4096`, `V = 256k`. Two calls, each recomputing the logits, is the design that scales.
# The price is four `2 T D V`-FLOP matmuls in the backward pass against one in the forward.
#
# ![the dh kernel, step by step: each token block stays while the w tiles stream past, and its dh block is written once, after the last tile (drawn by `pallas-puzzles diagram 6.3 --call 1 --all-steps`)](../../images/production_dh_steps.svg)
#
# ![the dw kernel, step by step: the same tiles in the other order, each w tile stays while the token blocks stream past (drawn by `pallas-puzzles diagram 6.3 --call 2 --all-steps`)](../../images/production_dw_steps.svg)
#
# Write both contractions as `einsum`s and let Mosaic map them onto the MXU, without
# transposing anything yourself: `jnp.einsum("tv,dv->td", dlogits, w)` contracts the last
# axes of both (`dlogits @ w.T`), and `jnp.einsum("td,tv->dv", h, dlogits)` contracts the
# first axes (`h.T @ dlogits`). Cast
# `dlogits` to the input dtype before the matmul: for bfloat16 inputs the MXU then runs at
# bfloat16 speed, still accumulating in float32 (`preferred_element_type`). For float32 inputs
# the cast does nothing.
#
# ## Your task
#
# 1. `dlogits_tile`: turn the recomputed logits tile into the `dlogits` tile.
# 2. The two kernel bodies: zero the float32 accumulator at the first step of the reduction
#    axis (axis 1 in both grids), accumulate, and store it (cast to the output dtype) at the
#    last step.

# %%
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bt = 16  # tokens per block
bv = 256  # vocabulary entries per tile


def dlogits_tile(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, v):
    # The (bt, bv) float32 tile of dlogits for vocabulary tile v.
    # labels_ref, lse_ref, coef_ref, g_loss_ref: (bt, 1) columns of this token block.
    logits = jnp.dot(h_ref[...], w_ref[...], preferred_element_type=jnp.float32)
    cols = v * w_ref.shape[1] + lax.broadcasted_iota(jnp.int32, logits.shape, 1)
    # YOUR CODE BEGIN
    return jnp.zeros_like(logits)  # not derived yet
    # YOUR CODE END


def dh_kernel(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, dh_ref, acc_ref):
    # Grid (T // bt, V // bv). dh_ref: (bt, D) output; acc_ref: (bt, D) float32 scratch.
    v = pl.program_id(1)
    dlogits = dlogits_tile(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, v)
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def dw_kernel(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, dw_ref, acc_ref):
    # Grid (V // bv, T // bt): vocabulary tile v outer, token block i inner.
    # dw_ref: (D, bv) output; acc_ref: (D, bv) float32 scratch.
    v = pl.program_id(0)
    i = pl.program_id(1)
    dlogits = dlogits_tile(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, v)
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def backward(h, w, labels, lse, g_loss, g_lse, z_loss_weight):
    # Returns dh (T, D) and dw (D, V), in the dtypes of h and w.
    T, D = h.shape
    V = w.shape[1]
    coef = g_loss * (1.0 + 2.0 * z_loss_weight * lse) + g_lse  # the z-loss, outside the kernels
    columns = [labels[:, None], lse[:, None], coef[:, None], g_loss[:, None]]
    params = pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary"))
    column = pl.BlockSpec((bt, 1), lambda i, v: (i, 0))
    dh = pl.pallas_call(
        dh_kernel,
        out_shape=jax.ShapeDtypeStruct(h.shape, h.dtype),
        grid=(T // bt, V // bv),
        in_specs=[pl.BlockSpec((bt, D), lambda i, v: (i, 0)),
                  pl.BlockSpec((D, bv), lambda i, v: (0, v))] + [column] * 4,
        out_specs=pl.BlockSpec((bt, D), lambda i, v: (i, 0)),
        scratch_shapes=[pltpu.VMEM((bt, D), jnp.float32)],
        compiler_params=params,
        interpret=True,
    )(h, w, *columns)
    # Swapped grid: the index maps take (v, i).
    column_t = pl.BlockSpec((bt, 1), lambda v, i: (i, 0))
    dw = pl.pallas_call(
        dw_kernel,
        out_shape=jax.ShapeDtypeStruct(w.shape, w.dtype),
        grid=(V // bv, T // bt),
        in_specs=[pl.BlockSpec((bt, D), lambda v, i: (i, 0)),
                  pl.BlockSpec((D, bv), lambda v, i: (0, v))] + [column_t] * 4,
        out_specs=pl.BlockSpec((D, bv), lambda v, i: (0, v)),
        scratch_shapes=[pltpu.VMEM((D, bv), jnp.float32)],
        compiler_params=params,
        interpret=True,
    )(h, w, *columns)
    return dh, dw


def reference_grads(h, w, labels, g_loss, g_lse, z_loss_weight):
    # The formulas above with whole (T, V) arrays. No autodiff (puzzle 4 brings that in).
    logits = jnp.dot(h, w, preferred_element_type=jnp.float32)
    lse = jax.nn.logsumexp(logits, axis=1)
    p = jnp.exp(logits - lse[:, None])
    coef = g_loss * (1.0 + 2.0 * z_loss_weight * lse) + g_lse
    dlogits = p * coef[:, None] - jax.nn.one_hot(labels, w.shape[1]) * g_loss[:, None]
    return dlogits @ w.T, h.T @ dlogits


def make_inputs(seed, T, D, V, logit_scale=4.0):
    kh, kw, ky, kg, kl = jax.random.split(jax.random.key(seed), 5)
    h = jax.random.normal(kh, (T, D))
    w = jax.random.normal(kw, (D, V)) * (logit_scale / D**0.5)
    labels = jax.random.randint(ky, (T,), 0, V)
    g_loss = jax.random.uniform(kg, (T,))  # cotangents of loss and of lse
    g_lse = jax.random.normal(kl, (T,)) * 0.1
    lse = jax.nn.logsumexp(h @ w, axis=1)  # what the forward kernel saved
    return h, w, labels, lse, g_loss, g_lse


# %%
# dh: a (4, 4) grid; dw: a (4, 4) grid.
h, w, labels, lse, g_loss, g_lse = make_inputs(620, T=64, D=128, V=1024)
check(backward(h, w, labels, lse, g_loss, g_lse, 0.0),
      reference_grads(h, w, labels, g_loss, g_lse, 0.0), atol=1e-4, rtol=1e-4, name="dh, dw")

# Only the lse cotangent: the loss path contributes nothing, the onehot term vanishes.
check(backward(h, w, labels, lse, jnp.zeros_like(g_loss), g_lse, 0.0),
      reference_grads(h, w, labels, jnp.zeros_like(g_loss), g_lse, 0.0), atol=1e-4, rtol=1e-4,
      name="lse cotangent only")

# z-loss and a different shape: dh on a (2, 8) grid, dw on an (8, 2) grid.
h, w, labels, lse, g_loss, g_lse = make_inputs(621, T=32, D=64, V=2048, logit_scale=8.0)
check(backward(h, w, labels, lse, g_loss, g_lse, 1e-2),
      reference_grads(h, w, labels, g_loss, g_lse, 1e-2), atol=1e-4, rtol=1e-4,
      name="with z-loss")

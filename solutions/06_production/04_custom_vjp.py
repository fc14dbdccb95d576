# %% [markdown]
# # custom_vjp: wiring both cotangents
#
# **Goal:** make the kernels of puzzles 2 and 3 one differentiable function, so that
# `jax.grad` of any training objective built on it runs the forward kernel going forward and
# the backward kernels going back, and prove the gradients right against autodiff of the
# reference.
#
# ## Why autodiff cannot do this alone
#
# `jax.grad` differentiates by transforming every primitive it meets. A `pallas_call` is one
# opaque primitive to it. Pallas gives it a forward-mode rule (it differentiates the kernel
# body into a second kernel that carries tangents), but no rule to run it backwards, so reverse
# mode stops at the call with a `ValueError: Linearization failed to produce known values for
# all output primals`, under real JAX and in the emulator alike. Even if the rule existed, a
# mechanically derived backward pass would know nothing of the design of puzzle 3 (recompute
# from `lse`, two reductions). The kernel author supplies the gradient, with `jax.custom_vjp`.
#
# ## The three pieces
#
# ```python
# @functools.partial(jax.custom_vjp, nondiff_argnums=(3,))
# def cross_entropy(h, w, labels, z_loss_weight): ...        # the primal: outputs only
#
# def cross_entropy_fwd(h, w, labels, z_loss_weight):         # same arguments
#     return outputs, residuals                               # residuals: what bwd needs
#
# def cross_entropy_bwd(z_loss_weight, residuals, cotangents):
#     return dh, dw, dlabels                                  # one per differentiable input
#
# cross_entropy.defvjp(cross_entropy_fwd, cross_entropy_bwd)
# ```
#
# - The **primal** runs when nothing is being differentiated (evaluation, inference).
# - **fwd** runs instead under `jax.grad` or `jax.vjp`. It returns the same outputs, plus the
#   **residuals**: everything `bwd` will need. Choosing them is the memory design of the
#   backward pass. Here they are `h`, `w`, `labels` (the inputs, which the caller keeps alive
#   anyway) and `lse`, `T` floats. Not the logits.
# - **bwd** receives the residuals and the **cotangents**, one per output, in the outputs'
#   structure: `(g_loss, g_lse)`. It returns one gradient per input that is not in
#   `nondiff_argnums`, in order.
#
# `z_loss_weight` is a Python float that configures the function rather than a value to
# differentiate, so it is declared in `nondiff_argnums`. JAX passes it to `bwd` first. The
# labels are integers: they have no gradient, and `bwd` returns `None` in their place, which
# JAX reads as "zero".
#
# ## Both cotangents, always
#
# The function has two outputs, so every backward pass receives two cotangents. When the
# objective uses only `loss`, `g_lse` arrives as zeros. But the moment anything downstream
# touches `lse` (an auxiliary penalty on it, a second loss term written outside this function,
# a distillation objective) it carries real gradient. A `bwd` that ignores it still passes a
# test that uses only `loss`, and then trains the wrong model in production. Puzzle 3's
# `backward` already takes both. Wiring them through is this puzzle's job. The checks use the
# objective `loss.sum() + 0.1 * lse.sum()`, so that both paths count.
#
# ## Checking a gradient
#
# The strongest cheap test is a comparison with autodiff of the readable reference, on shapes
# small enough for it: `jax.grad` of the same objective, once with the kernel function and
# once with `reference`, with respect to `h` and `w`. Two more habits of kernel teams: check
# with `jax.vjp` and *random* cotangents (a gradient that is right for one particular `g` can
# still be wrong), and check a case where one cotangent is zero and the other not.
#
# ## Your task
#
# Write `cross_entropy_fwd` (outputs and residuals) and `cross_entropy_bwd` (unpack the
# residuals and both cotangents, call `backward`, return the three gradients). The kernels,
# `forward` and `backward` are those of puzzles 2 and 3.

# %%
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
# From puzzles 2 and 3: the forward kernel, the backward kernels and their wrappers.
bt = 16  # tokens per block
bv = 256  # vocabulary entries per tile


def forward_kernel(h_ref, w_ref, labels_ref, ce_ref, lse_ref, m_ref, l_ref, picked_ref):
    # h_ref: (bt, D); w_ref: (D, bv); labels_ref: (bt, 1) int32
    # ce_ref, lse_ref: (bt, 1) float32 outputs; m_ref, l_ref, picked_ref: (bt, 1) scratch
    v = pl.program_id(1)
    logits = jnp.dot(h_ref[...], w_ref[...], preferred_element_type=jnp.float32)
    cols = v * w_ref.shape[1] + lax.broadcasted_iota(jnp.int32, logits.shape, 1)
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
        ce_ref[...] = lse - picked_ref[...]


def forward(h, w, labels):
    # The kernel call: returns ce (T,) and lse (T,), both float32.
    T, D = h.shape
    V = w.shape[1]
    column = pl.BlockSpec((bt, 1), lambda i, v: (i, 0))
    out = jax.ShapeDtypeStruct((T, 1), jnp.float32)
    ce, lse = pl.pallas_call(
        forward_kernel,
        out_shape=(out, out),
        grid=(T // bt, V // bv),
        in_specs=[pl.BlockSpec((bt, D), lambda i, v: (i, 0)),
                  pl.BlockSpec((D, bv), lambda i, v: (0, v)),
                  column],
        out_specs=(column, column),
        scratch_shapes=[pltpu.VMEM((bt, 1), jnp.float32)] * 3,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
        interpret=True,
    )(h, w, labels[:, None])
    return ce[:, 0], lse[:, 0]



def dlogits_tile(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, v):
    # The (bt, bv) float32 tile of dlogits for vocabulary tile v.
    # labels_ref, lse_ref, coef_ref, g_loss_ref: (bt, 1) columns of this token block.
    logits = jnp.dot(h_ref[...], w_ref[...], preferred_element_type=jnp.float32)
    cols = v * w_ref.shape[1] + lax.broadcasted_iota(jnp.int32, logits.shape, 1)
    p = jnp.exp(logits - lse_ref[...])
    return p * coef_ref[...] - jnp.where(cols == labels_ref[...], g_loss_ref[...], 0.0)


def dh_kernel(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, dh_ref, acc_ref):
    # Grid (T // bt, V // bv). dh_ref: (bt, D) output; acc_ref: (bt, D) float32 scratch.
    v = pl.program_id(1)
    dlogits = dlogits_tile(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, v)
    @pl.when(v == 0)
    def _init():
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    acc_ref[...] += jnp.einsum("tv,dv->td", dlogits.astype(w_ref.dtype), w_ref[...],
                               preferred_element_type=jnp.float32)

    @pl.when(v == pl.num_programs(1) - 1)
    def _finish():
        dh_ref[...] = acc_ref[...].astype(dh_ref.dtype)


def dw_kernel(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, dw_ref, acc_ref):
    # Grid (V // bv, T // bt): vocabulary tile v outer, token block i inner.
    # dw_ref: (D, bv) output; acc_ref: (D, bv) float32 scratch.
    v = pl.program_id(0)
    i = pl.program_id(1)
    dlogits = dlogits_tile(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, v)
    @pl.when(i == 0)
    def _init():
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    acc_ref[...] += jnp.einsum("td,tv->dv", h_ref[...], dlogits.astype(h_ref.dtype),
                               preferred_element_type=jnp.float32)

    @pl.when(i == pl.num_programs(1) - 1)
    def _finish():
        dw_ref[...] = acc_ref[...].astype(dw_ref.dtype)


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


# %%
@functools.partial(jax.custom_vjp, nondiff_argnums=(3,))
def cross_entropy(h, w, labels, z_loss_weight):
    # The primal: loss (T,) with z-loss, and lse (T,).
    ce, lse = forward(h, w, labels)
    return ce + z_loss_weight * lse * lse, lse


def cross_entropy_fwd(h, w, labels, z_loss_weight):
    # YOUR CODE BEGIN
    ce, lse = forward(h, w, labels)
    loss = ce + z_loss_weight * lse * lse
    return (loss, lse), (h, w, labels, lse)
    # YOUR CODE END


def cross_entropy_bwd(z_loss_weight, residuals, cotangents):
    # YOUR CODE BEGIN
    h, w, labels, lse = residuals
    g_loss, g_lse = cotangents
    dh, dw = backward(h, w, labels, lse, g_loss, g_lse, z_loss_weight)
    return dh, dw, None
    # YOUR CODE END


cross_entropy.defvjp(cross_entropy_fwd, cross_entropy_bwd)


# From puzzle 1.
def reference(h, w, labels, z_loss_weight):
    logits = jnp.dot(h, w, preferred_element_type=jnp.float32)
    lse = jax.nn.logsumexp(logits, axis=1)
    picked = logits[jnp.arange(logits.shape[0]), labels]
    return lse - picked + z_loss_weight * lse * lse, lse


def make_inputs(seed, T, D, V, logit_scale=4.0):
    kh, kw, ky = jax.random.split(jax.random.key(seed), 3)
    h = jax.random.normal(kh, (T, D))
    w = jax.random.normal(kw, (D, V)) * (logit_scale / D**0.5)
    labels = jax.random.randint(ky, (T,), 0, V)
    return h, w, labels


def grads_of(f, h, w, labels, z_loss_weight):
    # The gradient of loss.sum() + 0.1 * lse.sum() with respect to h and w.
    def objective(h, w):
        loss, lse = f(h, w, labels, z_loss_weight)
        return loss.sum() + 0.1 * lse.sum()

    return jax.grad(objective, argnums=(0, 1))(h, w)


# %%
h, w, labels = make_inputs(630, T=32, D=64, V=512)  # 2 token blocks, 2 vocabulary tiles
check(cross_entropy(h, w, labels, 0.0), reference(h, w, labels, 0.0), atol=1e-4, rtol=1e-5,
      name="primal")
check(grads_of(cross_entropy, h, w, labels, 0.0), grads_of(reference, h, w, labels, 0.0),
      atol=1e-4, rtol=1e-4, name="grad of loss + 0.1 lse")

# With z-loss: its gradient reaches the kernels only through the wrapper's coefficient.
check(grads_of(cross_entropy, h, w, labels, 1e-2), grads_of(reference, h, w, labels, 1e-2),
      atol=1e-4, rtol=1e-4, name="grad with z-loss")

# %%
# jax.vjp with random cotangents for both outputs, then with the loss cotangent at zero.
h, w, labels = make_inputs(631, T=32, D=64, V=512, logit_scale=8.0)
kg, kl = jax.random.split(jax.random.key(632))
g_loss = jax.random.normal(kg, (32,))
g_lse = jax.random.normal(kl, (32,))
_, kernel_vjp = jax.vjp(lambda h, w: cross_entropy(h, w, labels, 1e-3), h, w)
_, reference_vjp = jax.vjp(lambda h, w: reference(h, w, labels, 1e-3), h, w)
check(kernel_vjp((g_loss, g_lse)), reference_vjp((g_loss, g_lse)), atol=1e-4, rtol=1e-4,
      name="vjp, random cotangents")
check(kernel_vjp((jnp.zeros_like(g_loss), g_lse)), reference_vjp((jnp.zeros_like(g_loss), g_lse)),
      atol=1e-4, rtol=1e-4, name="vjp, lse cotangent only")

# %% [markdown]
# # The public API: one batched entry point, BlockSizes, validation
#
# **Goal:** the function other people call. It takes batched or unbatched inputs, has block
# sizes with a sensible default that callers can override, rejects block sizes the kernel
# cannot use with a message that says why, and offers the plain `jnp` reference as a second
# implementation.
#
# ## One kernel entry point, batched
#
# Callers have hidden states of shape `(B, T, D)` in training and sometimes `(T, D)` in tests or
# inference. Writing a kernel for each would double the code and the tests. The kernels here
# take the batched form only, with the batch as the first grid axis and squeezed out of every
# block with `None` (chapter 01, puzzle 10), so the kernel bodies are those of puzzles 2 and 3
# with their program ids shifted by one axis. The public function **normalises** its input:
#
# ```
# (T, D), (T,)   --[None]-->   (1, T, D), (1, T)   --kernels-->   (1, T)   --[0]-->   (T,)
# ```
#
# Adding and removing a leading axis of size 1 costs nothing (no data moves), and every test of
# the batched path covers the unbatched one too. One kernel body does change a little: `dw`
# sums over the batch as well as the token blocks, so its grid `(V // block_v, B, T // block_t)`
# has two reduction axes, both after the parallel one. It zeroes its accumulator when both are
# 0, and stores it when both are at their last step.
#
# ## BlockSizes
#
# Block sizes are the knobs of a kernel. A production kernel gathers them in one small
# dataclass, the way `splash_attention` and `flash_attention` in JAX do:
#
# ```python
# @dataclasses.dataclass(frozen=True)
# class BlockSizes:
#     block_t: int
#     block_v: int
#
#     @classmethod
#     def get_default(cls):
#         return cls(block_t=128, block_v=512)
# ```
#
# - **frozen** makes instances immutable and hashable. Hashable means they can be static
#   arguments (`nondiff_argnums` of a `custom_vjp`, `static_argnames` of `jax.jit`), which
#   must be compared and hashed to find a compiled kernel in a cache. Immutable means a shared
#   default cannot be changed by one caller for everybody. `dataclasses.replace(sizes,
#   block_v=1024)` makes a modified copy.
# - **get_default()** keeps the defaults in one place. Callers pass `block_sizes=None` to mean
#   "the default", so the default can change later (puzzle 6 replaces it with a tuned table)
#   without touching a single caller.
#
# ## Validation belongs to the kernel path
#
# What can go wrong with a block size, and what happens if nobody checks:
#
# - **It does not divide the shape.** The grid is `T // block_t` steps, so with `T = 100` and
#   `block_t = 16`, six blocks run and the last 4 tokens are never computed. No error, just
#   garbage in part of the output. The kernels here do not mask ragged edges (chapter 01,
#   puzzle 12), so they need `T % block_t == 0` and `V % block_v == 0`.
# - **It breaks the (8, 128) rule.** The last two dimensions of a TPU block must be multiples
#   of 8 and 128, or equal to the array's full dimensions, because a vector register holds an
#   8 x 128 tile of 32-bit values. `block_t` is the second-to-last dimension of the `h` block
#   `(block_t, D)` and of the `(block_t, 1)` columns; `block_v` is the last dimension of the
#   `w` tile `(D, block_v)`. On a TPU the call fails when Pallas lowers it, with an error about
#   a block shape that does not say which of your parameters produced it.
#   (bfloat16 packs two rows per sublane, so its native tile is 16 x 128: multiples of 16 avoid
#   padding there, but 8 is what the rule requires.)
#
# So the kernel path checks both before it traces anything, and raises a `ValueError` that
# names the block size, the dimension and the rule. But **only** the kernel path: the `"xla"`
# implementation (the reference) has no blocks and works for any shape, which is exactly what
# makes it a useful fallback, for odd shapes, for debugging, for machines without a TPU.
# Validating in `BlockSizes.__post_init__` instead would be wrong twice: validity depends on
# the shapes of the call, and a caller of the `"xla"` path would be rejected for block sizes
# that are never used.
#
# ## Your task
#
# 1. `validate_block_sizes(block_sizes, T, V)`: raise `ValueError` when a block size does not
#    divide its dimension, or breaks the (8, 128) rule. Each message must name the block size
#    (`block_t` or `block_v`) and the number it was checked against.
# 2. `cross_entropy_loss`: normalise unbatched inputs, run the chosen implementation (default
#    block sizes and validation for `"pallas"` only), and return unbatched outputs for
#    unbatched inputs. Reject an unknown `implementation` with a `ValueError` too.

# %%
import dataclasses
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check


# %%
@dataclasses.dataclass(frozen=True)
class BlockSizes:
    block_t: int  # tokens per block, in all three kernels
    block_v: int  # vocabulary entries per tile, in all three kernels

    @classmethod
    def get_default(cls):
        return cls(block_t=128, block_v=512)


# The kernels of puzzles 2 and 3 on a grid with the batch first: the bodies are unchanged
# but for the grid axis of the vocabulary (forward and dh: 2) and of the token blocks (dw).
def forward_kernel(h_ref, w_ref, labels_ref, ce_ref, lse_ref, m_ref, l_ref, picked_ref):
    v = pl.program_id(2)
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

    @pl.when(v == pl.num_programs(2) - 1)
    def _finish():
        lse = m_ref[...] + jnp.log(l_ref[...])
        lse_ref[...] = lse
        ce_ref[...] = lse - picked_ref[...]


def dlogits_tile(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, v):
    logits = jnp.dot(h_ref[...], w_ref[...], preferred_element_type=jnp.float32)
    cols = v * w_ref.shape[1] + lax.broadcasted_iota(jnp.int32, logits.shape, 1)
    p = jnp.exp(logits - lse_ref[...])
    return p * coef_ref[...] - jnp.where(cols == labels_ref[...], g_loss_ref[...], 0.0)


def dh_kernel(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, dh_ref, acc_ref):
    v = pl.program_id(2)
    dlogits = dlogits_tile(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, v)

    @pl.when(v == 0)
    def _init():
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    acc_ref[...] += jnp.einsum("tv,dv->td", dlogits.astype(w_ref.dtype), w_ref[...],
                               preferred_element_type=jnp.float32)

    @pl.when(v == pl.num_programs(2) - 1)
    def _finish():
        dh_ref[...] = acc_ref[...].astype(dh_ref.dtype)


def dw_kernel(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, dw_ref, acc_ref):
    # Grid (V // block_v, B, T // block_t): dw sums over batch and token blocks, both inner.
    v = pl.program_id(0)
    b = pl.program_id(1)
    i = pl.program_id(2)
    dlogits = dlogits_tile(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, v)

    @pl.when((b == 0) & (i == 0))
    def _init():
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    acc_ref[...] += jnp.einsum("td,tv->dv", h_ref[...], dlogits.astype(h_ref.dtype),
                               preferred_element_type=jnp.float32)

    @pl.when((b == pl.num_programs(1) - 1) & (i == pl.num_programs(2) - 1))
    def _finish():
        dw_ref[...] = acc_ref[...].astype(dw_ref.dtype)


def forward(h, w, labels, block_sizes):
    # h (B, T, D), labels (B, T) -> ce (B, T), lse (B, T)
    B, T, D = h.shape
    V = w.shape[1]
    bt, bv = block_sizes.block_t, block_sizes.block_v
    column = pl.BlockSpec((None, bt, 1), lambda b, i, v: (b, i, 0))
    out = jax.ShapeDtypeStruct((B, T, 1), jnp.float32)
    ce, lse = pl.pallas_call(
        forward_kernel,
        out_shape=(out, out),
        grid=(B, T // bt, V // bv),
        in_specs=[pl.BlockSpec((None, bt, D), lambda b, i, v: (b, i, 0)),
                  pl.BlockSpec((D, bv), lambda b, i, v: (0, v)),
                  column],
        out_specs=(column, column),
        scratch_shapes=[pltpu.VMEM((bt, 1), jnp.float32)] * 3,
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary")),
        interpret=True,
    )(h, w, labels[..., None])
    return ce[..., 0], lse[..., 0]


def backward(h, w, labels, lse, g_loss, g_lse, z_loss_weight, block_sizes):
    # h (B, T, D), labels, lse, g_loss, g_lse (B, T) -> dh (B, T, D), dw (D, V)
    B, T, D = h.shape
    V = w.shape[1]
    bt, bv = block_sizes.block_t, block_sizes.block_v
    coef = g_loss * (1.0 + 2.0 * z_loss_weight * lse) + g_lse
    columns = [x[..., None] for x in (labels, lse, coef, g_loss)]
    column = pl.BlockSpec((None, bt, 1), lambda b, i, v: (b, i, 0))
    h_rows = pl.BlockSpec((None, bt, D), lambda b, i, v: (b, i, 0))
    dh = pl.pallas_call(
        dh_kernel,
        out_shape=jax.ShapeDtypeStruct(h.shape, h.dtype),
        grid=(B, T // bt, V // bv),
        in_specs=[h_rows, pl.BlockSpec((D, bv), lambda b, i, v: (0, v))] + [column] * 4,
        out_specs=h_rows,
        scratch_shapes=[pltpu.VMEM((bt, D), jnp.float32)],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary")),
        interpret=True,
    )(h, w, *columns)
    column_t = pl.BlockSpec((None, bt, 1), lambda v, b, i: (b, i, 0))
    w_tile_t = pl.BlockSpec((D, bv), lambda v, b, i: (0, v))
    dw = pl.pallas_call(
        dw_kernel,
        out_shape=jax.ShapeDtypeStruct(w.shape, w.dtype),
        grid=(V // bv, B, T // bt),
        in_specs=[pl.BlockSpec((None, bt, D), lambda v, b, i: (b, i, 0)), w_tile_t]
        + [column_t] * 4,
        out_specs=w_tile_t,
        scratch_shapes=[pltpu.VMEM((D, bv), jnp.float32)],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "arbitrary", "arbitrary")),
        interpret=True,
    )(h, w, *columns)
    return dh, dw


# Puzzle 4's custom_vjp, with the block sizes as a second static argument.
@functools.partial(jax.custom_vjp, nondiff_argnums=(3, 4))
def cross_entropy(h, w, labels, z_loss_weight, block_sizes):
    ce, lse = forward(h, w, labels, block_sizes)
    return ce + z_loss_weight * lse * lse, lse


def cross_entropy_fwd(h, w, labels, z_loss_weight, block_sizes):
    ce, lse = forward(h, w, labels, block_sizes)
    return (ce + z_loss_weight * lse * lse, lse), (h, w, labels, lse)


def cross_entropy_bwd(z_loss_weight, block_sizes, residuals, cotangents):
    h, w, labels, lse = residuals
    g_loss, g_lse = cotangents
    dh, dw = backward(h, w, labels, lse, g_loss, g_lse, z_loss_weight, block_sizes)
    return dh, dw, None


cross_entropy.defvjp(cross_entropy_fwd, cross_entropy_bwd)


def reference(h, w, labels, z_loss_weight=0.0):
    # Puzzle 1's reference for any number of leading axes: h (..., D), labels (...).
    logits = jnp.dot(h, w, preferred_element_type=jnp.float32)
    lse = jax.nn.logsumexp(logits, axis=-1)
    picked = jnp.sum(logits * jax.nn.one_hot(labels, w.shape[1]), axis=-1)
    return lse - picked + z_loss_weight * lse * lse, lse


# %%
def validate_block_sizes(block_sizes, T, V):
    bt, bv = block_sizes.block_t, block_sizes.block_v
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def cross_entropy_loss(h, w, labels, *, z_loss_weight=0.0, block_sizes=None,
                       implementation="pallas"):
    """Per-token loss (with z-loss) and logsumexp of the logits h @ w.

    h: (B, T, D) or (T, D); w: (D, V); labels: (B, T) or (T,) int32.
    Returns loss and lse, float32, shaped like labels.
    implementation: "pallas" (the kernels) or "xla" (the reference, any shape).
    """
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def make_inputs(seed, B, T, D, V):
    kh, kw, ky = jax.random.split(jax.random.key(seed), 3)
    shape = (T,) if B is None else (B, T)
    h = jax.random.normal(kh, shape + (D,))
    w = jax.random.normal(kw, (D, V)) * (4.0 / D**0.5)
    labels = jax.random.randint(ky, shape, 0, V)
    return h, w, labels


def grads(implementation, h, w, labels, block_sizes=None):
    def objective(h, w):
        loss, lse = cross_entropy_loss(h, w, labels, z_loss_weight=1e-2,
                                       block_sizes=block_sizes, implementation=implementation)
        return loss.sum() + 0.1 * lse.sum()

    return jax.grad(objective, argnums=(0, 1))(h, w)


def error_message(call):
    # The message of the ValueError that call() raises, or a note that it raised none.
    try:
        call()
    except ValueError as e:
        return str(e)
    return "no ValueError was raised"


def check_rejects(call, words, name):
    message = error_message(call)
    print(f"  {name}: {message}")
    return check(jnp.array(all(word in message for word in words)), jnp.array(True), name=name)


# %%
# Batched, with the default block sizes: a (2, 1, 2) grid.
h, w, labels = make_inputs(640, B=2, T=128, D=64, V=1024)
check(cross_entropy_loss(h, w, labels, z_loss_weight=1e-2),
      reference(h, w, labels, 1e-2), atol=1e-4, rtol=1e-5, name="batched")

# Unbatched: normalised to (1, T, D) and back, so the shapes are (T,).
check(cross_entropy_loss(h[1], w, labels[1], z_loss_weight=1e-2),
      reference(h[1], w, labels[1], 1e-2), atol=1e-4, rtol=1e-5, name="unbatched")

# Gradients through the public function: kernels against the xla implementation.
small = BlockSizes(block_t=64, block_v=512)
check(grads("pallas", h, w, labels, small), grads("xla", h, w, labels), atol=1e-4, rtol=1e-4,
      name="gradients, pallas against xla")

# %%
# The xla implementation takes any shape; the kernel path refuses what it cannot do.
h, w, labels = make_inputs(641, B=None, T=12, D=64, V=1000)
check(cross_entropy_loss(h, w, labels, implementation="xla"), reference(h, w, labels),
      name="xla path, T = 12, V = 1000")
check_rejects(lambda: cross_entropy_loss(h, w, labels), ["block_t", "12"],
              name="default block_t does not divide T = 12")
# Blocks as large as the whole array are always allowed, multiples of (8, 128) or not.
check(cross_entropy_loss(h, w, labels, block_sizes=BlockSizes(12, 1000)), reference(h, w, labels),
      atol=1e-4, rtol=1e-5, name="full-size blocks, T = 12, V = 1000")

h, w, labels = make_inputs(642, B=2, T=48, D=64, V=768)
check_rejects(lambda: cross_entropy_loss(h, w, labels, block_sizes=BlockSizes(12, 768)),
              ["block_t", "8"], name="block_t = 12 breaks the (8, 128) rule")
check_rejects(lambda: cross_entropy_loss(h, w, labels, block_sizes=BlockSizes(48, 192)),
              ["block_v", "128"], name="block_v = 192 breaks the (8, 128) rule")
check_rejects(lambda: cross_entropy_loss(h, w, labels, block_sizes=BlockSizes(16, 512)),
              ["block_v", "768"], name="block_v = 512 does not divide V = 768")
check_rejects(lambda: cross_entropy_loss(h, w, labels, implementation="triton"),
              ["triton"], name="unknown implementation")

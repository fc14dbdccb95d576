# %% [markdown]
# # The forward kernel: loss and logsumexp, z-loss outside
#
# **Goal:** the production forward kernel. It returns the per-token cross-entropy and the
# logsumexp from `h` and `w` without storing the logits, and the z-loss is added by the
# wrapper around it, not by the kernel.
#
# ## You have written this kernel before
#
# The kernel body is chapter 02, puzzle 5, almost line for line: a grid of token blocks by
# vocabulary tiles with the vocabulary axis last, each step's `(bt, bv)` logits tile computed
# in VMEM by a matmul, folded into three `(bt, 1)` scratch statistics (`m`, `l`, `picked`),
# and the outputs written at the last vocabulary tile. That repetition is the lesson. A
# production kernel is rarely a new algorithm; it is a known one, given a stable interface and
# tested hard. Three things change here, and all of them concern that interface.
#
# **1. The kernel does not know about z-loss.** It returns `ce = lse - picked` and `lse`. The
# wrapper adds `z_loss_weight * lse**2`. Why move a term out of a kernel that could compute it
# for two multiplies?
#
# - Only the reduction over the vocabulary needs a kernel. The z-loss is elementwise on `T`
#   numbers, and XLA fuses it into the surrounding code for free.
# - The weight becomes an argument of the wrapper. Baked into the kernel (with
#   `functools.partial`, as in chapter 02), every new weight is a new kernel to compile, and
#   every variant of the loss (another penalty on `lse`, a different weighting) a new kernel
#   to write and test.
# - The backward pass gets simpler. The z-term's gradient only flows through `lse`, which the
#   kernel already returns, so the backward kernel of the next puzzle never needs to know the
#   weight either: the wrapper folds it into one number per token.
#
# A good rule for kernel interfaces: the kernel computes the part that needs the memory
# hierarchy, and everything that is cheap and elementwise stays in plain JAX around it.
#
# **2. The outputs are vectors.** The kernel writes `(T, 1)` columns in `(bt, 1)` blocks (a
# last dimension of 1 is allowed because it is the array's full width), and the wrapper
# returns them as `(T,)`, the shape a caller expects. Reshapes outside a kernel cost nothing.
#
# **3. The block size comes from the block.** `bv = w_ref.shape[1]` reads the vocabulary tile
# width from the ref, a static number at trace time, so the same kernel works for any `bv` the
# wrapper chooses. Puzzle 5 makes the block sizes an argument.
#
# ## Inputs in bfloat16
#
# Production hidden states and weights are usually bfloat16. Nothing in the kernel body has to
# change for that: `jnp.dot(..., preferred_element_type=jnp.float32)` multiplies bfloat16 tiles
# on the MXU and accumulates in float32, and the statistics live in float32 scratch. The losses
# come out in float32 whatever the input type, because a per-token loss is a sum over a large
# vocabulary and bfloat16 has only 8 bits of mantissa.
#
# ## Your task
#
# 1. The kernel body after the logits tile: reset the statistics at `v == 0`, fold the tile in,
#    and at the last vocabulary tile write `lse = m + log(l)` and `ce = lse - picked`.
# 2. In `cross_entropy`, add the z-loss term to `ce`.

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


def forward_kernel(h_ref, w_ref, labels_ref, ce_ref, lse_ref, m_ref, l_ref, picked_ref):
    # h_ref: (bt, D); w_ref: (D, bv); labels_ref: (bt, 1) int32
    # ce_ref, lse_ref: (bt, 1) float32 outputs; m_ref, l_ref, picked_ref: (bt, 1) scratch
    v = pl.program_id(1)
    logits = jnp.dot(h_ref[...], w_ref[...], preferred_element_type=jnp.float32)
    cols = v * w_ref.shape[1] + lax.broadcasted_iota(jnp.int32, logits.shape, 1)
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


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


def cross_entropy(h, w, labels, z_loss_weight=0.0):
    # The wrapper: returns loss (T,) with the z-loss term, and lse (T,).
    ce, lse = forward(h, w, labels)
    # YOUR CODE BEGIN
    loss = ce  # the z-loss term is not added yet
    # YOUR CODE END
    return loss, lse


# From puzzle 1.
def reference(h, w, labels, z_loss_weight=0.0):
    logits = jnp.dot(h, w, preferred_element_type=jnp.float32)
    lse = jax.nn.logsumexp(logits, axis=1)
    picked = logits[jnp.arange(logits.shape[0]), labels]
    return lse - picked + z_loss_weight * lse * lse, lse


def make_inputs(seed, T, D, V, logit_scale=4.0, dtype=jnp.float32):
    kh, kw, ky = jax.random.split(jax.random.key(seed), 3)
    h = jax.random.normal(kh, (T, D)).astype(dtype)
    w = (jax.random.normal(kw, (D, V)) * (logit_scale / D**0.5)).astype(dtype)
    labels = jax.random.randint(ky, (T,), 0, V)
    return h, w, labels


# %%
# 4 token blocks by 8 vocabulary tiles.
h, w, labels = make_inputs(610, T=64, D=128, V=2048)
check(cross_entropy(h, w, labels), reference(h, w, labels), atol=1e-4, rtol=1e-5,
      name="cross-entropy")

# z-loss, added by the wrapper: the kernel is the same one.
check(cross_entropy(h, w, labels, z_loss_weight=1e-2), reference(h, w, labels, 1e-2),
      atol=1e-4, rtol=1e-5, name="with z-loss")

# Logits in the hundreds: every tile may raise the running maximum.
h, w, labels = make_inputs(611, T=32, D=64, V=1024, logit_scale=60.0)
check(cross_entropy(h, w, labels, 1e-4), reference(h, w, labels, 1e-4), atol=1e-3, rtol=1e-5,
      name="large logits")

# bfloat16 inputs: float32 statistics, float32 losses.
h, w, labels = make_inputs(612, T=64, D=128, V=1024, dtype=jnp.bfloat16)
check(cross_entropy(h, w, labels, 1e-4), reference(h, w, labels, 1e-4), atol=1e-4, rtol=1e-5,
      name="bfloat16 inputs")

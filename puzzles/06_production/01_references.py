# %% [markdown]
# # Two references: the readable one and the streaming one
#
# **Goal:** before any kernel, write down what the kernel must compute, twice: once as plainly
# as possible, and once in a form that still runs when the vocabulary is too big for the plain
# one. Then learn to say *how far apart* two results are, not only whether they pass.
#
# ## The operation this chapter ships
#
# A language model's last layer turns hidden states `h` of shape `(T, D)` into logits with an
# output projection `w` of shape `(D, V)`, and trains on the cross-entropy of the correct next
# token `y[t]`, plus an optional z-loss that pulls the logsumexp towards 0 (chapter 02, puzzle
# 5):
#
# ```
# logits = h @ w                                      (T, V)
# lse[t] = logsumexp(logits[t])                       (T,)
# loss[t] = lse[t] - logits[t, y[t]] + z_loss_weight * lse[t]**2
# ```
#
# The function returns both `loss` and `lse`. Training code logs `lse` (a drifting logsumexp is
# an early sign of instability), and the backward pass of puzzle 3 needs it.
#
# ## Why a reference comes first
#
# Kernel teams write the reference before the kernel, and keep it after. It is the definition
# the kernel is tested against, the fallback used on machines or shapes the kernel does not
# support, and the thing a reviewer reads to understand what the kernel is meant to do. So it
# must be obviously right, which means short and free of tricks. `reference` below is that
# version. It builds the whole `(T, V)` logits array.
#
# That is also its limit. With `T = 8192` tokens and a vocabulary of `V = 256k`, float32 logits
# take 8 GiB: too much for a test on one device, and the shapes where a kernel misbehaves
# (large `V`, many vocabulary tiles, big logits) are exactly the large ones. So a second
# reference walks the vocabulary in chunks, with the online softmax statistics from chapter 02:
#
# ```
# for each chunk c of `chunk` vocabulary entries:
#     logits_c = h @ w[:, c*chunk : (c+1)*chunk]           (T, chunk), the only big array
#     picked  += sum of logits_c where the column is the label, else 0
#     m_new    = max(m, rowmax(logits_c))
#     l        = l * exp(m - m_new) + rowsum(exp(logits_c - m_new[:, None]))
#     m        = m_new
# lse = m + log(l)
# ```
#
# It is still plain `jnp`, with no kernel and no `BlockSpec`, so it is easy to trust, and its
# peak memory is `T * chunk` floats instead of `T * V`. It is written with `lax.fori_loop`
# rather than a Python `for`. A Python loop would be unrolled into `V / chunk` copies of the body
# when traced (thousands, for a big vocabulary); `fori_loop` traces the body once and runs it
# as a loop. The chunk is cut out of `w` with `lax.dynamic_slice(w, (0, start), (D, chunk))`,
# because the loop index is a traced value, and a slice with traced bounds needs the dynamic
# form. Its *size* stays static.
#
# One caveat: differentiating this reference with `jax.grad` keeps what each iteration needs
# for the backward pass, the `(T, chunk)` intermediates of every chunk, so its gradient uses
# about as much memory as the readable one. Only the forward pass streams. The backward
# kernel of puzzle 3 streams both.
#
# ## Pointwise deviation, not only allclose
#
# `check` and `allclose` give a yes or no: every element within `atol + rtol * |expected|`. For
# a kernel that goes to production you want the numbers behind it:
#
# ```
# max_abs = max |actual - expected|
# max_rel = max |actual - expected| / max(|expected|, tiny)
# ```
#
# The absolute deviation tells you how far off the largest error is. The relative one tells
# you whether that error is small next to the value it sits in. A loss of `1e-3` off by `1e-4`
# is a 10% error that an `atol` of `1e-4` would wave through. Reporting both also shows your
# margin: a test that passes at `rtol = 1e-5` with a measured `2e-7` is solid, one that
# measures `9e-6` is one compiler change away from failing. (`tiny`, the smallest normal
# float32, only keeps a zero in `expected` from dividing by zero.)
#
# The last cell uses it to set a tolerance the honest way: it measures how far a bfloat16
# computation of the same loss drifts from the float32 one. A bfloat16 kernel cannot be held
# to a tighter tolerance than that drift.
#
# ## Your task
#
# 1. The body of the streaming loop: fold one chunk of logits into `m`, `l` and `picked`.
# 2. `deviation(actual, expected)`: the maximum absolute and relative deviation, as Python
#    floats, computed in float32 whatever the input dtypes.

# %%
import jax
import jax.numpy as jnp
from jax import lax
from pallas_check import check


# %%
def reference(h, w, labels, z_loss_weight=0.0):
    # The definition, with the whole (T, V) logits array. Returns loss (T,) and lse (T,).
    logits = jnp.dot(h, w, preferred_element_type=jnp.float32)
    lse = jax.nn.logsumexp(logits, axis=1)
    picked = logits[jnp.arange(logits.shape[0]), labels]
    return lse - picked + z_loss_weight * lse * lse, lse


def streaming_reference(h, w, labels, z_loss_weight=0.0, chunk=256):
    # The same result, one (T, chunk) slice of the logits at a time. V must be a multiple of
    # chunk.
    T, D = h.shape
    V = w.shape[1]

    def fold_chunk(c, carry):
        m, l, picked = carry  # (T,) float32 each: running max, running sum, label's logit
        w_chunk = lax.dynamic_slice(w, (0, c * chunk), (D, chunk))
        logits = jnp.dot(h, w_chunk, preferred_element_type=jnp.float32)  # (T, chunk)
        cols = c * chunk + jnp.arange(chunk)  # the global vocabulary index of each column
        # YOUR CODE BEGIN
        return carry  # this chunk is not folded in yet
        # YOUR CODE END

    start = (jnp.full((T,), -jnp.inf, jnp.float32), jnp.zeros((T,), jnp.float32),
             jnp.zeros((T,), jnp.float32))
    m, l, picked = lax.fori_loop(0, V // chunk, fold_chunk, start)
    lse = m + jnp.log(l)
    return lse - picked + z_loss_weight * lse * lse, lse


def deviation(actual, expected):
    # Returns (max_abs, max_rel) as Python floats.
    # YOUR CODE BEGIN
    max_abs = max_rel = 0.0  # not measured yet
    # YOUR CODE END
    return float(max_abs), float(max_rel)


def report(label, actual, expected):
    # One line per output: the deviation of loss and of lse.
    for name, a, e in zip(("loss", "lse"), actual, expected):
        max_abs, max_rel = deviation(a, e)
        print(f"{label:>28} {name:>4}: max abs {max_abs:.2e}, max rel {max_rel:.2e}")


def make_inputs(seed, T, D, V, logit_scale=4.0, dtype=jnp.float32):
    kh, kw, ky = jax.random.split(jax.random.key(seed), 3)
    h = jax.random.normal(kh, (T, D)).astype(dtype)
    w = (jax.random.normal(kw, (D, V)) * (logit_scale / D**0.5)).astype(dtype)
    labels = jax.random.randint(ky, (T,), 0, V)
    return h, w, labels


# %%
# deviation() on numbers you can check by hand: the largest absolute error is 4 (at 8), the
# largest relative one is 0.5 (also at 8); the exact zero must not divide by zero.
max_abs, max_rel = deviation(jnp.array([1.0, -2.0, 4.0, 0.0]), jnp.array([1.0, -2.5, 8.0, 0.0]))
check(jnp.array([max_abs, max_rel]), jnp.array([4.0, 0.5]), name="deviation by hand")

# %%
# The streaming reference against the readable one: 8 chunks of 256.
h, w, labels = make_inputs(600, T=64, D=128, V=2048)
check(streaming_reference(h, w, labels), reference(h, w, labels), atol=1e-5, rtol=1e-5,
      name="streaming reference")
report("streaming vs readable", streaming_reference(h, w, labels), reference(h, w, labels))

# With z-loss, a different chunk size, and logits in the hundreds (every chunk raises the max).
h, w, labels = make_inputs(601, T=32, D=64, V=1024, logit_scale=60.0)
check(streaming_reference(h, w, labels, 1e-4, chunk=128), reference(h, w, labels, 1e-4),
      atol=1e-4, rtol=1e-5, name="z-loss, large logits")
report("z-loss, large logits", streaming_reference(h, w, labels, 1e-4, chunk=128),
       reference(h, w, labels, 1e-4))

# %%
# How far does bfloat16 drift? The same inputs rounded to bfloat16, computed with float32
# accumulation, against float32: this drift, not 1e-5, is what a bfloat16 kernel is held to.
h, w, labels = make_inputs(602, T=64, D=128, V=2048)
drift = reference(h.astype(jnp.bfloat16), w.astype(jnp.bfloat16), labels)
report("bfloat16 inputs vs float32", drift, reference(h, w, labels))
check(drift, reference(h, w, labels), atol=0.0, rtol=1e-2, name="bfloat16 drift under 1%")

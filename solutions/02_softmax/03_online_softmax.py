# %% [markdown]
# # Online softmax: both statistics in one pass
#
# **Goal:** compute the maximum `m` and the sum `l = sum(exp(x - m))` in a *single* sweep over
# the tiles, by correcting the running sum whenever the running maximum grows.
#
# ## Why one pass matters
#
# The two-pass softmax read `x` from HBM three times. Softmax does a handful of arithmetic
# operations per element, and a TPU core can do far more arithmetic per second than HBM can
# deliver bytes. For a kernel like this, run time is roughly bytes moved divided by HBM
# bandwidth. Merging the max pass and the sum pass into one removes a full read of `x`: three
# sweeps become two.
#
# The bigger prize comes later. In flash attention (chapter 03) and in the fused cross-entropy
# at the end of this chapter, the probabilities are never written out at all. Everything
# happens in one sweep, and the trick below is what makes that possible.
#
# ## The obstacle, and the correction factor
#
# The sum pass needed the *final* maximum before it could start. Suppose we just keep a running
# maximum `m_old` and a running sum `l_old = sum(exp(seen - m_old))` over the tiles seen so far.
# A new tile arrives with a larger maximum, so the running maximum becomes `m_new`. Every term
# already in `l_old` was computed against the wrong shift, but it is wrong by the *same* factor:
#
# ```
# exp(x - m_new) = exp(x - m_old) * exp(m_old - m_new)
# ```
#
# So one multiplication fixes the whole sum at once:
#
# ```
# m_new = max(m_old, max(tile))
# l_new = l_old * exp(m_old - m_new) + sum(exp(tile - m_new))
# ```
#
# `exp(m_old - m_new)` is the **correction factor**. It is at most 1 (since `m_new >= m_old`)
# and exactly 1 when the maximum did not move, so it can never overflow.
#
# A worked example with two tiles, `[1, 3]` then `[5, 2]`:
#
# | after tile | m | correction | l |
# |---|---|---|---|
# | `[1, 3]` | 3 | `exp(-inf - 3) = 0` | `0 * 0 + exp(1-3) + exp(3-3) = 0.1353 + 1 = 1.1353` |
# | `[5, 2]` | 5 | `exp(3 - 5) = 0.1353` | `1.1353 * 0.1353 + exp(5-5) + exp(2-5) = 0.1537 + 1.0498 = 1.2034` |
#
# Check it directly: `exp(1-5) + exp(3-5) + exp(5-5) + exp(2-5) = 0.0183 + 0.1353 + 1 + 0.0498
# = 1.2034`. The same number, from one pass.
#
# ![running m and l across the tiles, corrected whenever m grows](../../images/softmax_online_correction.svg)
#
# Notice the first row of the table: starting from the identities (`m = -inf`, `l = 0`) makes
# the first tile need no special case, because its correction factor is `exp(-inf) = 0`. One
# warning for later: if a *whole tile* is `-inf` (a fully masked block in attention), then
# `m_new` is `-inf` too and `exp(-inf - (-inf))` is `NaN`. Chapter 03 deals with that case.
#
# ## Your task
#
# Write `online_stats_kernel`: one grid sweep that leaves the final `m` and `l` in two SMEM
# outputs, exactly as the two kernels of the previous puzzle did between them. The normalise
# pass is the same `normalize_kernel` as before, unchanged. The checks use data whose maximum
# keeps growing from tile to tile, so a missing or wrong correction shows.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bn = 128  # entries per tile


def online_stats_kernel(x_ref, m_ref, l_ref):
    # x_ref: (bn,) VMEM tile of x; m_ref, l_ref: (1,) SMEM outputs, kept across the grid
    # YOUR CODE BEGIN
    @pl.when(pl.program_id(0) == 0)
    def _init():
        m_ref[0] = -jnp.inf
        l_ref[0] = 0.0

    x = x_ref[...]
    m_old = m_ref[0]
    m_new = jnp.maximum(m_old, jnp.max(x))
    correction = jnp.exp(m_old - m_new)
    l_ref[0] = l_ref[0] * correction + jnp.sum(jnp.exp(x - m_new))
    m_ref[0] = m_new
    # YOUR CODE END


# The same normalise pass as in the previous puzzle.
def normalize_kernel(x_ref, m_ref, l_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...] - m_ref[0]) / l_ref[0]


def softmax_online(x):
    tile = pl.BlockSpec((bn,), lambda k: (k,))
    smem = pl.BlockSpec(memory_space=pltpu.SMEM)
    scalar = jax.ShapeDtypeStruct((1,), jnp.float32)
    grid = (x.shape[0] // bn,)
    m, l = pl.pallas_call(online_stats_kernel, out_shape=(scalar, scalar), grid=grid,
                          in_specs=[tile], out_specs=(smem, smem), interpret=True)(x)
    o = pl.pallas_call(normalize_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                       grid=grid, in_specs=[tile, smem, smem], out_specs=tile,
                       interpret=True)(x, m, l)
    return m, l, o


def reference(x):
    m = jnp.max(x)
    return m[None], jnp.sum(jnp.exp(x - m))[None], jax.nn.softmax(x)


# %%
# 8 tiles on a rising slope: nearly every tile raises the running maximum.
N = 1024
x = jax.random.normal(jax.random.key(300), (N,)) + jnp.linspace(0.0, 12.0, N)
check(softmax_online(x), reference(x), atol=1e-6, rtol=1e-4, name="rising maximum")

# All far below zero: a running maximum that starts at 0 makes every exp underflow.
x = jax.random.uniform(jax.random.key(301), (N,), minval=-130.0, maxval=-110.0)
check(softmax_online(x), reference(x), atol=1e-6, rtol=1e-4, name="far below zero")

# A second shape (5 tiles): large logits, with the biggest ones in the last tile.
x = 30.0 * jax.random.normal(jax.random.key(302), (640,)) + jnp.linspace(0.0, 200.0, 640)
check(softmax_online(x), reference(x), atol=1e-6, rtol=1e-4, name="large rising logits")

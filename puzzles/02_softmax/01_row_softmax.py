# %% [markdown]
# # Row softmax
#
# **Goal:** write a kernel that turns every row of a matrix of scores into probabilities, one
# block of whole rows per grid step.
#
# ## Why softmax, and why it needs care
#
# Softmax turns a row of arbitrary real scores (often called *logits*) into a probability
# distribution: every entry becomes positive and the row sums to 1.
#
# ```
# softmax(x)[j] = exp(x[j]) / sum_k exp(x[k])
# ```
#
# It sits at the heart of attention (one softmax per query row) and at the output of every
# classifier and language model (one softmax per token, over the whole vocabulary). It is also
# a kernel where the textbook formula breaks on real data.
#
# **Overflow.** A float32 holds numbers up to about 3.4e38, and `exp(88.8)` is already larger
# than that. A row with a logit of 100 (common enough when training goes slightly wrong) gives
# `exp(100) = inf`, the sum is `inf`, and `inf / inf` is `NaN`. Once a NaN appears it spreads
# through everything downstream.
#
# **The fix costs nothing.** Multiply the top and the bottom of the fraction by the same
# constant `exp(-c)`:
#
# ```
# exp(x[j]) / sum_k exp(x[k])  ==  exp(x[j] - c) / sum_k exp(x[k] - c)
# ```
#
# The answer does not change for any `c`. Pick `c = max(x)`: the largest exponent becomes
# `exp(0) = 1`, every other one lies in (0, 1], and the sum lies between 1 and the row length,
# so it can neither overflow nor be zero. Every softmax you will write in this chapter starts
# from this shift.
#
# A small example: `x = [1000, 1001, 1002]`. The textbook formula overflows at `exp(1000)`.
# Shift by the max, 1002: `[-2, -1, 0]`, exponentials `[0.135, 0.368, 1.0]`, sum `1.503`,
# probabilities `[0.090, 0.245, 0.665]`.
#
# ## The TPU picture
#
# The matrix `x` of shape `(M, N)` lives in HBM, the large but slow memory. Softmax works on
# each row independently, so the natural split gives every grid step a block of `bm` complete
# rows: `BlockSpec((bm, N), lambda i: (i, 0))`. The pipeline copies that block into VMEM (the
# fast on-chip memory the vector unit reads from), runs your kernel on it, and copies the
# finished output block back to HBM. Inside the kernel the whole row is right there, so the
# kernel is three reductions and an elementwise step:
#
# 1. the row maximum `m`;
# 2. `e = exp(x - m)`;
# 3. the row sum of `e`, then `e / sum`.
#
# ![each grid step turns a block of whole rows into probabilities](../../images/softmax_row_blocks.svg)
#
# ![the blocks of x and o in VMEM at each grid step (drawn from this puzzle's solution by `pallas-puzzles diagram 2.1 --all-steps`)](../../images/softmax_row_steps.svg)
#
# ## `keepdims`: keeping the reduced axis
#
# `jnp.max(x, axis=1)` on a `(bm, N)` block returns shape `(bm,)`. Broadcasting lines shapes
# up from the *right*, so `x - m` would try to match `(bm,)` against the `N` columns: an error
# when `bm != N`, and silently the wrong answer when they happen to be equal.
# `jnp.max(x, axis=1, keepdims=True)` returns `(bm, 1)` instead, which broadcasts across the
# columns exactly as intended. The same goes for the sum.
#
# This kernel needs a whole row in VMEM at once. That is fine for a row of a few thousand
# entries, but a vocabulary row of 256k float32 values is 1 MiB per row, and VMEM holds only
# tens of MiB. The rest of the chapter removes that limit.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import check

# %%
bm = 8  # rows per grid step


def softmax_kernel(x_ref, o_ref):
    # x_ref, o_ref: (bm, N) VMEM blocks holding bm whole rows
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def row_softmax(x):
    M, N = x.shape
    return pl.pallas_call(
        softmax_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), x.dtype),
        grid=(M // bm,),
        in_specs=[pl.BlockSpec((bm, N), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((bm, N), lambda i: (i, 0)),
        interpret=True,
    )(x)


# %%
# 8 row blocks of typical scores.
x = 3.0 * jax.random.normal(jax.random.key(100), (64, 256))
check(row_softmax(x), jax.nn.softmax(x, axis=1), name="row softmax")

# A second shape (3 row blocks) with logits in the hundreds: exp without the shift overflows.
x = 40.0 * jax.random.normal(jax.random.key(101), (24, 384)) + 300.0
check(row_softmax(x), jax.nn.softmax(x, axis=1), name="large logits")

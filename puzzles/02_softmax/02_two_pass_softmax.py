# %% [markdown]
# # Two-pass tiled softmax
#
# **Goal:** compute the softmax of a long vector that is split into tiles, with the two
# statistics it needs (the maximum `m` and the sum of exponentials `l`) accumulated across the
# grid in scalar memory.
#
# ## When a row no longer fits
#
# The row softmax of the previous puzzle needed a whole row in VMEM. Now let the vector `x` of
# length `N` be long, and let each grid step see only one tile of `bn` entries. The stable
# softmax needs two numbers about the *whole* vector before it can write a single probability:
#
# ```
# m = max(x)                    # the shift
# l = sum(exp(x - m))           # the normaliser, which needs m first
# softmax(x) = exp(x - m) / l
# ```
#
# Each step sees one tile, so each number has to be built up piece by piece, one tile per grid
# step, in a place that outlives the step. And `l` cannot start before `m` is final. The
# straightforward answer is three separate `pallas_call`s, each a full sweep over `x` in HBM:
#
# 1. **max pass:** read every tile, keep a running maximum;
# 2. **sum pass:** read every tile again, add up `exp(tile - m)`;
# 3. **normalise pass:** read every tile a third time, write `exp(tile - m) / l`.
#
# ![three sweeps over x in HBM, with the two scalars kept in SMEM](../../images/softmax_three_passes.svg)
#
# ## Identity elements
#
# A running reduction needs a starting value that does not change the result: the *identity
# element* of the operation.
#
# - For a sum it is `0`, since `0 + a = a`.
# - For a maximum it is `-inf`, since `max(-inf, a) = a` for every `a`.
#
# `0` is a tempting start for the maximum, and it works as long as the data has at least one
# positive entry. If every entry is negative, the "maximum" stays at 0, a value that is not in
# the data at all. With `x` between -130 and -110 it is worse than a wrong `m`: every
# `exp(x - 0)` underflows to 0, so `l = 0` and every probability becomes `0 / 0 = NaN`. The
# checks below use exactly such data.
#
# As in the row sum of chapter 01, the accumulator must be set to its identity on the first
# grid step, inside `@pl.when(pl.program_id(0) == 0)`. Memory the kernel did not write holds
# garbage.
#
# ## Scalars live in SMEM
#
# `m` and `l` are single numbers. The TPU core has a small scalar memory, **SMEM**, next to its
# scalar unit. That unit handles addresses, loop counters and the grid itself. The vector unit
# works on VMEM tiles; single values belong in SMEM.
#
# `pl.BlockSpec(memory_space=pltpu.SMEM)` with no block shape places the *whole* operand in
# SMEM for every grid step. Give the scalar the shape `(1,)` (TPU blocks have rank at least 1)
# and read or write it as `m_ref[0]`. Because the block never changes, the output stays put from
# one step to the next and is written back once, after the last step. That makes it an
# accumulator, exactly like the revisited output block of chapter 01's row sum.
#
# SMEM holds scalars only: `m_ref[0]` is right, while `m_ref[...]` as a vector is not something
# the TPU can load. You may come across kernels that put such scalars in `memory_space=pl.ANY`
# and read them directly. That only works in interpret mode: on a TPU an `ANY` operand stays in
# HBM and the kernel can reach it only through an explicit DMA.
#
# ## Your task
#
# Write `max_kernel` (pass 1) and `sumexp_kernel` (pass 2). Pass 3, `normalize_kernel`, is
# written for you: it shows how a kernel reads the SMEM scalars.
#
# Count the traffic: `x` is read from HBM three times and the output written once. For an
# operation this cheap per element, memory traffic *is* the cost. The next puzzle removes one
# of the three reads.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bn = 128  # entries per tile


def max_kernel(x_ref, m_ref):
    # x_ref: (bn,) VMEM tile of x; m_ref: (1,) SMEM output, the same one at every grid step
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def sumexp_kernel(x_ref, m_ref, l_ref):
    # x_ref: (bn,) VMEM tile; m_ref: (1,) SMEM input, the final max; l_ref: (1,) SMEM output
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def normalize_kernel(x_ref, m_ref, l_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...] - m_ref[0]) / l_ref[0]


def softmax_two_pass(x):
    tile = pl.BlockSpec((bn,), lambda k: (k,))
    smem = pl.BlockSpec(memory_space=pltpu.SMEM)
    scalar = jax.ShapeDtypeStruct((1,), jnp.float32)
    grid = (x.shape[0] // bn,)
    m = pl.pallas_call(max_kernel, out_shape=scalar, grid=grid,
                       in_specs=[tile], out_specs=smem, interpret=True)(x)
    l = pl.pallas_call(sumexp_kernel, out_shape=scalar, grid=grid,
                       in_specs=[tile, smem], out_specs=smem, interpret=True)(x, m)
    o = pl.pallas_call(normalize_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                       grid=grid, in_specs=[tile, smem, smem], out_specs=tile,
                       interpret=True)(x, m, l)
    return m, l, o


def reference(x):
    m = jnp.max(x)
    return m[None], jnp.sum(jnp.exp(x - m))[None], jax.nn.softmax(x)


# %%
# 8 tiles, every entry negative: a maximum that starts at 0 stays at 0.
x = jax.random.uniform(jax.random.key(200), (1024,), minval=-6.0, maxval=-1.0)
check(softmax_two_pass(x), reference(x), atol=1e-6, rtol=1e-4, name="all negative")

# Far below zero: with the wrong identity every exp underflows and the sum is 0.
x = jax.random.uniform(jax.random.key(201), (1024,), minval=-130.0, maxval=-110.0)
check(softmax_two_pass(x), reference(x), atol=1e-6, rtol=1e-4, name="far below zero")

# A second shape (5 tiles) with logits in the hundreds.
x = 60.0 * jax.random.normal(jax.random.key(202), (640,))
check(softmax_two_pass(x), reference(x), atol=1e-6, rtol=1e-4, name="large logits")

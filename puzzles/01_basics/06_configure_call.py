# %% [markdown]
# # Configure your own `pallas_call`
#
# **Goal:** the kernel is written; you write the grid and the BlockSpecs that feed it.
#
# ## The other half of a kernel
#
# A Pallas kernel has two halves: the body, which computes on VMEM blocks, and the
# `pallas_call` configuration, which decides how the arrays are cut, which block each step sees
# and in what order the steps run. Up to now the configuration was given. In production kernels
# it is at least half of the design (and the half where most bugs hide), so this time it is
# yours.
#
# A checklist for writing one:
#
# 1. **Grid:** what is one step's work? Here: one `(bm, bn)` block of the output. The grid then
#    has one axis per output dimension, sized `M // bm` and `N // bn`.
# 2. **One BlockSpec per input, in the order of the kernel's arguments:** which block of this
#    input does output block `(i, j)` need? Ignore the grid axes it does not depend on
#    (puzzle 5).
# 3. **out_specs:** which output block does step `(i, j)` write?
# 4. The kernel's ref shapes are the block shapes. This kernel checks them when it is traced, a
#    habit worth copying: `ref.shape` is an ordinary Python tuple inside a kernel, known before
#    anything runs.
#
# ## The task
#
# The kernel scales and shifts every column of a matrix, as the last step of a normalisation
# layer does: `o[r, c] = x[r, c] * g[c] + b[c]`. `x` has shape `(M, N)`; `g` and `b` have shape
# `(N,)`. Cut the output into `(bm, bn)` blocks.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import check

# %%
bm, bn = 64, 256  # output block shape


def affine_kernel(x_ref, g_ref, b_ref, o_ref):
    # trace-time checks: every step must see one block, not the whole arrays
    assert x_ref.shape == (bm, bn), f"x_ref is {x_ref.shape}; it should be one ({bm}, {bn}) block"
    assert g_ref.shape == (bn,), f"g_ref is {g_ref.shape}; it should be one ({bn},) block"
    assert b_ref.shape == (bn,), f"b_ref is {b_ref.shape}; it should be one ({bn},) block"
    o_ref[...] = x_ref[...] * g_ref[...] + b_ref[...]


def affine(x, g, b):
    M, N = x.shape
    # YOUR CODE BEGIN
    # the whole arrays in one step: replace with a grid of (bm, bn) output blocks
    grid = ()
    in_specs = [pl.BlockSpec(), pl.BlockSpec(), pl.BlockSpec()]
    out_specs = pl.BlockSpec()
    # YOUR CODE END
    return pl.pallas_call(
        affine_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), x.dtype),
        grid=grid,
        in_specs=in_specs,
        out_specs=out_specs,
        interpret=True,
    )(x, g, b)


# %%
x = jax.random.normal(jax.random.key(50), (256, 512))
g = jax.random.uniform(jax.random.key(51), (512,)) + 0.5
b = jax.random.normal(jax.random.key(52), (512,))
check(affine(x, g, b), x * g + b, name="4 x 2 grid")

x = jax.random.normal(jax.random.key(53), (128, 768))
g = jax.random.uniform(jax.random.key(54), (768,)) + 0.5
b = jax.random.normal(jax.random.key(55), (768,))
check(affine(x, g, b), x * g + b, name="2 x 3 grid")

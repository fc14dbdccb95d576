# %% [markdown]
# # Batched matmul
#
# **Goal:** multiply `B` pairs of matrices at once, `o[b] = x[b] @ y[b]`, reusing a plain 2-D
# matmul body by squeezing the batch dimension out of the blocks.
#
# ## A batch is one more grid axis
#
# `x` has shape `(B, M, K)` and `y` has shape `(B, K, N)`. The `B` products are independent, so
# the batch becomes a grid axis: step `(b, i)` computes block row `i` of product `b`. Here the
# whole `K` and `N` fit in one block, so there is no reduction axis and no accumulator: each
# step computes its output block in one go.
#
# ## `None` in a block shape: squeeze a dimension away
#
# Each step needs one matrix of the batch: a block of `x` of shape `(1, bm, K)`. With the block
# shape `(1, bm, K)` the kernel's ref really has three dimensions, and a 2-D kernel body breaks:
# `jnp.dot` on 3-D arrays is not a batched product.
#
# Writing `None` instead of `1` in the block shape means "a block of size 1 along this
# dimension, and leave the dimension out of the ref". With `(None, bm, K)` the kernel sees
# `x_ref` of shape `(bm, K)`, exactly what a 2-D matmul body expects.
#
# The index map still returns one entry per array dimension, three here. For a squeezed
# dimension the entry is the position along that dimension (with a block size of 1, the block
# index and the element index are the same number). A worked example with `bm = 2` and
# `(None, bm, K)`:
#
# | grid step `(b, i)` | index map returns | the kernel's `x_ref` holds |
# |---|---|---|
# | `(0, 0)` | `(0, 0, 0)` | `x[0, 0:2, :]`, shape `(2, K)` |
# | `(0, 1)` | `(0, 1, 0)` | `x[0, 2:4, :]` |
# | `(1, 0)` | `(1, 0, 0)` | `x[1, 0:2, :]` |
#
# A block dimension that covers the whole array dimension (here `K`) has only one block, so
# its index is always 0.
#
# Squeezing is everywhere in production kernels: attention kernels squeeze the batch and head
# dimensions so that the body works on one `(T, H)` matrix at a time.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import check

# %%
bm = 128  # rows of the output per block


def batched_matmul_kernel(x_ref, y_ref, o_ref):
    # trace-time checks: the batch dimension must be squeezed out of every ref
    shapes = f"x_ref {x_ref.shape}, y_ref {y_ref.shape}, o_ref {o_ref.shape}"
    assert len(x_ref.shape) == len(y_ref.shape) == len(o_ref.shape) == 2, (
        f"{shapes}: every ref should be 2-D; squeeze the batch dimension out of the blocks")
    assert x_ref.shape[0] == o_ref.shape[0] == bm, f"{shapes}: x_ref and o_ref should hold bm rows"
    # YOUR CODE BEGIN
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...])
    # YOUR CODE END


def batched_matmul(x, y):
    B, M, K = x.shape
    _, _, N = y.shape
    # YOUR CODE BEGIN
    x_spec = pl.BlockSpec((None, bm, K), lambda b, i: (b, i, 0))
    y_spec = pl.BlockSpec((None, K, N), lambda b, i: (b, 0, 0))
    o_spec = pl.BlockSpec((None, bm, N), lambda b, i: (b, i, 0))
    # YOUR CODE END
    return pl.pallas_call(
        batched_matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((B, M, N), jnp.float32),
        grid=(B, M // bm),
        in_specs=[x_spec, y_spec],
        out_specs=o_spec,
        interpret=True,
    )(x, y)


# %%
x = jax.random.normal(jax.random.key(90), (3, 256, 128))
y = jax.random.normal(jax.random.key(91), (3, 128, 128))
expected = jnp.einsum("bmk,bkn->bmn", x, y)
check(batched_matmul(x, y), expected, atol=1e-3, rtol=1e-3, name="B=3, grid (3, 2)")

x = jax.random.normal(jax.random.key(92), (2, 256, 128))
y = jax.random.normal(jax.random.key(93), (2, 128, 256))
expected = jnp.einsum("bmk,bkn->bmn", x, y)
check(batched_matmul(x, y), expected, atol=1e-3, rtol=1e-3, name="B=2, grid (2, 2)")

# %% [markdown]
# # Outer product
#
# **Goal:** compute `o[r, c] = a[r] * b[c]` from two vectors, on a 2-D grid of output blocks.
# You write the two input index maps and the kernel.
#
# ## Operands do not have to look like the grid
#
# So far every operand had the same shape as the output and the same index map. Nothing
# requires that. The grid describes the *work* (here: one step per output block), and each
# operand's BlockSpec says which of its own blocks that work needs. An operand may have a
# different rank from the grid, and its index map may ignore grid axes it does not depend on.
#
# For the outer product, output block `(i, j)` covers rows `i*bm : (i+1)*bm` and columns
# `j*bn : (j+1)*bn`. Its values need:
#
# - the `bm` entries of `a` for those rows: block `i` of `a`, whatever `j` is;
# - the `bn` entries of `b` for those columns: block `j` of `b`, whatever `i` is.
#
# So `a`'s index map takes `(i, j)` and returns a 1-D block index that uses only `i`, and
# `b`'s uses only `j`. An index map always receives every grid index, even the ones it ignores.
#
# ![output block (i, j) needs block i of a and block j of b (drawn by `pallas-puzzles diagram 1.5 --all-steps`)](../../images/basics_outer_steps.svg)
#
# A nice side effect: on a grid `(gm, gn)` the block of `a` stays the same for `gn` consecutive
# steps. Pallas notices that the block index did not change and skips the copy from HBM, so each
# block of `a` is fetched only once.
#
# ## Broadcasting inside the kernel
#
# The kernel gets `a_ref` of shape `(bm,)` and `b_ref` of shape `(bn,)`, and must store a
# `(bm, bn)` block. Loaded values are ordinary arrays, so NumPy broadcasting applies: give the
# values the shapes `(bm, 1)` and `(1, bn)` (with `[:, None]` and `[None, :]`), and their
# product is `(bm, bn)`. A worked example: `[1, 2][:, None] * [10, 20, 30][None, :]` is
# `[[10, 20, 30], [20, 40, 60]]`.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import check

# %%
bm, bn = 128, 256  # output block shape: bm rows, bn columns


def outer_kernel(a_ref, b_ref, o_ref):
    # a_ref: (bm,), b_ref: (bn,), o_ref: (bm, bn)
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def outer(a, b):
    (M,) = a.shape
    (N,) = b.shape
    # YOUR CODE BEGIN
    # every step reads block 0 of each vector: fix both index maps
    a_spec = pl.BlockSpec((bm,), lambda i, j: (0,))
    b_spec = pl.BlockSpec((bn,), lambda i, j: (0,))
    # YOUR CODE END
    return pl.pallas_call(
        outer_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), a.dtype),
        grid=(M // bm, N // bn),
        in_specs=[a_spec, b_spec],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(a, b)


# %%
a = jax.random.normal(jax.random.key(40), (256,))
b = jax.random.normal(jax.random.key(41), (512,))
check(outer(a, b), jnp.einsum("m,n->mn", a, b), name="2 x 2 grid")

a = jax.random.normal(jax.random.key(42), (384,))
b = jax.random.normal(jax.random.key(43), (768,))
check(outer(a, b), jnp.einsum("m,n->mn", a, b), name="3 x 3 grid")

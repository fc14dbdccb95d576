# %% [markdown]
# # Reversed blocks
#
# **Goal:** without touching the kernel, make every grid step add block `i` of `x` to the block
# of `y` counted from the *other* end.
#
# ## The index map is the whole story
#
# In puzzle 2 the kernel never knew where its blocks came from. That is a feature: the kernel
# says *what* to compute on a block, and the BlockSpecs say *which* blocks meet at each step.
# You can rearrange data movement without editing a line of the kernel.
#
# The index map is a small function of the grid indices, evaluated for every grid step. It
# is traced like the kernel, so it may do any arithmetic on the indices (but not a Python `if`
# on them). With `n` blocks:
#
# - `lambda i: (i,)` visits blocks `0, 1, ..., n-1`;
# - a map that visits `n-1, ..., 1, 0` makes step 0 see the **last** block.
#
# ![step i pairs block i of x and of o with block n-1-i of y (drawn by `pallas-puzzles diagram 1.3 --all-steps`)](../../images/basics_reversed_steps.svg)
#
# A worked example with `n = 4` blocks of `y` named `y0 y1 y2 y3`:
#
# | grid step | block of `x` | block of `y` | output block |
# |---|---|---|---|
# | 0 | `x0` | `y3` | `x0 + y3` |
# | 1 | `x1` | `y2` | `x1 + y2` |
# | 2 | `x2` | `y1` | `x2 + y1` |
# | 3 | `x3` | `y0` | `x3 + y0` |
#
# Note that only the *order of the blocks* is reversed: inside a block the elements keep their
# order. That is different from `y[::-1]`.
#
# On a real TPU an index map must stay inside the array: a block index of `n` or `-1` reads or
# writes memory that is not yours. Real JAX with `interpret=True` quietly clamps such an index to
# the last block, which hides the bug; `pallas-puzzles` stops with an error instead.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import check

# %%
bm = 128  # elements per block


def add_kernel(x_ref, y_ref, o_ref):
    # the kernel of puzzle 2, unchanged
    o_ref[...] = x_ref[...] + y_ref[...]


def reversed_block_add(x, y):
    (N,) = x.shape
    n = N // bm  # number of blocks
    x_spec = pl.BlockSpec((bm,), lambda i: (i,))
    # YOUR CODE BEGIN
    y_spec = pl.BlockSpec((bm,), lambda i: (n - 1 - i,))
    # YOUR CODE END
    o_spec = pl.BlockSpec((bm,), lambda i: (i,))
    return pl.pallas_call(
        add_kernel,
        out_shape=jax.ShapeDtypeStruct((N,), x.dtype),
        grid=(n,),
        in_specs=[x_spec, y_spec],
        out_specs=o_spec,
        interpret=True,
    )(x, y)


def reversed_block_add_reference(x, y):
    # cut y into rows of bm elements, flip the order of the rows, flatten again
    return x + y.reshape(-1, bm)[::-1].reshape(-1)


# %%
x = jax.random.uniform(jax.random.key(20), (512,))
y = jax.random.normal(jax.random.key(21), (512,))
check(reversed_block_add(x, y), reversed_block_add_reference(x, y), name="4 blocks")

x = jax.random.uniform(jax.random.key(22), (768,))
y = jax.random.normal(jax.random.key(23), (768,))
check(reversed_block_add(x, y), reversed_block_add_reference(x, y), name="6 blocks")

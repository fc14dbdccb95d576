# %% [markdown]
# # Tiled vector add
#
# **Goal:** add two vectors, one block at a time, with a grid and BlockSpecs.
#
# ## Why cut arrays into blocks?
#
# In puzzle 1 the whole array went to VMEM in one piece. That stops working quickly: VMEM holds
# tens of MiB, while a single activation matrix can be hundreds. There is a second reason even
# when things fit: copying from HBM takes time. If the kernel handles the array in blocks, Pallas
# can copy block `i + 1` into VMEM *while* the kernel computes on block `i`, so the copies hide
# behind the compute. This overlap is called **pipelining**, and it is why nearly every TPU kernel
# is written over a grid of blocks.
#
# ## The grid
#
# `grid=(4,)` asks Pallas to run the kernel 4 times. On a TPU core these runs happen **one after
# another**, like the body of a loop `for i in range(4)`, not in parallel. Each run is called a
# *grid step* (or a program), and `i` is its index on grid axis 0.
#
# ## BlockSpec: which block each step sees
#
# `pl.BlockSpec(block_shape, index_map)` describes one operand:
#
# - `block_shape` is the shape of the piece the kernel sees: the kernel's ref has this shape.
# - `index_map` is a function from the grid indices to the **block index**: *which* piece.
#   The piece starts at element `block_index * block_size`. The index map counts in blocks,
#   not in elements.
#
# `in_specs` lists one BlockSpec per input and `out_specs` gives the one for the output.
# Before step `i` Pallas copies the input blocks chosen by the index maps into VMEM; after the
# step it copies the output block back to its place in HBM.
#
# ![grid step i: block i of x, y and o is in VMEM (drawn from this puzzle's call by `pallas-puzzles diagram 1.2 --all-steps`)](../../images/basics_vector_add_steps.svg)
#
# A worked example, `N = 8`, `bm = 2`, `grid=(4,)`, index map `lambda i: (i,)`:
#
# | grid step `i` | block index | elements the refs hold |
# |---|---|---|
# | 0 | 0 | `x[0:2]` |
# | 1 | 1 | `x[2:4]` |
# | 2 | 2 | `x[4:6]` |
# | 3 | 3 | `x[6:8]` |
#
# Notice what the kernel does *not* see: its own position. It gets refs of shape `(bm,)` and
# does not know which part of `x` they came from. For an elementwise operation it does not
# need to; the BlockSpecs did the indexing.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import check

# %%
bm = 128  # elements per block


def add_kernel(x_ref, y_ref, o_ref):
    # x_ref, y_ref, o_ref: (bm,) blocks in VMEM, all for the same grid step
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def vector_add(x, y):
    (N,) = x.shape
    spec = pl.BlockSpec((bm,), lambda i: (i,))
    return pl.pallas_call(
        add_kernel,
        out_shape=jax.ShapeDtypeStruct((N,), x.dtype),
        grid=(N // bm,),
        in_specs=[spec, spec],
        out_specs=spec,
        interpret=True,
    )(x, y)


# %%
x = jax.random.uniform(jax.random.key(10), (1024,))
y = jax.random.normal(jax.random.key(11), (1024,))
check(vector_add(x, y), x + y, name="vector add, 8 blocks")

x = jax.random.uniform(jax.random.key(12), (384,))
y = jax.random.normal(jax.random.key(13), (384,))
check(vector_add(x, y), x + y, name="vector add, 3 blocks")

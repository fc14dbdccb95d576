# %% [markdown]
# # Constant add
#
# **Goal:** write your first Pallas kernel: add 10 to every element of an array.
#
# ## Why write kernels at all?
#
# Plain `jnp` code is compiled by XLA, which decides for you where every array lives and how
# every loop is cut into pieces. Most of the time it decides well. When it does not (attention,
# grouped matmuls for mixture-of-experts, losses over a huge vocabulary), you drop one level
# down and write a **kernel**: the function that a TPU core runs, together with a description
# of which pieces of the arrays it sees. Pallas is JAX's language for that level. This chapter
# builds it up from the smallest kernel there is.
#
# ## The TPU picture
#
# Three memories of a TPU core matter for kernels:
#
# - **HBM** (high-bandwidth memory): large (many GiB) and off the core. Every JAX array
#   lives here between operations.
# - **VMEM** (vector memory): small (tens of MiB), on the core, and very fast. The vector unit
#   and the matrix unit (MXU) compute only on data that sits in VMEM.
# - **SMEM** (scalar memory): tiny, for single numbers such as indices and counters. It appears
#   in later chapters.
#
# Your kernel never touches HBM. Before it runs, Pallas copies each input from HBM into a VMEM
# buffer; after it returns, Pallas copies each output buffer back to HBM. The kernel only
# reads and writes the VMEM buffers.
#
# ![inputs are copied HBM to VMEM, the kernel runs, outputs are copied back](../../images/basics_memory.svg)
#
# ## Refs: how a kernel sees its buffers
#
# A kernel receives one **ref** per input and then one per output, in that order. A ref is a
# handle to a mutable buffer, not an array value:
#
# - `x_ref[...]` **loads** the whole buffer and gives you an ordinary array to compute with;
# - `o_ref[...] = value` **stores** an array of the buffer's shape into it.
#
# A kernel returns nothing. Its result is whatever it stored into its output refs, so a kernel
# that forgets to store leaves the output buffer holding garbage.
#
# ## `pallas_call`: from a kernel to a function on arrays
#
# `pl.pallas_call(kernel, out_shape=...)` wraps a kernel into a function you call on arrays.
# `out_shape` is a `jax.ShapeDtypeStruct(shape, dtype)` per output, because Pallas cannot guess
# what a kernel is going to write. With no `grid` argument (the same as `grid=()`) the kernel
# runs exactly once and every ref holds the whole array.
#
# `interpret=True` lets the same file run under real JAX on a CPU. `pallas-puzzles` accepts it
# and ignores it: it always runs your kernel on its emulated TPU core.
#
# A worked example that is *not* this puzzle, a kernel that negates its input:
#
# ```python
# def negate_kernel(x_ref, o_ref):
#     o_ref[...] = -x_ref[...]
#
# y = pl.pallas_call(negate_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
# ```

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import check

# %%
def add_ten_kernel(x_ref, o_ref):
    # x_ref: the whole input in VMEM; o_ref: the whole output in VMEM, same shape
    # YOUR CODE BEGIN
    o_ref[...] = x_ref[...] + 10.0
    # YOUR CODE END


def add_ten(x):
    return pl.pallas_call(
        add_ten_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        interpret=True,
    )(x)


# %%
x = jax.random.uniform(jax.random.key(0), (8, 128))
check(add_ten(x), x + 10.0, name="constant add")

# The same kernel on a vector: a ref takes the shape of whatever array it is given.
x = jax.random.normal(jax.random.key(1), (300,))
check(add_ten(x), x + 10.0, name="constant add, a vector")

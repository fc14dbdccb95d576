# %% [markdown]
# # One copy: an HBM ref and a window with a halo
#
# **Goal:** compute a three-row moving sum, `o[r] = x[r] + x[r + 1] + x[r + 2]`, where each grid
# step copies the rows it needs out of HBM itself, with one asynchronous copy (a DMA).
#
# ## What the BlockSpec pipeline did for you
#
# In every kernel so far, Pallas moved the data. A `BlockSpec` says which block of an operand
# grid step `i` needs, and the pipeline copies that block from HBM into a VMEM buffer before the
# step runs. While step `i` computes, it is already copying the blocks of step `i + 1` into a
# second buffer; that is why the `--stats` line says "blocks double-buffered". Outputs travel
# the other way after the step. The copies are done by the core's **DMA engines** (direct memory
# access): hardware that moves bytes between memories while the vector and matrix units compute.
# When a kernel is limited by memory traffic, hiding the copies behind the compute is most of
# the speed.
#
# The automatic pipeline is convenient, but it does one thing only: per operand and per step, it
# moves one rectangular block of a fixed shape, normally at a multiple of the block shape. Real
# kernels often want more:
#
# - **windows that overlap**, such as a convolution or a moving sum whose blocks need a few rows
#   of their neighbours (a *halo*), as here;
# - **scattered pieces**: the pages of a key/value cache listed in a page table (puzzle 2);
# - **control over timing**: prefetching further ahead, or from inside a loop (puzzles 3 and 4);
# - **reuse**: keeping data in VMEM across steps instead of fetching it again.
#
# For those you take over the copies yourself.
#
# ## HBM refs: `memory_space=pl.ANY`
#
# `pl.BlockSpec(memory_space=pl.ANY)` tells the pipeline to leave an operand alone: the kernel
# receives a ref to the **whole array where it already lives**, normally HBM. By convention we
# name such refs `*_hbm`. On a TPU the vector unit cannot load from HBM: `x_hbm[...]` is an error
# (the emulator reports it, as the TPU compiler does). What you *can* do with an HBM ref is take a
# view of part of it, `x_hbm.at[pl.ds(start, size)]`, and hand that view to a DMA.
#
# ## One DMA: start, then wait
#
# ```python
# copy = pltpu.make_async_copy(src_ref, dst_ref, sem)   # describe the copy; nothing moves yet
# copy.start()                                          # hand it to a DMA engine; returns at once
# ...                                                   # free to do unrelated work here
# copy.wait()                                           # block until the bytes have landed
# ```
#
# - `src_ref` and `dst_ref` are refs or `.at[...]` views of the same shape and dtype. A DMA
#   copies bytes; it never converts or broadcasts.
# - `sem` is a **DMA semaphore**, a counter that the DMA engine increases as the bytes arrive. Ask
#   for one with `pltpu.SemaphoreType.DMA` in `scratch_shapes`; the kernel receives it after the
#   other scratch refs.
# - `.wait()` blocks until the semaphore holds this copy's size, then subtracts it, so the
#   semaphore is back at zero.
#
# Between `start` and `wait` the destination holds undefined data: the copy may be half done.
# Reading the destination, or writing the source, in that window is a **race**. Keeping that
# rule is most of this chapter; nearly every DMA mistake breaks it in some way.
#
# ![each grid step copies an overlapping window of x out of HBM into a VMEM scratch buffer](../../images/dma_one_copy.svg)
#
# ## How the emulator runs DMAs
#
# `pallas-puzzles` runs each copy lazily, **at the wait that needs it** (`--dma on_wait`, the
# default, the same choice as JAX's TPU interpret mode). A forgotten wait therefore leaves the
# destination unwritten, which shows up loudly instead of "working by luck". Until the wait, the
# race detector treats the copy as in flight, and any read of its destination is an error that
# names both lines. At the end of the kernel every copy must have been waited, as on a TPU.
#
# The `pallas_call`s of this chapter say `interpret=pltpu.InterpretParams()`, real JAX's **TPU
# interpret mode**, which models DMAs and semaphores the same way, so the notebooks behave like
# the emulator. Plain `interpret=True` performs every copy the moment it starts and never
# blocks, which would hide every bug this chapter is about.
#
# ## Your task
#
# Output block `i` holds rows `i * bm` to `i * bm + bm - 1`. Its moving sum needs two more rows
# of `x` below the block, so `x` carries 8 rows of padding at the bottom and each step copies a
# window of `bm + 8` rows (a whole number of 8-row tiles) into `buf`. The windows of neighbouring
# steps overlap, which blocked `BlockSpec`s cannot express. Start the copy, wait for it, then
# compute the sum from three row-shifted slices of `buf`.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bm = 64    # output rows per grid step
halo = 8   # extra rows copied below each block (the sum needs 2; a DMA of whole 8-row tiles)


def moving_sum_kernel(x_hbm, o_ref, buf, sem):
    # x_hbm: the whole (N + halo, C) input in HBM; o_ref: (bm, C) VMEM output block
    # buf: (bm + halo, C) VMEM scratch; sem: a DMA semaphore
    i = pl.program_id(0)
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def moving_sum(x):
    n, c = x.shape[0] - halo, x.shape[1]
    return pl.pallas_call(
        moving_sum_kernel,
        out_shape=jax.ShapeDtypeStruct((n, c), x.dtype),
        grid=(n // bm,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((bm, c), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((bm + halo, c), x.dtype), pltpu.SemaphoreType.DMA],
        interpret=pltpu.InterpretParams(),
    )(x)


def reference(x):
    n = x.shape[0] - halo
    return x[0:n] + x[1:n + 1] + x[2:n + 2]


# %%
x = jax.random.normal(jax.random.key(500), (256 + halo, 128))
check(moving_sum(x), reference(x), atol=1e-5, name="4 steps")

x = jax.random.normal(jax.random.key(501), (64 + halo, 256))
check(moving_sum(x), reference(x), atol=1e-5, name="1 step, 256 columns")

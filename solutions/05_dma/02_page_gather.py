# %% [markdown]
# # Several copies in flight: gathering pages
#
# **Goal:** gather the pages of a paged key/value cache into one contiguous block per sequence,
# with all the page copies of a step in flight at the same time, one DMA semaphore each.
#
# ## Paged memory
#
# A language model that serves many requests at once keeps the keys and values of every
# sequence in a **paged cache**: one big array of fixed-size pages, handed out to sequences as
# they grow, much like an operating system hands out memory pages. A **page table** lists, for
# every sequence, which pages hold its rows, in order. The pages of one sequence can sit anywhere
# in the cache, in any order:
#
# ```
# pages:       (num_pages, page_rows, C)   the cache, in HBM
# page_table:  (num_seqs, pages_per_seq)   int32: page_table[s, j] is the j-th page of sequence s
# out[s]:      pages[page_table[s, 0]], pages[page_table[s, 1]], ...   stacked into rows
# ```
#
# No `BlockSpec` fetches "these 4 scattered pages" as one block, but 4 DMAs do it easily. This
# gather is the first thing a paged-attention kernel does in every step.
#
# ## The page table lives in SMEM
#
# Which pages to copy is data, known only when the kernel runs. The `pallas_call` (written for
# you) passes the page table as a **scalar-prefetch** operand with
# `pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, ...)`: the table is copied into SMEM
# before the grid starts and arrives as the kernel's *first* argument, `table_ref`. Read one
# entry as a scalar, `table_ref[s, j]`, and use it as an index into the HBM ref:
# `pages_hbm.at[page]` is that page, a `(page_rows, C)` view. (Index maps receive the table
# too, as an extra argument after the grid indices; the output's index map here ignores it.)
#
# ## Many copies at once
#
# A TPU core has several DMA engines, and one copy rarely keeps them all busy. Issue every copy
# first and wait afterwards, so they overlap:
#
# ```python
# for j in range(n):        # a Python loop: unrolled while tracing, n is static
#     copy_j.start()        # all n copies in flight
# for j in range(n):
#     copy_j.wait()         # then collect them
# ```
#
# Starting and waiting one copy at a time would work too, but each copy would sit alone in the
# engines, and the total time would be the sum of all the latencies instead of roughly one.
# `pallas-puzzles run --timeline FILE` shows the order for the solution; the first grid step of
# the first check, wrapped at each `;`:
#
# ```
# (0,): start pages_hbm[5] -> o_ref[0:8] on sems[0] 4096B @113;
#       start pages_hbm[2] -> o_ref[8:16] on sems[1] 4096B @113;
#       start pages_hbm[11] -> o_ref[16:24] on sems[2] 4096B @113;
#       start pages_hbm[7] -> o_ref[24:32] on sems[3] 4096B @113;
#       wait sems[0] 4096B @116;
#       wait sems[1] 4096B @116;
#       wait sems[2] 4096B @116;
#       wait sems[3] 4096B @116
# ```
#
# ![four page copies in flight at once, each on its own semaphore of the array](../../images/dma_page_gather.svg)
#
# ## Semaphore arrays, and what a wait consumes
#
# `pltpu.SemaphoreType.DMA((n,))` in `scratch_shapes` gives an **array** of `n` DMA semaphores;
# `sems.at[j]` is the single semaphore that a copy needs. Recall that a wait blocks until its
# semaphore holds *this copy's* byte count and then subtracts exactly that. So:
#
# - with one semaphore per copy, `copy_j.wait()` waits for copy `j` and nothing else;
# - copies of equal size may also share one semaphore. Then each wait takes one copy's worth of
#   bytes, and `n` waits are needed to collect `n` copies, but no single wait tells you *which*
#   copy has landed, only that enough bytes have. Read nothing until all `n` waits are done.
#   JAX's paged-attention kernel gathers its pages this way, on one semaphore.
# - a wait with nothing left to count can never finish: on a TPU it hangs forever, and the
#   emulator reports it as a deadlock.
#
# ## DMAs straight into an output block
#
# A DMA destination can be any VMEM ref, including a pipelined output block: here the pages go
# straight into `o_ref.at[pl.ds(j * page_rows, page_rows)]`, with no scratch buffer in between.
# The one condition: such copies must be waited within the same grid step, because after the
# step the pipeline writes the block back to HBM.
#
# ## Your task
#
# Write `gather_kernel`: for grid step `s`, start one copy per page of sequence `s`, each on its
# own semaphore `sems.at[j]`, then wait for all of them.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
page_rows = 8  # rows per page


def gather_kernel(table_ref, pages_hbm, o_ref, sems):
    # table_ref: (num_seqs, pages_per_seq) int32 in SMEM; pages_hbm: the whole cache in HBM
    # o_ref: (pages_per_seq * page_rows, C) VMEM output block of sequence s
    # sems: pages_per_seq DMA semaphores
    s = pl.program_id(0)
    pages_per_seq = table_ref.shape[1]
    # YOUR CODE BEGIN
    copies = []
    for j in range(pages_per_seq):
        page = table_ref[s, j]
        copy = pltpu.make_async_copy(pages_hbm.at[page],
                                     o_ref.at[pl.ds(j * page_rows, page_rows)], sems.at[j])
        copy.start()
        copies.append(copy)
    for copy in copies:
        copy.wait()
    # YOUR CODE END


def gather_pages(pages, page_table):
    num_seqs, pages_per_seq = page_table.shape
    c = pages.shape[2]
    rows = pages_per_seq * page_rows
    return pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct((num_seqs, rows, c), pages.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(num_seqs,),
            in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
            out_specs=pl.BlockSpec((None, rows, c), lambda s, table: (s, 0, 0)),
            scratch_shapes=[pltpu.SemaphoreType.DMA((pages_per_seq,))],
        ),
        interpret=pltpu.InterpretParams(),
    )(page_table, pages)


def reference(pages, page_table):
    num_seqs, pages_per_seq = page_table.shape
    return pages[page_table].reshape(num_seqs, pages_per_seq * page_rows, pages.shape[2])


# %%
# 3 sequences of 4 pages each, scattered over a cache of 16 pages.
pages = jax.random.normal(jax.random.key(510), (16, page_rows, 128))
page_table = jnp.array([[5, 2, 11, 7], [0, 13, 9, 3], [15, 6, 1, 10]], dtype=jnp.int32)
check(gather_pages(pages, page_table), reference(pages, page_table), name="3 sequences")

# 2 sequences of 6 pages, and one page that both sequences share (a common prompt prefix).
pages = jax.random.normal(jax.random.key(511), (12, page_rows, 256))
page_table = jnp.array([[4, 8, 1, 11, 0, 6], [4, 3, 10, 2, 7, 9]], dtype=jnp.int32)
check(gather_pages(pages, page_table), reference(pages, page_table), name="shared first page")

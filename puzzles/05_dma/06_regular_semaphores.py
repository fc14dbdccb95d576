# %% [markdown]
# # Regular semaphores: handing a carry from step to step
#
# **Goal:** a running sum down the rows of `x` (a cumulative sum along axis 0), one block of rows
# per grid step, where each step hands its running total to the next through a scratch buffer,
# and a **regular semaphore** says when the handoff is ready.
#
# ## Semaphores without DMAs
#
# A DMA semaphore is counted up by the DMA engine and down by `.wait()`. A **regular semaphore**
# is the same kind of counter, but the kernel moves it itself:
#
# ```python
# pl.semaphore_signal(sem, inc=1)    # add inc to the count; never blocks
# pl.semaphore_wait(sem, value=1)    # block until the count is at least value, then subtract it
# pl.semaphore_read(sem)             # the current count, as an int32 scalar (for debugging)
# ```
#
# Ask for one with `pltpu.SemaphoreType.REGULAR` in `scratch_shapes` (or `.REGULAR((n,))` for an
# array). The two kinds are not interchangeable: `pl.semaphore_wait` on a DMA semaphore, or a copy
# descriptor's `.wait()` on a regular one, is an error.
#
# ## What they are for
#
# A signal says "something I did is now visible", and the matching wait says "do not go on until
# it is". That ordering is what producers and consumers on **different cores or chips** need:
# one core fills a buffer and signals, another waits and then reads it. The collective kernels of
# multi-chip Pallas (all-reduce, all-gather, ring matmuls) are built on exactly this, with each
# chip signalling its neighbour's semaphore that a buffer is ready or free again.
#
# The emulator runs a single core, whose grid steps already run in order, so here the semaphore
# only models the protocol. But the protocol is the hard part, and its bookkeeping rules are the
# same everywhere:
#
# - **every signal needs a matching wait.** A count left above zero when the kernel ends crashes
#   the program on a TPU; the emulator reports the signal that was never consumed.
# - **never wait for a signal that cannot come.** A wait with nobody left to signal hangs forever;
#   the emulator, knowing that only one core runs, reports it as a deadlock instead.
# - **publish, then signal.** Write the data first and signal after, so a consumer that wakes up
#   finds it complete.
#
# ![each step but the last publishes its total and signals; each step but the first waits, then reads](../../images/dma_semaphore_handoff.svg)
#
# ## A scan, block by block
#
# Split `x` into blocks of `bm` rows. Step `i` computes the running sum *within* its block, then
# adds the total of everything above it, the **carry**: the last row of step `i - 1`'s result.
# This is how scans (cumulative sums, and the recurrences of linear-attention and state-space
# models) are parallelised in real kernels: blocks compute locally and pass a small carry along.
#
# The running sum within a block is written for you as one small matmul with a lower-triangular
# matrix of ones (row `r` of the result adds rows `0..r` of the block), which keeps it on the MXU.
#
# ## Your task
#
# The consumer side is written for you: every step but the first waits for `ready` before it
# reads `carry_ref`, a `(1, C)` scratch row. Write the two other parts of the handoff:
#
# 1. the first step has no predecessor, so nobody publishes a carry for it: start it at zero;
# 2. every step but the last publishes its final row into `carry_ref`, then signals `ready`.
#
# Count the signals and the waits before you run it: they must match exactly.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bm = 64  # rows per grid step


def cumsum_kernel(x_ref, o_ref, carry_ref, ready):
    # x_ref, o_ref: (bm, C) blocks; carry_ref: (1, C) VMEM scratch; ready: a regular semaphore
    i = pl.program_id(0)
    n = pl.num_programs(0)
    rows = jax.lax.broadcasted_iota(jnp.int32, (bm, bm), 0)
    cols = jax.lax.broadcasted_iota(jnp.int32, (bm, bm), 1)
    lower = (rows >= cols).astype(jnp.float32)
    local = jnp.dot(lower, x_ref[...], preferred_element_type=jnp.float32)  # sums within the block
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END

    @pl.when(i > 0)
    def _receive():
        pl.semaphore_wait(ready)  # until the previous step has published its carry

    total = local + carry_ref[...]
    o_ref[...] = total

    # YOUR CODE BEGIN
    # publish this step's carry for the next step, then signal
    pl.semaphore_signal(ready)
    # YOUR CODE END


def cumsum(x):
    n, c = x.shape
    return pl.pallas_call(
        cumsum_kernel,
        out_shape=jax.ShapeDtypeStruct((n, c), jnp.float32),
        grid=(n // bm,),
        in_specs=[pl.BlockSpec((bm, c), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((bm, c), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((1, c), jnp.float32), pltpu.SemaphoreType.REGULAR],
        interpret=pltpu.InterpretParams(),
    )(x)


# %%
x = jax.random.uniform(jax.random.key(560), (256, 128))
check(cumsum(x), jnp.cumsum(x, axis=0), atol=1e-3, rtol=1e-4, name="4 steps")

x = jax.random.normal(jax.random.key(561), (448, 256))
check(cumsum(x), jnp.cumsum(x, axis=0), atol=1e-3, rtol=1e-4, name="7 steps")

x = jax.random.normal(jax.random.key(562), (64, 128))
check(cumsum(x), jnp.cumsum(x, axis=0), atol=1e-3, rtol=1e-4, name="1 step: no handoff")

# %% [markdown]
# # Double buffering: fetch the next window while computing this one
#
# **Goal:** the moving sum of puzzle 1 again, but each grid step starts the copy for the *next*
# step before it computes, so the copies hide behind the compute. This is what the BlockSpec
# pipeline does for you, written by hand.
#
# ## Where the time went in puzzle 1
#
# Each step of puzzle 1 started its copy and waited for it straight away, so the core sat idle
# while the bytes travelled, then the DMA engine sat idle while the core computed:
#
# ```
# step 0: [copy 0][sum 0]
# step 1:                [copy 1][sum 1]
# step 2:                               [copy 2][sum 2]
# ```
#
# The copy for step `i + 1` does not depend on anything step `i` computes, so it can be issued
# earlier and run *during* the sum of step `i`:
#
# ```
# copies:  [copy 0][copy 1][copy 2][copy 3]
# compute:         [sum 0 ][sum 1 ][sum 2 ][sum 3]
# ```
#
# For that to be safe, step `i + 1`'s window needs its own buffer: writing it into the buffer that
# step `i` is reading would be a race. Two buffers, used in turn, are enough. Step `i` reads
# **slot** `i % 2` while the copy for step `i + 1` fills slot `(i + 1) % 2`. Scratch buffers and
# semaphores persist across grid steps, so a copy may be started in one step and waited in the
# next.
#
# ![double buffering: while step i sums slot i % 2, the DMA for step i + 1 fills the other slot](../../images/dma_double_buffer.svg)
#
# ## The schedule
#
# Every step does the same three things, except at the two ends of the grid:
#
# 1. **warm-up**, step 0 only: nobody fetched window 0 yet, so start it now;
# 2. **prefetch**, every step but the last: start the copy of window `i + 1` into the other slot;
# 3. **wait** for window `i` (started by the previous step, or by the warm-up) and compute.
#
# The prefetch goes *before* the wait: issued after it, the copy would only begin once the
# current window had landed, and less of its time would be hidden.
#
# ## Waiting on a copy you did not start
#
# Step `i` waits for a copy that step `i - 1` started, and it has no way to reach the descriptor
# that step built: the kernel body is one function that every grid step runs from the top. That
# is fine, because a wait needs only two things from a descriptor: the semaphore to watch and the
# number of bytes to take from it. Build an *equivalent* descriptor, with the same slot and the
# same shape, and wait on that. The helper `window_copy(step, slot)` below builds both kinds.
#
# One semaphore per slot keeps the two copies apart: a wait on slot 0's semaphore can only be
# satisfied by the copy into slot 0.
#
# ## What the emulator records
#
# `pallas-puzzles run --timeline FILE` lists every start and wait per grid step (`@` gives the
# source line). For the solution on a 4-step grid:
#
# ```
# (0,): start x_hbm[0:72] -> buf[0] on sems[0] 18432B @113; start x_hbm[64:136] -> buf[1] on sems[1] 18432B @117; wait sems[0] 18432B @119
# (1,): start x_hbm[128:200] -> buf[0] on sems[0] 18432B @117; wait sems[1] 18432B @119
# (2,): start x_hbm[192:264] -> buf[1] on sems[1] 18432B @117; wait sems[0] 18432B @119
# (3,): wait sems[1] 18432B @119
# ```
#
# Read it as a conveyor belt. The windows `x_hbm[0:72]`, `x_hbm[64:136]`, ... overlap by the
# halo, and land in `buf[0]` and `buf[1]` in turn. Every step waits for the copy that the step
# before it started, and each step's prefetch is in flight while its own sum runs. Every start
# has exactly one matching wait, on the same semaphore and with the same byte count: the warm-up
# pairs with step 0's wait, and the last step starts nothing.
#
# ## Your task
#
# Write the schedule with `pl.when`: the warm-up, the prefetch, then the wait. The sum at the end
# of the kernel is written for you; it reads slot `slot` of `buf`.
#
# Correct numbers are not enough here: a kernel that starts each step's own copy and waits for
# it at once computes the same sums with no overlap at all. So the last check, `check_overlap`,
# asks the emulator how many of the copied bytes were in flight while the kernel computed (it
# watches the kernel's vector loads and stores between each start and its wait): on 7 steps the
# schedule above overlaps 6 copies of 7. Under real JAX that check prints SKIPPED.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check, check_overlap

# %%
bm = 64    # output rows per grid step
halo = 8   # extra rows copied below each block


def moving_sum_kernel(x_hbm, o_ref, buf, sems):
    # x_hbm: (N + halo, C) in HBM; o_ref: (bm, C) output block
    # buf: (2, bm + halo, C) VMEM scratch, two slots; sems: two DMA semaphores, one per slot
    i = pl.program_id(0)
    n = pl.num_programs(0)
    slot = i % 2

    def window_copy(step, slot):
        # the copy of the input window of grid step `step` into buffer slot `slot`
        return pltpu.make_async_copy(x_hbm.at[pl.ds(step * bm, bm + halo)], buf.at[slot],
                                     sems.at[slot])

    # YOUR CODE BEGIN
    pass
    # YOUR CODE END
    o_ref[...] = buf[slot, pl.ds(0, bm)] + buf[slot, pl.ds(1, bm)] + buf[slot, pl.ds(2, bm)]


def moving_sum(x):
    n, c = x.shape[0] - halo, x.shape[1]
    return pl.pallas_call(
        moving_sum_kernel,
        out_shape=jax.ShapeDtypeStruct((n, c), x.dtype),
        grid=(n // bm,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((bm, c), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((2, bm + halo, c), x.dtype), pltpu.SemaphoreType.DMA((2,))],
        interpret=pltpu.InterpretParams(),
    )(x)


def reference(x):
    n = x.shape[0] - halo
    return x[0:n] + x[1:n + 1] + x[2:n + 2]


# %%
x = jax.random.normal(jax.random.key(530), (256 + halo, 64))
check(moving_sum(x), reference(x), atol=1e-5, name="4 steps")

x = jax.random.normal(jax.random.key(531), (448 + halo, 128))
check(moving_sum(x), reference(x), atol=1e-5, name="7 steps (an odd count)")
check_overlap(moving_sum(x), at_least=0.8, name="7 steps: copies overlap the sums")

x = jax.random.normal(jax.random.key(532), (64 + halo, 128))
check(moving_sum(x), reference(x), atol=1e-5, name="1 step: warm-up only")

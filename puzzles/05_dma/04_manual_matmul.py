# %% [markdown]
# # A manually pipelined matmul over HBM inputs
#
# **Goal:** multiply `x` of shape `(M, K)` by `y` of shape `(K, N)`, with both inputs left in HBM
# (`pl.ANY`). Each grid step owns one block of output rows and walks the `K` dimension with a
# `lax.fori_loop`, double-buffering the tiles of *both* inputs inside the loop.
#
# ## A pipeline inside the kernel
#
# Chapter 01's tiled matmul put `k` on the grid, and the BlockSpec pipeline fetched the tiles.
# Here `k` is a loop inside the kernel, so there is no pipeline to lean on: the loop must keep
# its own conveyor belt running. The schedule of puzzle 3 carries over, one level down:
#
# 1. **warm-up**, before the loop: start the copies of the tiles for `k = 0` into slot 0;
# 2. **prefetch**, in iteration `k` unless it is the last: start the tiles for `k + 1` into slot
#    `1 - slot`;
# 3. **wait** for the tiles of `k` in `slot`, and multiply them into the accumulator.
#
# ```
# copies:   [x0 y0][x1 y1][x2 y2][x3 y3]
# compute:         [k = 0][k = 1][k = 2][k = 3] -> o_ref
# ```
#
# Each stage now has two copies, one per input, and each needs its own semaphore per slot. A
# two-dimensional semaphore array keeps them apart: `pltpu.SemaphoreType.DMA((2, 2))`, indexed
# `sems.at[operand, slot]`.
#
# ![the K loop: tiles for k + 1 stream into the other slot of both buffers while the MXU multiplies the tiles for k](../../images/dma_manual_matmul.svg)
#
# Two details that did not come up in puzzle 3:
#
# - **Inside `fori_loop`, `k` is traced.** `slot = k % 2` is a traced value too, which is fine
#   for `.at[slot]` and `sems.at[0, slot]`, but the "is there a next tile" test must be a
#   `pl.when(k + 1 < nk)`, not a Python `if`.
# - **Every DMA still ends inside the grid step.** The loop runs to completion within the step,
#   and so does the pipeline: the warm-up copy is waited by iteration 0, and the last iteration
#   prefetches nothing. Nothing is left in flight when the step ends.
#
# ## When to write this yourself
#
# For a plain matmul the BlockSpec pipeline is just as fast and far less code; this puzzle is
# the exercise, not the recommendation. Manual pipelines pay off when the loop bounds or the
# tile positions depend on data (a ragged batch, a page table), when tiles must be reused across
# iterations, or when one kernel chains several phases and the copies of the next phase should
# start while the current one still computes. JAX also ships a helper for this pattern,
# `pltpu.emit_pipeline`, which runs a BlockSpec-style pipeline inside a kernel; knowing what it
# does underneath is the point here.
#
# ## Your task
#
# Write `matmul_kernel`. A helper that returns the two descriptors of stage `k` in a given slot
# keeps the three places that need them short. Accumulate in float32
# (`preferred_element_type=jnp.float32`) in the loop carry, and store the result into `o_ref` after
# the loop. As in the previous puzzle, `check_overlap` then asks the emulator whether the copies
# really ran beside the products: with a K loop of 4, three stages of four can overlap.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check, check_overlap

# %%
bm, bk = 128, 128  # output rows per grid step; depth of each K tile


def matmul_kernel(x_hbm, y_hbm, o_ref, xbuf, ybuf, sems):
    # x_hbm: (M, K) and y_hbm: (K, N) in HBM; o_ref: (bm, N) output block of grid step m
    # xbuf: (2, bm, bk) and ybuf: (2, bk, N) VMEM scratch, two slots each
    # sems: (2, 2) DMA semaphores, sems.at[0, slot] for x tiles and sems.at[1, slot] for y tiles
    m = pl.program_id(0)
    nk = x_hbm.shape[1] // bk
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def matmul(x, y):
    (m, k), n = x.shape, y.shape[1]
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(m // bm,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((bm, n), lambda i: (i, 0)),
        scratch_shapes=[
            pltpu.VMEM((2, bm, bk), x.dtype),
            pltpu.VMEM((2, bk, n), y.dtype),
            pltpu.SemaphoreType.DMA((2, 2)),
        ],
        interpret=pltpu.InterpretParams(),
    )(x, y)


# %%
x = jax.random.normal(jax.random.key(540), (256, 512))
y = jax.random.normal(jax.random.key(541), (512, 128))
check(matmul(x, y), x @ y, atol=1e-3, rtol=1e-3, name="grid 2, K loop of 4")
check_overlap(matmul(x, y), at_least=0.7, name="K loop of 4: copies overlap the products")

x = jax.random.normal(jax.random.key(542), (128, 384))
y = jax.random.normal(jax.random.key(543), (384, 256))
check(matmul(x, y), x @ y, atol=1e-3, rtol=1e-3, name="grid 1, K loop of 3 (odd)")

x = jax.random.normal(jax.random.key(544), (384, 128)).astype(jnp.bfloat16)
y = jax.random.normal(jax.random.key(545), (128, 128)).astype(jnp.bfloat16)
expected = jnp.dot(x, y, preferred_element_type=jnp.float32)
check(matmul(x, y), expected, atol=1e-2, rtol=1e-2, name="bfloat16 inputs, K loop of 1")

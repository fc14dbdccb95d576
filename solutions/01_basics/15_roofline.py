# %% [markdown]
# # Roofline: why 256-blocks beat 128-blocks, in numbers
#
# **Goal:** predict how fast the tiled matmul of puzzle 8 can possibly run on a TPU v5e, for
# two block sizes, from three numbers you can count on paper: its FLOPs, its HBM bytes and its
# grid steps. Then let the emulator confirm your counts.
#
# ## Two ceilings
#
# A TensorCore cannot compute faster than its matrix unit allows, and cannot move data faster
# than its HBM delivers it. Whichever limit a kernel hits first decides its speed. That gives a
# **lower bound** on the time of one `pallas_call`:
#
# ```
# time >= max(flops / peak_flops, hbm_bytes / hbm_bandwidth) + grid_steps * 0.35 us
# ```
#
# The two terms inside `max` overlap, because the pipeline fetches the next blocks while the
# MXU works on the current ones. The last term is the fixed cost of a grid step (issuing the
# copies, waiting on them, running the loop). This course assumes 0.35 µs per step, the order
# of magnitude usually quoted for Pallas TPU kernels; the real cost depends on the chip and on
# how many operands the pipeline moves, so treat it as a model parameter (`pallas-puzzles
# roofline --step-us` changes it). The numbers for a chip come from
# `pltpu.get_tpu_info_for_chip(pltpu.ChipVersion.TPU_V5E, 1)`, per TensorCore:
# `bf16_ops_per_second` is 197e12 and `mem_bw_bytes_per_second` is 820e9 on v5e.
#
# The ratio of the two ceilings is the **ridge point**: 197e12 / 820e9 = 240 FLOPs per byte on
# v5e. The kernel's own ratio, `flops / hbm_bytes`, is its **arithmetic intensity**. A kernel
# below the ridge point is **memory bound** (more FLOPs per byte would be free); one above it
# is **compute bound**; and a kernel whose steps cost more than their work is
# **step-overhead bound**. Plotted against intensity, the attainable FLOP/s rise along the
# bandwidth line and flatten at the peak, like a roof.
#
# ## Counting the matmul's work
#
# The grid is `(M // bm, N // bn, K // bk)` with `k` innermost, and each step does
# `acc_ref[...] += jnp.dot(x_block, y_block)`:
#
# - **FLOPs.** A `(bm, bk) @ (bk, bn)` product is `bm * bn * bk` multiply-adds, counted as 2
#   FLOPs each, so `2 * bm * bn * bk` per step. The `+=` adds `bm * bn` more (one per element).
#   And each step evaluates the two `pl.when` conditions, `k == 0` and
#   `k == pl.num_programs(2) - 1`: one scalar comparison each, 2 FLOPs per step. They are
#   nothing next to the rest, but the emulator counts every operation, and so will you.
# - **HBM bytes.** The pipeline copies an input block from HBM only when its block index
#   differs from the previous step's. The `x` block index `(i, k)` changes at every step, since
#   `k` moves fastest, and the whole `k` range is walked again for every `j`: `x` is read in
#   full `N // bn` times. Likewise the `y` block `(k, j)`: `M // bm` times. The output block
#   `(i, j)` stays put while `k` runs, and is written once, when it changes:
#   `M * N` floats in all. (With `K // bk == 1` the `x` block would stay put across `j` as
#   well, and be read only once. Not here.)
#
# Multiply element counts by the bytes per element (`x.dtype.itemsize`: 4 for float32) and
# sum.
#
# ## Why a bigger block wins
#
# Each element of `x` that the pipeline fetches is used against `bn` columns of `y` before the
# block leaves VMEM. Double the blocks and every byte fetched does twice the work: with
# `M = N = K` and square float32 blocks of size `b`, the intensity is about `b / 4` FLOPs per
# byte. So 256-blocks halve the HBM traffic of 128-blocks, and take 8 times fewer grid steps.
#
# What stops you from growing them forever:
#
# - **VMEM.** Each input and output block is double-buffered (one copy computing, one in
#   flight), plus the accumulator. 256-blocks in float32 need 1.75 MiB; 1024-blocks would need
#   28 MiB, more than the 16 MiB the compiler grants a kernel by default on v5e (raise it with
#   `pltpu.CompilerParams(vmem_limit_bytes=...)`, up to the 128 MiB the core has).
# - **Tiling.** Blocks come in steps of the (8, 128) tile of a vector register, and should
#   fill the 128 x 128 MXUs of v5e: a product narrower than 128 in its contracting or output
#   dimension leaves part of every pass idle.
# - **Parallelism and warm-up.** Fewer, larger steps leave less to split between the two
#   TensorCores of a megacore chip (v4, v5p), and the first step's copies, which nothing
#   overlaps, grow with the block.
#
# ## What the tool says
#
# `pallas-puzzles roofline 1.15` runs this puzzle's solution and prints the same analysis per
# `pallas_call` (`--tpu v6e` for another generation, `--json` for the numbers):
#
# ```
# roofline on TPU v5e, per TensorCore: 197 TFLOP/s (bf16), 820 GB/s HBM, ridge point 240 flop/B, 128 MiB VMEM; 0.35 µs per grid step
#
# [1] matmul_kernel at 15_roofline.py:145: grid (8, 8, 8), 512 grid steps
#     FLOPs        2.16 G (MXU 2.15 G, VPU 8.39 M), transcendentals 0
#     HBM          67.1 MB read, 4.19 MB written
#     intensity    30.2 flop/B (below the ridge point, 240)
#     time         >= 266 µs = max(compute 10.9 µs, memory 87 µs) + 512 steps x 350 ns
#     bound by     per-step overhead: the grid steps cost more than their work; larger blocks mean fewer steps
#     VMEM         448 KiB of 128 MiB (0.3%)
#
# [2] matmul_kernel at 15_roofline.py:145: grid (4, 4, 4), 64 grid steps
#     FLOPs        2.15 G (MXU 2.15 G, VPU 4.19 M), transcendentals 0
#     HBM          33.6 MB read, 4.19 MB written
#     intensity    57 flop/B (below the ridge point, 240)
#     time         >= 68.4 µs = max(compute 10.9 µs, memory 46 µs) + 64 steps x 350 ns
#     bound by     memory: larger blocks reuse what they load (fewer re-reads of HBM)
#     VMEM         1.75 MiB of 128 MiB (1.4%)
#
# all calls: time >= 335 µs
# ```
#
# ![the two calls on the v5e roofline: both below the ridge point, the 256-blocks higher up the bandwidth line (drawn by `pallas-puzzles roofline 1.15 --svg`)](../../images/basics_roofline.svg)
#
# Both calls are far below the ridge point: a float32 matmul of this size is memory bound on
# v5e whatever the block, and the 128-blocks are even dominated by their grid steps. (The model
# uses the bfloat16 peak; float32 products take several MXU passes on a TPU, a further reason to
# feed the MXU bfloat16, puzzle 13.)
#
# ## Your task
#
# 1. `matmul_counts`: the grid steps, FLOPs and HBM bytes read and written of the call, as
#    Python integers. `check_counts` compares them with what the emulator measured.
# 2. `roofline_bound`: the three times and the arithmetic intensity of the model above.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check, check_counts

# %%
M = N = K = 1024
STEP_SECONDS = 0.35e-6  # the fixed cost of one grid step


# Puzzle 8's kernel, unchanged.
def matmul_kernel(x_ref, y_ref, o_ref, acc_ref):
    k = pl.program_id(2)

    @pl.when(k == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...])

    @pl.when(k == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = acc_ref[...]


def matmul(x, y, bm, bn, bk):
    M, K = x.shape
    N = y.shape[1]
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
        grid=(M // bm, N // bn, K // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
                  pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary")),
        interpret=True,
    )(x, y)


def matmul_counts(M, N, K, bm, bn, bk, itemsize):
    # The counters of one call, for inputs of `itemsize` bytes per element and a float32 output.
    # YOUR CODE BEGIN
    grid_steps = (M // bm) * (N // bn) * (K // bk)
    flops = 2 * M * N * K + M * N * (K // bk) + 2 * grid_steps
    hbm_bytes_read = (M * K * (N // bn) + K * N * (M // bm)) * itemsize
    hbm_bytes_written = M * N * 4
    # YOUR CODE END
    return dict(grid_steps=grid_steps, flops=flops, hbm_bytes_read=hbm_bytes_read,
                hbm_bytes_written=hbm_bytes_written)


def roofline_bound(counts, info):
    # The model above, on one TensorCore described by `info`. Times in seconds.
    # YOUR CODE BEGIN
    hbm_bytes = counts["hbm_bytes_read"] + counts["hbm_bytes_written"]
    compute = counts["flops"] / info.bf16_ops_per_second
    memory = hbm_bytes / info.mem_bw_bytes_per_second
    overhead = counts["grid_steps"] * STEP_SECONDS
    intensity = counts["flops"] / hbm_bytes
    # YOUR CODE END
    return dict(seconds=max(compute, memory) + overhead, compute=compute, memory=memory,
                overhead=overhead, intensity=intensity)


def describe(label, counts, bound, info):
    ridge = info.bf16_ops_per_second / info.mem_bw_bytes_per_second
    if bound["overhead"] > max(bound["compute"], bound["memory"]):
        kind = "step-overhead bound"
    elif bound["intensity"] < ridge:
        kind = "memory bound"
    else:
        kind = "compute bound"
    hbm_bytes = counts["hbm_bytes_read"] + counts["hbm_bytes_written"]
    print(f"{label}: {counts['grid_steps']} steps, {counts['flops'] / 1e9:.2f} GFLOP, "
          f"{hbm_bytes / 1e6:.1f} MB, {bound['intensity']:.1f} flop/B (ridge {ridge:.0f})")
    print(f"    time >= {bound['seconds'] * 1e6:.1f} us = max(compute "
          f"{bound['compute'] * 1e6:.1f}, memory {bound['memory'] * 1e6:.1f}) + steps "
          f"{bound['overhead'] * 1e6:.1f}: {kind}")


# %%
x = jax.random.normal(jax.random.key(150), (M, K))
y = jax.random.normal(jax.random.key(151), (K, N))
small = matmul(x, y, 128, 128, 128)
large = matmul(x, y, 256, 256, 256)
check(small, x @ y, atol=1e-3, rtol=1e-3, name="128-blocks")
check(large, x @ y, atol=1e-3, rtol=1e-3, name="256-blocks")

# %%
# Your counts against the emulator's (SKIPPED under real JAX, which keeps no counters).
small_counts = matmul_counts(M, N, K, 128, 128, 128, x.dtype.itemsize)
large_counts = matmul_counts(M, N, K, 256, 256, 256, x.dtype.itemsize)
check_counts(small, name="counts, 128-blocks", **small_counts)
check_counts(large, name="counts, 256-blocks", **large_counts)

# %%
# The roofline on v5e; the expected times are what `pallas-puzzles roofline 1.15` prints.
v5e = pltpu.get_tpu_info_for_chip(pltpu.ChipVersion.TPU_V5E, 1)
small_bound = roofline_bound(small_counts, v5e)
large_bound = roofline_bound(large_counts, v5e)
describe("128-blocks", small_counts, small_bound, v5e)
describe("256-blocks", large_counts, large_bound, v5e)
check(jnp.array([small_bound["seconds"], large_bound["seconds"]]) * 1e6,
      jnp.array([266.155, 68.435]), rtol=1e-4, name="time bounds on v5e, in us")

# %% [markdown]
# # Ragged dot: variable group sizes
#
# **Goal:** the full grouped matmul: group sizes anywhere from 0 to `M`, with group boundaries in
# the middle of row tiles. The grid, the index maps and the metadata are those of the previous
# puzzle; the kernel body gains one thing, the masked store of puzzle 3.
#
# ## What changes when a tile is shared
#
# With `group_sizes = [300, 212, 512]` and `bm = 128`, tile 2 (rows 256 to 383) holds the last 44
# rows of group 0 and the first 84 rows of group 1, and the metadata visits it twice:
#
# ```
# step t      0  1  2  3  4  5  6  7  8
# group_ids   0  0  0  1  1  2  2  2  2
# m_tile_ids  0  1  2  2  3  4  5  6  7
# ```
#
# At step 2, the index maps bring in the whole tile 2 of `lhs` and the weights of expert 0. The
# product `lhs_tile @ rhs[0]` is right for rows 256 to 299 and meaningless for rows 300 to 383,
# which belong to expert 1. Step 3 computes the whole tile again with expert 1's weights, and
# only rows 300 to 383 of that product are wanted. So:
#
# - **Compute the whole tile, keep only your rows.** The MXU multiplies whole tiles anyway; the
#   wasted work is at most one extra tile per group boundary, small next to `M / bm` tiles.
# - **Mask the store, not the inputs.** Accumulate over `k` exactly as before, and at the last `k`
#   store `acc` only where the row belongs to `group_ids[t]`, keeping the block's current values
#   elsewhere: the read-modify-write of puzzle 3.
# - **The accumulator needs no extra care.** It is zeroed at `k == 0`, which happens at the start
#   of every step `t`, shared tile or not.
#
# ![the solution's grid step by step: output tile 2 is visited twice, once per group it holds (drawn by `pallas-puzzles diagram 4.6 --all-steps`)](../../images/gmm_ragged_steps.svg)
#
# ## Why the `n` axis is outermost
#
# The two visits of tile 2 have to be consecutive grid steps for the read-modify-write to work:
# the output block must stay in VMEM from one visit to the next. In the grid
# `(tiles_n, num_tiles, tiles_k)` they are: for a fixed column tile `n`, steps `(n, 2, k)` are
# followed by steps `(n, 3, k)`, with the same output block `(2, n)`. Had the grid been
# `(num_tiles, tiles_n, tiles_k)`, the visits of output block `(2, 0)` would be separated by the
# visit of `(2, 1)`: the block would be written back after the first visit and the second would
# start from garbage, never from HBM (chapter 01, puzzle 7). `pallas-puzzles` reports such
# revisits as errors; a TPU silently loses the rows.
#
# ## Zero-size groups
#
# An expert that got no tokens owns no rows, has no tiles and no grid steps: its weights are
# never even fetched. Nothing in the kernel needs to know. (That changes for the transposed
# grouped matmul of puzzle 8, whose output has one block per expert, used or not.)
#
# ## Your task
#
# Write the kernel body: chapter 01's accumulator, with the final store masked to the rows of
# this step's group. The same kernel must pass every routing below, equal groups included.

# %%
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check


# %%
def make_group_metadata(group_sizes, M, bm):
    """Puzzle 2's tables: ((offsets, group_ids, m_tile_ids), num_tiles)."""
    G, tiles_m = group_sizes.shape[0], M // bm
    max_len = tiles_m + G - 1
    offsets = jnp.concatenate([jnp.zeros((1,), jnp.int32), jnp.cumsum(group_sizes)])
    starts, ends = offsets[:-1], offsets[1:]
    tiles = jnp.where(ends > starts, (ends + bm - 1) // bm - starts // bm, 0)
    tile_starts = (jnp.arange(tiles_m, dtype=jnp.int32) * bm)[:, None]
    overlap = (starts < tile_starts + bm) & (ends > tile_starts) & (ends > starts)
    visits = jnp.sum(overlap, axis=1, dtype=jnp.int32)
    group_ids = jnp.repeat(jnp.arange(G, dtype=jnp.int32), tiles, total_repeat_length=max_len)
    m_tile_ids = jnp.repeat(jnp.arange(tiles_m, dtype=jnp.int32), visits,
                            total_repeat_length=max_len)
    return (offsets, group_ids, m_tile_ids), int(jnp.sum(tiles))


# %%
bm, bk, bn = 128, 128, 128  # lhs tile (bm, bk), rhs tile (bk, bn), output tile (bm, bn)


def lhs_index_map(n, t, k, metadata):
    offsets_ref, group_ids_ref, m_tile_ids_ref = metadata
    return (m_tile_ids_ref[t], k)


def rhs_index_map(n, t, k, metadata):
    offsets_ref, group_ids_ref, m_tile_ids_ref = metadata
    return (group_ids_ref[t], k, n)


def out_index_map(n, t, k, metadata):
    offsets_ref, group_ids_ref, m_tile_ids_ref = metadata
    return (m_tile_ids_ref[t], n)


def gmm_kernel(metadata, lhs_ref, rhs_ref, o_ref, acc_ref):
    # metadata: SMEM refs (offsets, group_ids, m_tile_ids)
    # lhs_ref: (bm, bk), rhs_ref: (bk, bn), o_ref: (bm, bn), acc_ref: (bm, bn) float32 scratch
    offsets_ref, group_ids_ref, m_tile_ids_ref = metadata
    t, k = pl.program_id(1), pl.program_id(2)
    # YOUR CODE BEGIN
    @pl.when(k == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(lhs_ref[...], rhs_ref[...], preferred_element_type=jnp.float32)

    @pl.when(k == pl.num_programs(2) - 1)
    def _():
        g = group_ids_ref[t]
        rows = m_tile_ids_ref[t] * bm + lax.broadcasted_iota(jnp.int32, (bm, bn), 0)
        mine = (rows >= offsets_ref[g]) & (rows < offsets_ref[g + 1])
        o_ref[...] = jnp.where(mine, acc_ref[...], o_ref[...])
    # YOUR CODE END


def gmm(lhs, rhs, group_sizes):
    M, K = lhs.shape
    G, _, N = rhs.shape
    metadata, num_tiles = make_group_metadata(group_sizes, M, bm)
    return pl.pallas_call(
        gmm_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(N // bn, num_tiles, K // bk),
            in_specs=[pl.BlockSpec((bm, bk), lhs_index_map),
                      pl.BlockSpec((None, bk, bn), rhs_index_map)],
            out_specs=pl.BlockSpec((bm, bn), out_index_map),
            scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        ),
        interpret=True,
    )(metadata, lhs, rhs)


def reference(lhs, rhs, group_sizes):
    """Each group's rows times its expert's weights; rows outside every group are 0."""
    offsets = jnp.concatenate([jnp.zeros((1,), jnp.int32), jnp.cumsum(group_sizes)])
    rows = jnp.arange(lhs.shape[0])[:, None]
    out = jnp.zeros((lhs.shape[0], rhs.shape[2]), jnp.float32)
    for g in range(rhs.shape[0]):
        mine = (rows >= offsets[g]) & (rows < offsets[g + 1])
        out = jnp.where(mine, lhs @ rhs[g], out)
    return out


# %%
for seed, (M, K, N), sizes in [
    (460, (1024, 256, 128), [300, 212, 512]),  # a boundary inside tile 2
    (461, (1024, 256, 128), [256, 256, 512]),  # equal to puzzle 5: no shared tile
    (462, (1024, 256, 256), [0, 400, 0, 624]),  # empty groups, first and in the middle
    (463, (1024, 384, 256), [40, 0, 90, 150, 0, 0, 700, 44]),  # three groups in tile 0
    (464, (512, 256, 128), [511, 1]),  # a one-row group at the very end
]:
    kl, kr = jax.random.split(jax.random.key(seed))
    lhs = jax.random.normal(kl, (M, K))
    rhs = jax.random.normal(kr, (len(sizes), K, N))
    group_sizes = jnp.array(sizes, dtype=jnp.int32)
    check(gmm(lhs, rhs, group_sizes), reference(lhs, rhs, group_sizes), atol=1e-3, rtol=1e-3,
          name=f"group_sizes={sizes}, K={K}, N={N}")

# %% [markdown]
# # Grouped matmul with equal, tile-aligned groups
#
# **Goal:** multiply each group of rows of `lhs` by its own expert's weights,
# `out[rows of g] = lhs[rows of g] @ rhs[g]`, for groups whose sizes are multiples of the tile
# height. You will find that the kernel body is one you have already written.
#
# ## The grouped matmul
#
# This is the heart of a mixture-of-experts layer. After routing and sorting, `lhs` of shape
# `(M, K)` holds the tokens, expert by expert; `rhs` of shape `(G, K, N)` holds one weight matrix
# per expert; `group_sizes` of shape `(G,)` says how many rows each expert got:
#
# ```
# out[offsets[g] : offsets[g + 1]] = lhs[offsets[g] : offsets[g + 1]] @ rhs[g]      for each g
# ```
#
# JAX calls this operation `jax.lax.ragged_dot`. Why a dedicated kernel? The obvious
# alternatives both waste the MXU:
#
# - **A loop of `G` matmuls** launches `G` small kernels of data-dependent sizes, and under `jit`
#   the sizes must be static, so each would be padded to the worst case.
# - **Capacity-padded batches**: give every expert a fixed budget of rows, pad the ones that got
#   fewer, drop the tokens of the ones that got more. Simple and batched, but it computes on
#   padding and silently drops tokens.
# - **One dense matmul against all experts** computes `G` times too much.
#
# The grouped matmul computes only real rows (up to one partially used tile per group boundary),
# drops nothing, and keeps a fixed grid structure. The idea was popularised as
# "block-sparse" MoE computation (MegaBlocks).
#
# ## When groups line up with tiles
#
# Take the easy case first: every group size is a multiple of `bm`. Then no tile is shared, each
# grid step is one tile of one group, and the metadata of puzzle 2 reads simply, for example with
# four groups of 256 rows and `bm = 128`:
#
# ```
# step t      0  1  2  3  4  5  6  7
# group_ids   0  0  1  1  2  2  3  3
# m_tile_ids  0  1  2  3  4  5  6  7
# ```
#
# The grid is `(tiles_n, num_tiles, tiles_k)`: output column tiles outermost, then the
# (group, tile) steps, then the reduction over `K` last, as in every matmul so far. At step
# `(n, t, k)` the formula `out[tile, n] += lhs[tile, k] @ rhs[g][k, n]` names the blocks:
#
# - `lhs`: block `(bm, bk)` at `(m_tile_ids[t], k)`;
# - `rhs`: block `(None, bk, bn)` (the expert dimension squeezed) at `(group_ids[t], k, n)`;
# - `out`: block `(bm, bn)` at `(m_tile_ids[t], n)`, the same for every `k`.
#
# ![the grouped matmul grid: the metadata picks the lhs row tile and the expert's weights](../../images/gmm_grid.svg)
#
# ![the solution's grid step by step (drawn by `pallas-puzzles diagram 4.5 --all-steps`)](../../images/gmm_equal_steps.svg)
#
# Now look at what is left for the kernel body. At each step it sees one `(bm, bk)` tile of rows
# and one `(bk, bn)` tile of the right expert's weights: it does not know or care which group it
# works for. **It is the tiled matmul of chapter 01 (puzzle 8), unchanged**: zero the float32
# accumulator at `k == 0`, add a product every step, store at the last `k`. All the "grouped"
# part lives in the index maps.
#
# ## Your task
#
# Write the three index maps (they receive the grid indices, then the metadata tuple), and the
# kernel body. Here `m_tile_ids[t]` equals `t`, but do not rely on it: the next puzzle reuses
# your index maps with ragged groups.

# %%
import jax
import jax.numpy as jnp
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


# YOUR CODE BEGIN
def lhs_index_map(n, t, k, metadata):
    offsets_ref, group_ids_ref, m_tile_ids_ref = metadata
    return (0, k)  # always the first row tile: replace


def rhs_index_map(n, t, k, metadata):
    offsets_ref, group_ids_ref, m_tile_ids_ref = metadata
    return (0, k, n)  # always expert 0: replace


def out_index_map(n, t, k, metadata):
    offsets_ref, group_ids_ref, m_tile_ids_ref = metadata
    return (0, n)  # always the first row tile: replace
# YOUR CODE END


def gmm_kernel(metadata, lhs_ref, rhs_ref, o_ref, acc_ref):
    # lhs_ref: (bm, bk), rhs_ref: (bk, bn), o_ref: (bm, bn), acc_ref: (bm, bn) float32 scratch
    k = pl.program_id(2)
    # YOUR CODE BEGIN
    pass
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
    (450, (512, 256, 128), [128, 128, 128, 128]),  # one tile per group: grid (1, 4, 2)
    (451, (1024, 256, 256), [256, 256, 256, 256]),  # two tiles per group: grid (2, 8, 2)
    (452, (1024, 384, 128), [512, 512]),            # four tiles per group, K in 3 tiles
]:
    kl, kr = jax.random.split(jax.random.key(seed))
    lhs = jax.random.normal(kl, (M, K))
    rhs = jax.random.normal(kr, (len(sizes), K, N))
    group_sizes = jnp.array(sizes, dtype=jnp.int32)
    check(gmm(lhs, rhs, group_sizes), reference(lhs, rhs, group_sizes), atol=1e-3, rtol=1e-3,
          name=f"group_sizes={sizes}, K={K}, N={N}")

# %% [markdown]
# # Configure the grouped matmul yourself
#
# **Goal:** the ragged-dot kernel is written; you write the whole grid spec around it: the grid,
# three BlockSpecs whose index maps read the metadata, and the accumulator.
#
# ## Read it off the kernel
#
# The kernel below is your kernel from the previous puzzle, with trace-time checks of its ref
# shapes added. Every decision of the grid spec can be read from it and from what you know:
#
# - **Prefetch.** The kernel's first parameter is the metadata tuple, so there is one prefetch
#   operand; `make_group_metadata` returns it, with the number of grid steps along the groups.
# - **The grid.** The kernel reads `pl.program_id(1)` as the (group, tile) step and
#   `pl.program_id(2)` as the reduction step along `K`. The remaining axis, 0, walks the
#   output's column tiles, and it must be outermost so that the visits of a shared row tile stay
#   consecutive (puzzle 6).
# - **in_specs.** `lhs` in `(bm, bk)` tiles, `rhs` in `(bk, bn)` tiles of one expert (squeeze the
#   expert dimension). Each index map gets the three grid indices, then the metadata tuple.
# - **out_specs.** `(bm, bn)` tiles, the same block for every `k`.
# - **scratch_shapes.** The last kernel parameter, a float32 accumulator the size of an output
#   tile, declared inside the grid spec.
#
# ## Production shapes
#
# The last check runs on bfloat16 inputs, as production MoE layers do. Nothing in the
# configuration changes: the kernel's `jnp.dot(..., preferred_element_type=jnp.float32)`
# accumulates in float32 (chapter 01, puzzle 13), and the output stays float32.
#
# In megablox (`jax/experimental/pallas/ops/tpu/megablox/gmm.py`), the same configuration has
# two more details: a second prefetch operand, `group_offset`, so that a device holding only some
# of the experts (expert parallelism) can shift `group_ids`; and `dimension_semantics`
# `("parallel", "arbitrary", "arbitrary")`, which lets two TensorCores split the column tiles,
# the only axis whose steps are independent.
#
# ## Your task
#
# Replace the placeholder grid spec. The same function must pass every shape and routing below.

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


def gmm_kernel(metadata, lhs_ref, rhs_ref, o_ref, acc_ref):
    # trace-time checks: each step must see one tile of each operand
    assert lhs_ref.shape == (bm, bk), (
        f"lhs_ref is {lhs_ref.shape}; it should be one ({bm}, {bk}) tile")
    assert rhs_ref.shape == (bk, bn), (
        f"rhs_ref is {rhs_ref.shape}; it should be one ({bk}, {bn}) tile of one expert")
    assert o_ref.shape == (bm, bn), f"o_ref is {o_ref.shape}; it should be one ({bm}, {bn}) tile"
    assert acc_ref.shape == (bm, bn), f"acc_ref is {acc_ref.shape}; it should be ({bm}, {bn})"
    offsets_ref, group_ids_ref, m_tile_ids_ref = metadata
    t, k = pl.program_id(1), pl.program_id(2)

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


def gmm(lhs, rhs, group_sizes):
    M, K = lhs.shape
    G, _, N = rhs.shape
    metadata, num_tiles = make_group_metadata(group_sizes, M, bm)
    # YOUR CODE BEGIN
    # one step over whole arrays and no scratch buffer: replace all of it
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(),
        in_specs=[pl.BlockSpec(), pl.BlockSpec()],
        out_specs=pl.BlockSpec(),
    )
    # YOUR CODE END
    return pl.pallas_call(
        gmm_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
        grid_spec=grid_spec,
        interpret=True,
    )(metadata, lhs, rhs)


def reference(lhs, rhs, group_sizes):
    """Each group's rows times its expert's weights; rows outside every group are 0."""
    offsets = jnp.concatenate([jnp.zeros((1,), jnp.int32), jnp.cumsum(group_sizes)])
    rows = jnp.arange(lhs.shape[0])[:, None]
    out = jnp.zeros((lhs.shape[0], rhs.shape[2]), jnp.float32)
    lhs, rhs = lhs.astype(jnp.float32), rhs.astype(jnp.float32)
    for g in range(rhs.shape[0]):
        mine = (rows >= offsets[g]) & (rows < offsets[g + 1])
        out = jnp.where(mine, lhs @ rhs[g], out)
    return out


# %%
for seed, (M, K, N), sizes, dtype in [
    (470, (1024, 256, 128), [300, 212, 512], jnp.float32),
    (471, (1024, 256, 128), [256, 512, 256], jnp.float32),
    (472, (512, 384, 256), [0, 77, 0, 300, 135], jnp.float32),
    (473, (1024, 256, 256), [130, 126, 0, 600, 168], jnp.bfloat16),
]:
    kl, kr = jax.random.split(jax.random.key(seed))
    lhs = jax.random.normal(kl, (M, K), dtype)
    rhs = jax.random.normal(kr, (len(sizes), K, N), dtype)
    group_sizes = jnp.array(sizes, dtype=jnp.int32)
    check(gmm(lhs, rhs, group_sizes), reference(lhs, rhs, group_sizes), atol=1e-3, rtol=1e-3,
          name=f"{jnp.dtype(dtype).name} group_sizes={sizes}, K={K}, N={N}")

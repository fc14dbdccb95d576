# %% [markdown]
# # Masked store at group boundaries
#
# **Goal:** scale every row of `x` by the factor of the group it belongs to, one row tile per
# grid step, where a tile may hold rows of several groups. Each step must store only its own
# group's rows and leave the rest of the tile alone.
#
# ## One tile, two visits, two owners
#
# The metadata from the previous puzzle gives each grid step `t` a group `group_ids[t]` and a row
# tile `m_tile_ids[t]`. For `group_sizes = [300, 212, 512]` and `bm = 128`, steps 2 and 3 both
# work on tile 2 (rows 256 to 383): step 2 for group 0, which owns rows 256 to 299, and step 3
# for group 1, which owns rows 300 to 383.
#
# The operation here is the simplest one that depends on the group: multiply each row by its
# group's factor, `o[r] = x[r] * scales[group of r]`. (Quantised mixture-of-experts layers do this
# for real: each expert's int8 weights come with a scale, applied to the rows that expert
# produced.) If every step stored its whole tile, step 3 would overwrite rows 256 to 299 with the
# wrong factor. Each step must store **only the rows of its group**.
#
# ## Which rows are mine? `broadcasted_iota`
#
# Inside the kernel, build the global row number of every element of the tile and compare it
# with the group's boundaries:
#
# ```python
# rows = tile * bm + lax.broadcasted_iota(jnp.int32, (bm, N), 0)   # (bm, N): row r holds r
# mine = (rows >= offsets_ref[g]) & (rows < offsets_ref[g + 1])
# ```
#
# `lax.broadcasted_iota(dtype, shape, dimension)` makes an array of the given shape whose entries
# count along `dimension`: here every element holds its row index within the tile. It is the
# TPU-friendly way to get indices: the vector unit works on 2-D `(8, 128)` register tiles, so a
# 1-D `jnp.arange(bm)` would need a reshape and a broadcast before it could meet a `(bm, N)`
# block, while a 2-D iota is generated directly in the block's shape.
#
# The boundaries come from the **group**: `g = group_ids_ref[t]`, then `offsets_ref[g]` and
# `offsets_ref[g + 1]`. The tile's first row comes from the **tile**: `m_tile_ids_ref[t] * bm`.
# Neither is the grid step `t` itself: in the example, step 3 is group 1 on tile 2.
#
# ## Read-modify-write: the rows that are not mine
#
# Where the mask is false, the step must store what the output block already holds:
#
# ```python
# o_ref[...] = jnp.where(mine, new_values, o_ref[...])
# ```
#
# ![tile 2 visited by steps 2 and 3: each writes its own rows and keeps the others](../../images/gmm_masked_store.svg)
#
# Why is "what the block already holds" the right thing? Steps 2 and 3 have the same output
# block index, so the pipeline keeps the block in VMEM between them and writes it back to HBM
# once, after step 3 (chapter 01, puzzle 7). Step 3 therefore reads exactly what step 2 stored.
# On step 2 the other rows hold garbage (output blocks are never read from HBM), which is fine:
# step 3 overwrites them. This only works because the metadata makes the visits of one tile
# **consecutive**.
#
# ## Your task
#
# Write the kernel body: find this step's group and tile, build the mask, and store
# `x * scale` of the group under the mask. The metadata arrives as one prefetch operand, a tuple
# of three SMEM refs, and the scales as a second one.

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
bm = 128  # rows per tile


def group_scale_kernel(metadata, scales_ref, x_ref, o_ref):
    # metadata: three SMEM refs, offsets (G + 1,), group_ids and m_tile_ids (max_len,)
    # scales_ref: (G,) float32 in SMEM; x_ref, o_ref: (bm, N) row tiles in VMEM
    offsets_ref, group_ids_ref, m_tile_ids_ref = metadata
    t = pl.program_id(0)
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def tile_index_map(t, metadata, scales_ref):
    _, _, m_tile_ids_ref = metadata
    return (m_tile_ids_ref[t], 0)


def group_scale(x, scales, group_sizes):
    M, N = x.shape
    metadata, num_tiles = make_group_metadata(group_sizes, M, bm)
    return pl.pallas_call(
        group_scale_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), x.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=2,  # the metadata tuple is one operand, the scales another
            grid=(num_tiles,),
            in_specs=[pl.BlockSpec((bm, N), tile_index_map)],
            out_specs=pl.BlockSpec((bm, N), tile_index_map),
        ),
        interpret=True,
    )(metadata, scales, x)


def reference(x, scales, group_sizes):
    row_scales = jnp.repeat(scales, group_sizes, total_repeat_length=x.shape[0])
    return x * row_scales[:, None]


# %%
x = jax.random.normal(jax.random.key(420), (1024, 128))
for seed, sizes in [
    (421, [300, 212, 512]),                  # tile 2 holds groups 0 and 1
    (422, [0, 40, 0, 90, 150, 0, 700, 44]),  # empty groups; tile 0 holds three groups
    (423, [300, 0, 724]),                    # an empty group whose offset is inside tile 2
    (424, [256, 256, 256, 256]),             # equal groups: every tile visited once
]:
    group_sizes = jnp.array(sizes, dtype=jnp.int32)
    scales = jax.random.uniform(jax.random.key(seed), (len(sizes),), minval=0.5, maxval=2.0)
    check(group_scale(x, scales, group_sizes), reference(x, scales, group_sizes),
          name=f"group_sizes={sizes}")

# %% [markdown]
# # Configure a scalar-prefetch `pallas_call`
#
# **Goal:** the group-scaling kernel of the previous puzzle is written; you write the grid spec
# that feeds it: which operands are prefetched into SMEM, the grid, and index maps that read the
# metadata.
#
# ## Everything in one place
#
# A scalar-prefetch call differs from the calls of chapter 01 in four places. Read each one off
# the kernel below:
#
# - **`num_scalar_prefetch`** counts the leading call arguments that go to SMEM whole, before
#   the grid starts. An argument may be a *pytree*: the metadata tuple
#   `(offsets, group_ids, m_tile_ids)` is **one** operand, and the kernel receives it as a tuple of
#   three refs. The per-group `scales` are read with a dynamic index in the kernel, so they are
#   scalars too.
# - **`in_specs`** lists BlockSpecs for the remaining inputs only. Prefetch operands get no
#   BlockSpec: their SMEM copy is the same for every step.
# - **The index maps** take the grid indices, then one argument per prefetch operand (the tuple
#   of refs, then the scales ref), whether they use them or not.
# - **The grid** is one step per (group, tile) pair: `num_tiles` steps, as `make_group_metadata`
#   returns it.
#
# ```python
# def index_map(t, metadata, scales_ref):   # grid index, then the prefetch operands
#     offsets_ref, group_ids_ref, m_tile_ids_ref = metadata
#     ...
# ```
#
# The kernel's signature tells you the order of everything:
# `kernel(*prefetch_refs, *input_refs, *output_refs)`, and the call passes
# `(metadata, scales, x)` in that same order.
#
# ## A note on `num_tiles`
#
# Here `num_tiles` is a Python `int`, computed on the host before the call. Production code such
# as megablox keeps it a traced value so that the whole layer can be `jax.jit`ted once for all
# routings: the grid dimension itself is then dynamic, and the padded metadata tables (length
# `tiles_m + G - 1`) keep every shape static.
#
# ## Your task
#
# Replace the placeholder grid spec: one that makes the kernel's checks pass, visits every
# (group, tile) pair once, and gives `x` and the output the row tile `m_tile_ids[t]`. It must
# work for every routing and both widths in the checks below.

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
    # trace-time checks: each step must see one row tile of x and of the output
    assert x_ref.shape[0] == bm and o_ref.shape == x_ref.shape, (
        f"x_ref is {x_ref.shape} and o_ref {o_ref.shape}; each should be one ({bm}, N) row tile")
    offsets_ref, group_ids_ref, m_tile_ids_ref = metadata
    t = pl.program_id(0)
    g = group_ids_ref[t]
    rows = m_tile_ids_ref[t] * bm + lax.broadcasted_iota(jnp.int32, x_ref.shape, 0)
    mine = (rows >= offsets_ref[g]) & (rows < offsets_ref[g + 1])
    o_ref[...] = jnp.where(mine, x_ref[...] * scales_ref[g], o_ref[...])


def group_scale(x, scales, group_sizes):
    M, N = x.shape
    metadata, num_tiles = make_group_metadata(group_sizes, M, bm)
    # YOUR CODE BEGIN
    # no prefetch and one step over whole arrays: replace it
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=0,
        grid=(),
        in_specs=[pl.BlockSpec(), pl.BlockSpec(), pl.BlockSpec()],
        out_specs=pl.BlockSpec(),
    )
    # YOUR CODE END
    return pl.pallas_call(
        group_scale_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), x.dtype),
        grid_spec=grid_spec,
        interpret=True,
    )(metadata, scales, x)


def reference(x, scales, group_sizes):
    row_scales = jnp.repeat(scales, group_sizes, total_repeat_length=x.shape[0])
    return x * row_scales[:, None]


# %%
for seed, M, N, sizes in [
    (430, 1024, 128, [300, 212, 512]),
    (431, 1024, 128, [0, 700, 0, 12, 312]),
    (432, 512, 256, [100, 0, 412]),
    (433, 512, 256, [128, 128, 128, 128]),
]:
    kx, ks = jax.random.split(jax.random.key(seed))
    x = jax.random.normal(kx, (M, N))
    group_sizes = jnp.array(sizes, dtype=jnp.int32)
    scales = jax.random.uniform(ks, (len(sizes),), minval=0.5, maxval=2.0)
    check(group_scale(x, scales, group_sizes), reference(x, scales, group_sizes),
          name=f"x {M}x{N}, group_sizes={sizes}")

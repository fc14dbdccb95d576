# %% [markdown]
# # Group metadata: which tile, which group, at every grid step
#
# **Goal:** in plain `jnp`, on the host, build the small integer tables that will steer the
# grouped matmul's index maps: for every grid step, which group it works for and which row tile
# it reads and writes.
#
# ## The problem: groups do not line up with tiles
#
# After routing, a mixture-of-experts layer sorts its tokens by expert, so the rows of `lhs`
# (shape `(M, K)`) come in `G` contiguous **groups**: the first `group_sizes[0]` rows go to
# expert 0, the next `group_sizes[1]` rows to expert 1, and so on. The router decides the sizes
# at run time, so they are arbitrary: 300 rows, 0 rows, 1 row.
#
# The kernel, on the other hand, works on row **tiles** of a fixed size `bm`. Lay the two side by
# side for `group_sizes = [300, 212, 512]`, `M = 1024`, `bm = 128`:
#
# ![three groups over eight row tiles: tile 2 holds rows of groups 0 and 1, so it is visited twice](../../images/gmm_metadata.svg)
#
# Group 0 ends at row 300, in the middle of tile 2. Tile 2 holds rows of two groups, which need
# two different weight matrices. So the grid visits tile 2 **twice**: once for group 0, once for
# group 1. Each grid step is one (group, tile) pair that overlaps:
#
# | step | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 |
# |---|---|---|---|---|---|---|---|---|---|
# | group | 0 | 0 | 0 | 1 | 1 | 2 | 2 | 2 | 2 |
# | row tile | 0 | 1 | 2 | 2 | 3 | 4 | 5 | 6 | 7 |
#
# Nine steps for eight tiles. Because groups are contiguous and sorted, listing the pairs group
# by group also lists them tile by tile, and the two visits of tile 2 are consecutive steps. That
# matters: an output block may only be revisited on consecutive steps (chapter 01, puzzle 7).
#
# ## The tables, step by step
#
# You will build them in five small vectorised steps, each checked on its own:
#
# 1. **`offsets_of(group_sizes)`**, shape `(G + 1,)`: where each group starts, plus the end.
#    Group `g` owns rows `offsets[g]` up to (not including) `offsets[g + 1]`. For the example,
#    `[0, 300, 512, 1024]`. A `0` in front of the running sum (`jnp.cumsum`).
# 2. **`tiles_per_group(offsets, bm)`**, shape `(G,)`: how many tiles each group touches, from the
#    tile of its first row to the tile of its last row. Round the start *down* and the end *up* to
#    tile boundaries: `[3, 2, 4]`. An empty group touches no tile, whatever its offset says.
# 3. **`visits_per_tile(offsets, tiles_m, bm)`**, shape `(tiles_m,)`: how many groups overlap each
#    tile: `[1, 1, 2, 1, 1, 1, 1, 1]`. Tile `t` covers rows `[t * bm, (t + 1) * bm)`; group `g`
#    overlaps it when it starts before the tile ends and ends after the tile starts. Compare all
#    tiles with all groups at once, as a `(tiles_m, G)` boolean array, and count along `G`. Empty
#    groups overlap nothing.
# 4. **`group_id_per_step(tiles, max_len)`**: group `g` repeated `tiles[g]` times.
# 5. **`tile_id_per_step(visits, max_len)`**: tile `t` repeated `visits[t]` times.
#
# Steps 2 and 3 count the same pairs, once per group and once per tile, so both sum to the
# number of grid steps, `num_tiles`.
#
# ## Why pad to `max_len`
#
# The number of steps depends on the data, but production code computes these tables inside
# `jax.jit`, where every array needs a shape known before the data. So the tables get a fixed
# length, an upper bound: each of the `tiles_m = M // bm` tiles is visited once, and each of the
# `G - 1` group boundaries can add at most one extra visit, so
# `max_len = tiles_m + G - 1`. `jnp.repeat(values, counts, total_repeat_length=max_len)` repeats
# into exactly that length and fills the rest with the last entry of `values`. The grid has
# `num_tiles` steps, so the padding is never read.
#
# Two edge cases the checks use: **zero-size groups** (an expert that got no tokens: no tiles, no
# steps, even when its offset falls inside a tile) and several group boundaries inside **one**
# tile (a tile visited three or more times).
#
# ## Your task
#
# Fill in the five functions and chain them in `make_group_metadata`, which returns the three
# tables the kernels need and the number of grid steps. `reference_metadata` below does the same
# with Python loops over groups and tiles: clear, but not something you can run inside `jit`.

# %%
import jax
import jax.numpy as jnp
from pallas_check import check


# %%
def offsets_of(group_sizes):
    # (G,) int32 -> (G + 1,) int32: [0, size0, size0 + size1, ...]
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def tiles_per_group(offsets, bm):
    # (G + 1,) -> (G,) int32: the number of bm-row tiles each group touches (0 if it is empty)
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def visits_per_tile(offsets, tiles_m, bm):
    # (G + 1,) -> (tiles_m,) int32: the number of non-empty groups that overlap each tile
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def group_id_per_step(tiles, max_len):
    # (G,) -> (max_len,) int32: group g repeated tiles[g] times, then padding
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def tile_id_per_step(visits, max_len):
    # (tiles_m,) -> (max_len,) int32: tile t repeated visits[t] times, then padding
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def make_group_metadata(group_sizes, M, bm):
    # returns ((offsets, group_ids, m_tile_ids), num_tiles)
    G = group_sizes.shape[0]
    tiles_m = M // bm
    max_len = tiles_m + G - 1
    # YOUR CODE BEGIN
    offsets = group_ids = m_tile_ids = num_tiles = None
    # YOUR CODE END
    return (offsets, group_ids, m_tile_ids), num_tiles


# %%
def reference_metadata(group_sizes, M, bm):
    """The same tables with Python loops: every (group, tile) pair that overlaps is one step."""
    sizes = [int(s) for s in group_sizes]
    G, tiles_m = len(sizes), M // bm
    max_len = tiles_m + G - 1
    offsets = [0]
    for size in sizes:
        offsets.append(offsets[-1] + size)
    group_ids, m_tile_ids = [], []
    for g in range(G):
        start, end = offsets[g], offsets[g + 1]
        if start < end:
            for t in range(start // bm, (end - 1) // bm + 1):
                group_ids.append(g)
                m_tile_ids.append(t)
    num_tiles = len(group_ids)
    tiles = [group_ids.count(g) for g in range(G)]
    visits = [m_tile_ids.count(t) for t in range(tiles_m)]
    group_ids += [G - 1] * (max_len - num_tiles)  # jnp.repeat pads with the last value
    m_tile_ids += [tiles_m - 1] * (max_len - num_tiles)
    as_i32 = lambda xs: jnp.array(xs, dtype=jnp.int32)
    return dict(offsets=as_i32(offsets), tiles=as_i32(tiles), visits=as_i32(visits),
                group_ids=as_i32(group_ids), m_tile_ids=as_i32(m_tile_ids), num_tiles=num_tiles)


# %%
M, bm = 1024, 128
tiles_m = M // bm
cases = [
    [300, 212, 512],                   # the worked example: a boundary inside tile 2
    [256, 256, 256, 256],              # equal groups on tile boundaries
    [512, 0, 512],                     # an empty group on a tile boundary
    [300, 0, 724],                     # an empty group at an offset inside a tile
    [0, 40, 0, 90, 150, 0, 700, 44],   # empty groups first and between; tile 0 visited 3 times
    [1024],                            # a single group
]
cases = [jnp.array(sizes, dtype=jnp.int32) for sizes in cases]
refs = [reference_metadata(sizes, M, bm) for sizes in cases]
max_lens = [tiles_m + sizes.shape[0] - 1 for sizes in cases]


def same(got, want):
    if got is None or jnp.shape(got) != jnp.shape(want):
        return False
    return bool(jnp.array_equal(got, want))


def check_step(name, results, key):
    """Checks one step on every case: the first case that differs, or all of them at once."""
    expected = [r[key] for r in refs]
    for sizes, got, want in zip(cases, results, expected):
        if not same(got, want):
            return check(got, want, name=f"{name}, group_sizes={sizes.tolist()}")
    return check(jnp.concatenate(results), jnp.concatenate(expected),
                 name=f"{name}, {len(cases)} cases")


def check_metadata():
    """make_group_metadata end to end, with two tile sizes and a case that leaves rows unused."""
    results, expected = [], []
    for sizes in cases + [jnp.array([100, 0, 28, 200, 0], dtype=jnp.int32)]:
        for tile in (128, 64):
            (offsets, group_ids, m_tile_ids), num_tiles = make_group_metadata(sizes, M, tile)
            r = reference_metadata(sizes, M, tile)
            got = (offsets, group_ids, m_tile_ids, num_tiles)
            want = (r["offsets"], r["group_ids"], r["m_tile_ids"], r["num_tiles"])
            if not all(same(a, b) for a, b in zip(got, want)):
                return check(got, want, name=f"make_group_metadata({sizes.tolist()}, M, {tile})")
            results += [offsets, group_ids, m_tile_ids, jnp.array([num_tiles], jnp.int32)]
            expected += [want[0], want[1], want[2], jnp.array([want[3]], jnp.int32)]
    return check(jnp.concatenate(results), jnp.concatenate(expected),
                 name=f"make_group_metadata, {len(results) // 4} cases")


# Each step is checked on its own, fed with the reference's results of the steps before it.
check_step("step 1: offsets_of", [offsets_of(sizes) for sizes in cases], "offsets")
check_step("step 2: tiles_per_group", [tiles_per_group(r["offsets"], bm) for r in refs], "tiles")
check_step("step 3: visits_per_tile",
           [visits_per_tile(r["offsets"], tiles_m, bm) for r in refs], "visits")
check_step("step 4: group_id_per_step",
           [group_id_per_step(r["tiles"], n) for r, n in zip(refs, max_lens)], "group_ids")
check_step("step 5: tile_id_per_step",
           [tile_id_per_step(r["visits"], n) for r, n in zip(refs, max_lens)], "m_tile_ids")
check_metadata()

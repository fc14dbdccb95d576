# %% [markdown]
# # Transposed grouped matmul: the weight gradient
#
# **Goal:** compute each expert's weight gradient, `grad_rhs[g] = lhs[rows of g].T @
# grad_out[rows of g]`, a grouped matmul whose reduction runs over the rows of each group. Every
# group needs its own accumulator: a prologue that resets it where a group starts and an epilogue
# that stores it where the group ends, and a visit for experts that got no rows at all.
#
# ## Where this comes from
#
# Training needs the gradient of the grouped matmul `out[rows of g] = lhs[rows of g] @ rhs[g]`.
# The gradient with respect to `lhs` is again a grouped matmul (with `rhs[g]` transposed). The
# gradient with respect to the weights is different:
#
# ```
# grad_rhs[g] = lhs[offsets[g]:offsets[g+1]].T @ grad_out[offsets[g]:offsets[g+1]]
#   lhs: (M, K)   grad_out: (M, N)   grad_rhs: (G, K, N)
# ```
#
# The rows, `M`, are now the **reduction**: each output block `(k, n)` of expert `g` is a sum over
# all the row tiles of group `g`. Megablox calls this kernel `tgmm` ("transposed" grouped matmul).
#
# ## The grid: the (group, tile) steps become the reduction axis
#
# The grid is `(tiles_k, tiles_n, num_tiles)`, with the metadata steps **last**, because they are
# the reduction. At step `(k, n, t)`:
#
# - `lhs`: block `(bm, bk)` at `(m_tile_ids[t], k)`;
# - `grad_out`: block `(bm, bn)` at `(m_tile_ids[t], n)`;
# - the output: block `(None, bk, bn)` at `(group_ids[t], k, n)`: one `(bk, bn)` block of expert
#   `group_ids[t]`'s gradient. Consecutive steps of the same group keep the same output block, so
#   it stays in VMEM while the group's tiles stream past, and is written back when the group
#   changes.
#
# ![the tgmm grid: the steps of one group reduce into one output block; a prologue and an epilogue at the group's edges](../../images/gmm_tgmm.svg)
#
# ## Prologue and epilogue per group, not per grid row
#
# In every matmul so far the reduction index started at 0 for each output block, so `k == 0`
# marked "first step of this block". Here the reduction is the metadata axis `t`, and one sweep of
# `t` covers *all* groups: group 1's first step is wherever group 0's last step ended. The kernel
# finds the edges by comparing neighbours in the metadata:
#
# ```
# first step of a group:  t == 0                     or  group_ids[t] != group_ids[t - 1]
# last step of a group:   t == pl.num_programs(2) - 1 or  group_ids[t] != group_ids[t + 1]
# ```
#
# Zero the float32 scratch accumulator on the first step of each group, store it on the last.
# Two details:
#
# - **Indices stay in range.** `group_ids[t - 1]` at `t == 0` would read before the table;
#   `group_ids[t + 1]` on the last step reads the padding, or past the table when it has no
#   padding. Clamp the index (`jnp.maximum(t - 1, 0)`, `jnp.minimum(t + 1, last)`), and let the
#   `t == 0` / `t == last` tests decide there. Note that the padding repeats the last group id,
#   so without the `t == last` test the last group would look unfinished and never be stored.
# - **Reset per group, not once.** Zeroing only at `t == 0` lets every group start from the sum
#   of the groups before it.
#
# ## Masking the rows, not the store
#
# A shared row tile holds rows of two groups. In the forward kernel each visit computed the
# whole tile and masked the *store*. Here the rows are summed away, so a foreign row cannot be
# masked afterwards: it must contribute **zero** to the sum. Zero the rows of `lhs` that are not
# in group `g` before the product (`jnp.where` with the row mask of puzzle 3, in the shape of the
# `lhs` block). The store itself is a whole block of one expert and needs no mask.
#
# The product contracts the row dimension of both blocks: `lhs_block.T @ grad_block`, or, without
# writing the transpose,
# `lax.dot_general(a, b, (((0,), (0,)), ((), ())), preferred_element_type=jnp.float32)`, which
# names the contracted dimensions (dimension 0 of both) and leaves the layout to the compiler.
#
# ## Experts without tokens still need a gradient
#
# In the forward kernel an empty group had no steps, and nothing was lost: it owns no output rows.
# Here it owns a whole output block, `grad_rhs[g]`, which must be **zero**. With no grid step
# for it, that block is never written and keeps whatever memory held before: on a TPU, stale data
# from an earlier computation flows into the optimizer. So the metadata gets an option,
# `visit_empty_groups=True`: each empty group gets one step, on the tile where its (empty) row
# range sits. On that step the row mask is all false, the accumulator is zeroed by the prologue,
# nothing is added, and the epilogue stores zeros.
#
# ## Your task
#
# Write the kernel body: find the first and last steps of this step's group, zero the
# accumulator on the first, add the masked product on every step, store on the last.

# %%
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check


# %%
def make_group_metadata(group_sizes, M, bm, visit_empty_groups=False):
    """Puzzle 2's tables, with the option of one step for each empty group (on the tile that
    holds its offset, the last tile for an offset of M)."""
    G, tiles_m = group_sizes.shape[0], M // bm
    max_len = tiles_m + G - 1
    offsets = jnp.concatenate([jnp.zeros((1,), jnp.int32), jnp.cumsum(group_sizes)])
    starts, ends = offsets[:-1], offsets[1:]
    nonempty = ends > starts
    empty_steps = 1 if visit_empty_groups else 0
    tiles = jnp.where(nonempty, (ends + bm - 1) // bm - starts // bm, empty_steps)
    tile_index = jnp.arange(tiles_m, dtype=jnp.int32)[:, None]  # (tiles_m, 1)
    overlap = (starts < (tile_index + 1) * bm) & (ends > tile_index * bm)
    home = jnp.minimum(starts // bm, tiles_m - 1)  # where an empty group's step goes
    overlap = jnp.where(nonempty, overlap, visit_empty_groups & (tile_index == home))
    visits = jnp.sum(overlap, axis=1, dtype=jnp.int32)
    group_ids = jnp.repeat(jnp.arange(G, dtype=jnp.int32), tiles, total_repeat_length=max_len)
    m_tile_ids = jnp.repeat(jnp.arange(tiles_m, dtype=jnp.int32), visits,
                            total_repeat_length=max_len)
    return (offsets, group_ids, m_tile_ids), int(jnp.sum(tiles))


# %%
bm, bk, bn = 128, 128, 128  # lhs tile (bm, bk), grad_out tile (bm, bn), output tile (bk, bn)


def tgmm_kernel(metadata, lhs_ref, grad_ref, o_ref, acc_ref):
    # metadata: SMEM refs (offsets, group_ids, m_tile_ids)
    # lhs_ref: (bm, bk), grad_ref: (bm, bn), o_ref: (bk, bn) block of one expert's gradient
    # acc_ref: (bk, bn) float32 scratch
    offsets_ref, group_ids_ref, m_tile_ids_ref = metadata
    t = pl.program_id(2)
    last_step = pl.num_programs(2) - 1
    g = group_ids_ref[t]
    # YOUR CODE BEGIN
    first = (t == 0) | (g != group_ids_ref[jnp.maximum(t - 1, 0)])
    last = (t == last_step) | (g != group_ids_ref[jnp.minimum(t + 1, last_step)])

    @pl.when(first)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    rows = m_tile_ids_ref[t] * bm + lax.broadcasted_iota(jnp.int32, (bm, bk), 0)
    mine = (rows >= offsets_ref[g]) & (rows < offsets_ref[g + 1])
    lhs = jnp.where(mine, lhs_ref[...], 0.0)
    acc_ref[...] += lax.dot_general(lhs, grad_ref[...], (((0,), (0,)), ((), ())),
                                    preferred_element_type=jnp.float32)

    @pl.when(last)
    def _():
        o_ref[...] = acc_ref[...]
    # YOUR CODE END


def tgmm(lhs, grad_out, group_sizes):
    M, K = lhs.shape
    _, N = grad_out.shape
    G = group_sizes.shape[0]
    metadata, num_tiles = make_group_metadata(group_sizes, M, bm, visit_empty_groups=True)

    def lhs_index_map(k, n, t, metadata):
        _, _, m_tile_ids_ref = metadata
        return (m_tile_ids_ref[t], k)

    def grad_index_map(k, n, t, metadata):
        _, _, m_tile_ids_ref = metadata
        return (m_tile_ids_ref[t], n)

    def out_index_map(k, n, t, metadata):
        _, group_ids_ref, _ = metadata
        return (group_ids_ref[t], k, n)

    return pl.pallas_call(
        tgmm_kernel,
        out_shape=jax.ShapeDtypeStruct((G, K, N), jnp.float32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(K // bk, N // bn, num_tiles),
            in_specs=[pl.BlockSpec((bm, bk), lhs_index_map),
                      pl.BlockSpec((bm, bn), grad_index_map)],
            out_specs=pl.BlockSpec((None, bk, bn), out_index_map),
            scratch_shapes=[pltpu.VMEM((bk, bn), jnp.float32)],
        ),
        interpret=True,
    )(metadata, lhs, grad_out)


def reference(lhs, grad_out, group_sizes):
    """grad_rhs[g] = lhs[rows of g].T @ grad_out[rows of g]; zeros for an empty group."""
    offsets = jnp.concatenate([jnp.zeros((1,), jnp.int32), jnp.cumsum(group_sizes)])
    rows = jnp.arange(lhs.shape[0])[:, None]
    grads = []
    for g in range(group_sizes.shape[0]):
        mine = (rows >= offsets[g]) & (rows < offsets[g + 1])
        grads.append(jnp.where(mine, lhs, 0.0).T @ grad_out)
    return jnp.stack(grads)


# %%
for seed, (M, K, N), sizes in [
    (480, (1024, 256, 128), [300, 212, 512]),  # boundaries inside tiles
    (481, (1024, 128, 256), [0, 400, 0, 624]),  # empty groups first and in the middle
    (482, (1024, 128, 128), [40, 0, 90, 150, 0, 0, 700, 44]),  # three groups in tile 0
    (483, (512, 128, 128), [256, 256, 0]),  # an empty group at the very end
    (484, (512, 256, 256), [128, 128, 128, 128]),  # equal groups: one tile each
]:
    kl, kg = jax.random.split(jax.random.key(seed))
    lhs = jax.random.normal(kl, (M, K))
    grad_out = jax.random.normal(kg, (M, N))
    group_sizes = jnp.array(sizes, dtype=jnp.int32)
    check(tgmm(lhs, grad_out, group_sizes), reference(lhs, grad_out, group_sizes),
          atol=1e-3, rtol=1e-3, name=f"group_sizes={sizes}, K={K}, N={N}")

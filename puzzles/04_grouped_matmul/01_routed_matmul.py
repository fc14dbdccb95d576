# %% [markdown]
# # Scalar prefetch: a batched matmul with routed weights
#
# **Goal:** compute `o[b] = x[b] @ w[expert_ids[b]]` for a batch of token blocks, where a small
# table of integers decides which weight matrix each block meets. The table is read by the
# *index map*, so the right weights arrive in VMEM before the kernel runs.
#
# ## Data-dependent blocks
#
# In chapter 01 every index map was arithmetic on the grid indices: `lambda b: (b, 0, 0)`.
# The block a step sees was known before any data existed. A mixture-of-experts layer breaks
# that: a router decides at run time which expert (which weight matrix) each group of tokens
# goes to. Here `x` holds `B` blocks of tokens, `w` holds `E` expert weight matrices, and the
# router's decision is a table `expert_ids` of `B` integers:
#
# ```
# o[b] = x[b] @ w[expert_ids[b]]        x: (B, T, D)   w: (E, D, F)   o: (B, T, F)
# ```
#
# The grid is `(B,)`, one step per token block. The blocks of `x` and `o` follow the grid as
# usual. The block of `w` at step `b` is `expert_ids[b]`: the index map has to *read the table*.
#
# ## Why the table must be in SMEM, before the grid starts
#
# Recall the pipeline of chapter 01: while step `b` computes, the DMA engine is already copying
# the blocks of step `b + 1` into VMEM. To start that copy, the TPU's scalar unit evaluates the
# index maps of the *next* step. The scalar unit reads only its own small memory, SMEM; it
# cannot look into VMEM, let alone HBM. So a table that steers the index maps must be sitting
# in SMEM before the first step starts.
#
# That is what **scalar prefetch** does. With
# `grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, ...)`, the *first* argument of
# the call is copied whole into SMEM before the grid starts, and three things change:
#
# - **The call** passes it first: `pl.pallas_call(...)(expert_ids, x, w)`. It gets no
#   BlockSpec; `in_specs` lists only the other inputs.
# - **Every index map** receives it after the grid indices: `lambda b, ids_ref: ...`. It is a
#   *ref*: read one entry with `ids_ref[b]`.
# - **The kernel** receives it first: `kernel(ids_ref, x_ref, w_ref, o_ref)`. Most kernels use
#   the table only for their index maps and ignore it in the body, as this one may.
#
# `grid`, `in_specs`, `out_specs` (and `scratch_shapes`) move into the grid spec; nothing else
# about them changes.
#
# ![the expert_ids table in SMEM steers which w block the DMA engine copies](../../images/gmm_prefetch.svg)
#
# ## Routing is cheaper when it is sorted
#
# The pipeline copies an input block only when its block index differs from the previous
# step's. If the router's choices are *sorted*, consecutive token blocks that go to the same
# expert reuse the weights already in VMEM. In the second check below, six token blocks visit
# three experts and `w` is copied three times, not six (run it with `--stats` and compare the
# HBM bytes read). Grouped matmul, the subject of this chapter, is built on that idea: sort
# tokens by expert so each expert's weights stream in once.
#
# ## Your task
#
# Write the kernel body (one matmul), and the index map of `w`.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check


# %%
def routed_matmul_kernel(ids_ref, x_ref, w_ref, o_ref):
    # ids_ref: (B,) int32 in SMEM; x_ref: (T, D), w_ref: (D, F), o_ref: (T, F) in VMEM
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def w_index_map(b, ids_ref):
    # block index of w at grid step b: (expert, 0, 0)
    # YOUR CODE BEGIN
    return (b, 0, 0)  # the grid step, not the expert: fix this
    # YOUR CODE END


def routed_matmul(expert_ids, x, w):
    B, T, D = x.shape
    _, _, F = w.shape
    return pl.pallas_call(
        routed_matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((B, T, F), jnp.float32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(B,),
            in_specs=[
                pl.BlockSpec((None, T, D), lambda b, ids_ref: (b, 0, 0)),
                pl.BlockSpec((None, D, F), w_index_map),
            ],
            out_specs=pl.BlockSpec((None, T, F), lambda b, ids_ref: (b, 0, 0)),
        ),
        interpret=True,
    )(expert_ids, x, w)


def reference(expert_ids, x, w):
    return jnp.einsum("btd,bdf->btf", x, w[expert_ids])


# %%
# A permutation: every expert is used once.
x = jax.random.normal(jax.random.key(400), (4, 64, 128))
w = jax.random.normal(jax.random.key(401), (4, 128, 128))
expert_ids = jnp.array([2, 0, 3, 1], dtype=jnp.int32)
check(routed_matmul(expert_ids, x, w), reference(expert_ids, x, w), atol=1e-3, rtol=1e-3,
      name="permutation [2, 0, 3, 1]")

# Sorted routing with repeats: six token blocks, three experts, w copied three times.
x = jax.random.normal(jax.random.key(402), (6, 64, 128))
w = jax.random.normal(jax.random.key(403), (3, 128, 256))
expert_ids = jnp.array([0, 0, 0, 1, 2, 2], dtype=jnp.int32)
check(routed_matmul(expert_ids, x, w), reference(expert_ids, x, w), atol=1e-3, rtol=1e-3,
      name="sorted [0, 0, 0, 1, 2, 2]")

# Eight experts, two of them unused and one used twice, not in order.
x = jax.random.normal(jax.random.key(404), (5, 64, 128))
w = jax.random.normal(jax.random.key(405), (8, 128, 128))
expert_ids = jnp.array([7, 3, 0, 3, 5], dtype=jnp.int32)
check(routed_matmul(expert_ids, x, w), reference(expert_ids, x, w), atol=1e-3, rtol=1e-3,
      name="unsorted [7, 3, 0, 3, 5]")

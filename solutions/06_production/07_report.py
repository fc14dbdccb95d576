# %% [markdown]
# # The report: what was tested, how fast it can be, what it cannot do
#
# **Goal:** the document that goes with a kernel into code review. It states the shapes and
# dtypes the kernel was tested on, with the measured deviations; the work each of its calls
# does, checked against the emulator's counters; the roofline estimate of its time on each TPU
# generation at a production shape; and its known limits.
#
# ## Why a report
#
# A reviewer cannot rerun your experiments in their head. Kernel pull requests in production
# codebases come with the same few facts, because they answer the questions every reviewer
# asks: *Is it correct where it will be used?* (the tested grid, in the dtypes of training),
# *is it worth it?* (how far from the hardware's limits it can get), and *where will it break?*
# (the known limits, written down before a user finds them).
#
# ## The work of each call
#
# Puzzle 1.15 counted a matmul; the three calls here follow the same pipeline rules: an input
# block is fetched when its block index changes from one grid step to the next, an output
# block is written once. With `B` sequences of `T` tokens, `m = V // block_v` vocabulary tiles,
# `itemsize` bytes per element of `h` and `w`, and 4 bytes per int32 label or float32 column
# value:
#
# | call | grid | MXU FLOPs | `h` read | `w` read |
# |---|---|---|---|---|
# | forward | `(B, T // block_t, m)` | `2 B T D V` | once | once per token block |
# | dh | `(B, T // block_t, m)` | `4 B T D V` (recompute + `dlogits @ w.T`) | once | once per token block |
# | dw | `(m, B, T // block_t)` | `4 B T D V` (recompute + `h.T @ dlogits`) | once per vocabulary tile | once |
#
# The `(block_t, 1)` columns ride along with their token block: the forward kernel reads the
# labels once and writes two float32 columns; the backward kernels read four columns (labels,
# lse, coef, g_loss), once in the dh kernel and once per vocabulary tile in the dw kernel.
# Each backward call writes its gradient once, in the dtype of its input.
# The **transcendentals** (`exp`, `log`, which run on their own unit and are counted apart) are
# one `exp` per logit in every call, plus in the forward kernel one `exp` per token and
# vocabulary tile (the correction factor) and one `log` per token.
#
# The vector unit's FLOPs (masks, maxima, sums) are left out of the model here: about ten per
# logit, against `2 D` per logit on the MXU, so a few percent at production `D`.
#
# Where the intensity comes from, in bfloat16: for each `w` tile it fetches (`D * block_v * 2`
# bytes), the forward kernel does `2 * block_t * D * block_v` FLOPs, so its intensity is about
# `block_t` FLOPs per byte. The dh kernel does twice the work for the same traffic (about
# `2 * block_t`), and the dw kernel streams `h` instead of `w` (about `2 * block_v`). Compare
# them with the ridge points: 240 on v5e, 561 on v6e. The estimates cell shows what follows:
# with `block_t = 256`, the forward kernel is compute bound on v5e but memory bound on v6e,
# where only a `block_t` above 561 would let the MXU set the pace.
#
# ## Your task
#
# 1. `forward_work`: the forward call's grid steps, MXU FLOPs, transcendentals and HBM bytes.
# 2. `backward_work`: the same for the dh and dw calls.
#
# `check_counts` compares them with the emulator on the first tested shape, in bfloat16. The
# rest of the report is given: the tested grid, the estimates per generation at a production
# shape (with puzzle 1.15's `roofline_bound`, counting MXU FLOPs only), and the known limits.
# The grid reports the gradients' deviation relative to their largest entry: many gradient
# entries are close to 0, where a pointwise relative deviation says nothing.
#
# ## Known limits
#
# These are printed by the last cell too; a report that hides them is not a report.
#
# - **No ragged shapes.** `T` must be a multiple of `block_t` and `V` of `block_v`. Real
#   vocabularies (50 257, 151 936) need `w` padded to a multiple of `block_v` *and* the padded
#   columns masked to `-inf` in the kernels (chapter 01, puzzle 12), or the padding enters the
#   softmax.
# - **No ignored tokens.** Training batches have padding tokens (often labelled -100) whose
#   loss and gradient must be 0. Today the caller must mask `loss` and pass zero cotangents.
# - **Narrow columns.** The `(block_t, 1)` columns use 1 lane of 128 in every vector register
#   they touch, and their stores are masked. Production kernels store per-token statistics
#   lane-dense, as `(block_t, 128)` repeated across lanes or with tokens along the lanes.
# - **VMEM at large `D`.** The dw kernel holds a `(D, block_v)` float32 accumulator, plus the
#   double-buffered `h` block, `w` tile and `dw` block: 28 MiB at `D = 4096`, `block_t = 256`,
#   `block_v = 512` in bfloat16, above the 16 MiB a kernel gets by default on v5e. It needs
#   `pltpu.CompilerParams(vmem_limit_bytes=...)`, a smaller `block_v`, or a grid axis over `D`.
# - **The backward pass recomputes the logits twice**, once per backward kernel: the backward
#   pass does 4 times the MXU work of the forward pass.
# - **`z_loss_weight` is static.** It is a `nondiff_argnums` argument: a Python float, and a
#   new value means a new trace under `jax.jit`. A traced weight (a schedule) would have to
#   become a regular input, whose cotangent the backward rule returns: `sum(g_loss * lse**2)`.
# - **Verified on the emulator and on CPU only.** The timings are lower bounds from a model,
#   not measurements: the next step is a benchmark on the chips in the table.

# %%
import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check, check_counts


# %%
# From puzzle 5, with the forward call split out (`forward_call` returns the kernel's own
# outputs, which `check_counts` needs).
@dataclasses.dataclass(frozen=True)
class BlockSizes:
    block_t: int  # tokens per block, in all three kernels
    block_v: int  # vocabulary entries per tile, in all three kernels

    @classmethod
    def get_default(cls):
        return cls(block_t=128, block_v=512)


# The kernels of puzzles 2 and 3 on a grid with the batch first: the bodies are unchanged
# but for the grid axis of the vocabulary (forward and dh: 2) and of the token blocks (dw).
def forward_kernel(h_ref, w_ref, labels_ref, ce_ref, lse_ref, m_ref, l_ref, picked_ref):
    v = pl.program_id(2)
    logits = jnp.dot(h_ref[...], w_ref[...], preferred_element_type=jnp.float32)
    cols = v * w_ref.shape[1] + lax.broadcasted_iota(jnp.int32, logits.shape, 1)

    @pl.when(v == 0)
    def _init():
        m_ref[...] = jnp.full(m_ref.shape, -jnp.inf, jnp.float32)
        l_ref[...] = jnp.zeros(l_ref.shape, jnp.float32)
        picked_ref[...] = jnp.zeros(picked_ref.shape, jnp.float32)

    picked_ref[...] += jnp.sum(jnp.where(cols == labels_ref[...], logits, 0.0), axis=1,
                               keepdims=True)
    m_old = m_ref[...]
    m_new = jnp.maximum(m_old, jnp.max(logits, axis=1, keepdims=True))
    l_ref[...] = (l_ref[...] * jnp.exp(m_old - m_new)
                  + jnp.sum(jnp.exp(logits - m_new), axis=1, keepdims=True))
    m_ref[...] = m_new

    @pl.when(v == pl.num_programs(2) - 1)
    def _finish():
        lse = m_ref[...] + jnp.log(l_ref[...])
        lse_ref[...] = lse
        ce_ref[...] = lse - picked_ref[...]


def dlogits_tile(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, v):
    logits = jnp.dot(h_ref[...], w_ref[...], preferred_element_type=jnp.float32)
    cols = v * w_ref.shape[1] + lax.broadcasted_iota(jnp.int32, logits.shape, 1)
    p = jnp.exp(logits - lse_ref[...])
    return p * coef_ref[...] - jnp.where(cols == labels_ref[...], g_loss_ref[...], 0.0)


def dh_kernel(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, dh_ref, acc_ref):
    v = pl.program_id(2)
    dlogits = dlogits_tile(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, v)

    @pl.when(v == 0)
    def _init():
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    acc_ref[...] += jnp.einsum("tv,dv->td", dlogits.astype(w_ref.dtype), w_ref[...],
                               preferred_element_type=jnp.float32)

    @pl.when(v == pl.num_programs(2) - 1)
    def _finish():
        dh_ref[...] = acc_ref[...].astype(dh_ref.dtype)


def dw_kernel(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, dw_ref, acc_ref):
    # Grid (V // block_v, B, T // block_t): dw sums over batch and token blocks, both inner.
    v = pl.program_id(0)
    b = pl.program_id(1)
    i = pl.program_id(2)
    dlogits = dlogits_tile(h_ref, w_ref, labels_ref, lse_ref, coef_ref, g_loss_ref, v)

    @pl.when((b == 0) & (i == 0))
    def _init():
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    acc_ref[...] += jnp.einsum("td,tv->dv", h_ref[...], dlogits.astype(h_ref.dtype),
                               preferred_element_type=jnp.float32)

    @pl.when((b == pl.num_programs(1) - 1) & (i == pl.num_programs(2) - 1))
    def _finish():
        dw_ref[...] = acc_ref[...].astype(dw_ref.dtype)


def forward_call(h, w, labels, block_sizes):
    # h (B, T, D), labels (B, T) -> the kernel's own outputs ce (B, T, 1), lse (B, T, 1)
    B, T, D = h.shape
    V = w.shape[1]
    bt, bv = block_sizes.block_t, block_sizes.block_v
    column = pl.BlockSpec((None, bt, 1), lambda b, i, v: (b, i, 0))
    out = jax.ShapeDtypeStruct((B, T, 1), jnp.float32)
    ce, lse = pl.pallas_call(
        forward_kernel,
        out_shape=(out, out),
        grid=(B, T // bt, V // bv),
        in_specs=[pl.BlockSpec((None, bt, D), lambda b, i, v: (b, i, 0)),
                  pl.BlockSpec((D, bv), lambda b, i, v: (0, v)),
                  column],
        out_specs=(column, column),
        scratch_shapes=[pltpu.VMEM((bt, 1), jnp.float32)] * 3,
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary")),
        interpret=True,
    )(h, w, labels[..., None])
    return ce, lse


def forward(h, w, labels, block_sizes):
    # h (B, T, D), labels (B, T) -> ce (B, T), lse (B, T)
    ce, lse = forward_call(h, w, labels, block_sizes)
    return ce[..., 0], lse[..., 0]


def backward(h, w, labels, lse, g_loss, g_lse, z_loss_weight, block_sizes):
    # h (B, T, D), labels, lse, g_loss, g_lse (B, T) -> dh (B, T, D), dw (D, V)
    B, T, D = h.shape
    V = w.shape[1]
    bt, bv = block_sizes.block_t, block_sizes.block_v
    coef = g_loss * (1.0 + 2.0 * z_loss_weight * lse) + g_lse
    columns = [x[..., None] for x in (labels, lse, coef, g_loss)]
    column = pl.BlockSpec((None, bt, 1), lambda b, i, v: (b, i, 0))
    h_rows = pl.BlockSpec((None, bt, D), lambda b, i, v: (b, i, 0))
    dh = pl.pallas_call(
        dh_kernel,
        out_shape=jax.ShapeDtypeStruct(h.shape, h.dtype),
        grid=(B, T // bt, V // bv),
        in_specs=[h_rows, pl.BlockSpec((D, bv), lambda b, i, v: (0, v))] + [column] * 4,
        out_specs=h_rows,
        scratch_shapes=[pltpu.VMEM((bt, D), jnp.float32)],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary")),
        interpret=True,
    )(h, w, *columns)
    column_t = pl.BlockSpec((None, bt, 1), lambda v, b, i: (b, i, 0))
    w_tile_t = pl.BlockSpec((D, bv), lambda v, b, i: (0, v))
    dw = pl.pallas_call(
        dw_kernel,
        out_shape=jax.ShapeDtypeStruct(w.shape, w.dtype),
        grid=(V // bv, B, T // bt),
        in_specs=[pl.BlockSpec((None, bt, D), lambda v, b, i: (b, i, 0)), w_tile_t]
        + [column_t] * 4,
        out_specs=w_tile_t,
        scratch_shapes=[pltpu.VMEM((D, bv), jnp.float32)],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "arbitrary", "arbitrary")),
        interpret=True,
    )(h, w, *columns)
    return dh, dw


# Puzzle 4's custom_vjp, with the block sizes as a second static argument.
@functools.partial(jax.custom_vjp, nondiff_argnums=(3, 4))
def cross_entropy(h, w, labels, z_loss_weight, block_sizes):
    ce, lse = forward(h, w, labels, block_sizes)
    return ce + z_loss_weight * lse * lse, lse


def cross_entropy_fwd(h, w, labels, z_loss_weight, block_sizes):
    ce, lse = forward(h, w, labels, block_sizes)
    return (ce + z_loss_weight * lse * lse, lse), (h, w, labels, lse)


def cross_entropy_bwd(z_loss_weight, block_sizes, residuals, cotangents):
    h, w, labels, lse = residuals
    g_loss, g_lse = cotangents
    dh, dw = backward(h, w, labels, lse, g_loss, g_lse, z_loss_weight, block_sizes)
    return dh, dw, None


cross_entropy.defvjp(cross_entropy_fwd, cross_entropy_bwd)


def reference(h, w, labels, z_loss_weight=0.0):
    # Puzzle 1's reference for any number of leading axes: h (..., D), labels (...).
    logits = jnp.dot(h, w, preferred_element_type=jnp.float32)
    lse = jax.nn.logsumexp(logits, axis=-1)
    picked = jnp.sum(logits * jax.nn.one_hot(labels, w.shape[1]), axis=-1)
    return lse - picked + z_loss_weight * lse * lse, lse


def validate_block_sizes(block_sizes, T, V):
    bt, bv = block_sizes.block_t, block_sizes.block_v
    if T % bt != 0:
        raise ValueError(f"block_t={bt} must divide the number of tokens T={T}")
    if V % bv != 0:
        raise ValueError(f"block_v={bv} must divide the vocabulary size V={V}")
    if bt % 8 != 0 and bt != T:
        raise ValueError(f"block_t={bt} must be a multiple of 8 or equal to T={T}: it is the "
                         "second-to-last dimension of the h block (the (8, 128) rule)")
    if bv % 128 != 0 and bv != V:
        raise ValueError(f"block_v={bv} must be a multiple of 128 or equal to V={V}: it is the "
                         "last dimension of the w tile (the (8, 128) rule)")


def cross_entropy_loss(h, w, labels, *, z_loss_weight=0.0, block_sizes=None,
                       implementation="pallas"):
    """Per-token loss (with z-loss) and logsumexp of the logits h @ w.

    h: (B, T, D) or (T, D); w: (D, V); labels: (B, T) or (T,) int32.
    Returns loss and lse, float32, shaped like labels.
    implementation: "pallas" (the kernels) or "xla" (the reference, any shape).
    """
    unbatched = h.ndim == 2
    if unbatched:
        h, labels = h[None], labels[None]
    if implementation == "pallas":
        if block_sizes is None:
            block_sizes = BlockSizes.get_default()
        validate_block_sizes(block_sizes, h.shape[1], w.shape[1])
        loss, lse = cross_entropy(h, w, labels, z_loss_weight, block_sizes)
    elif implementation == "xla":
        loss, lse = reference(h, w, labels, z_loss_weight)
    else:
        raise ValueError(f"implementation={implementation!r}: use 'pallas' or 'xla'")
    if unbatched:
        loss, lse = loss[0], lse[0]
    return loss, lse


# %%
def forward_work(B, T, D, V, itemsize, block_sizes):
    # The counters of the forward call, as Python ints.
    bt, bv = block_sizes.block_t, block_sizes.block_v
    # YOUR CODE BEGIN
    token_blocks = B * T // bt
    tiles = V // bv
    grid_steps = token_blocks * tiles
    mxu_flops = 2 * B * T * D * V
    transcendentals = B * T * V + B * T * tiles + B * T
    hbm_bytes_read = B * T * D * itemsize + token_blocks * D * V * itemsize + B * T * 4
    hbm_bytes_written = 2 * B * T * 4
    # YOUR CODE END
    return dict(grid_steps=grid_steps, mxu_flops=mxu_flops, transcendentals=transcendentals,
                hbm_bytes_read=hbm_bytes_read, hbm_bytes_written=hbm_bytes_written)


def backward_work(B, T, D, V, itemsize, block_sizes):
    # The counters of the dh call and of the dw call, as two dicts like forward_work's.
    bt, bv = block_sizes.block_t, block_sizes.block_v
    # YOUR CODE BEGIN
    token_blocks = B * T // bt
    tiles = V // bv
    columns = 4 * B * T * 4  # labels, lse, coef, g_loss
    dh = dict(grid_steps=token_blocks * tiles, mxu_flops=4 * B * T * D * V,
              transcendentals=B * T * V,
              hbm_bytes_read=B * T * D * itemsize + token_blocks * D * V * itemsize + columns,
              hbm_bytes_written=B * T * D * itemsize)
    dw = dict(grid_steps=token_blocks * tiles, mxu_flops=4 * B * T * D * V,
              transcendentals=B * T * V,
              hbm_bytes_read=tiles * (B * T * D * itemsize + columns) + D * V * itemsize,
              hbm_bytes_written=D * V * itemsize)
    # YOUR CODE END
    return dh, dw


# From puzzle 1.15: the roofline lower bound, with the MXU FLOPs as the FLOP count.
STEP_SECONDS = 0.35e-6


def roofline_bound(work, info):
    hbm_bytes = work["hbm_bytes_read"] + work["hbm_bytes_written"]
    compute = work["mxu_flops"] / info.bf16_ops_per_second
    memory = hbm_bytes / info.mem_bw_bytes_per_second
    overhead = work["grid_steps"] * STEP_SECONDS
    if overhead > max(compute, memory):
        kind = "step overhead"
    elif compute >= memory:
        kind = "compute"
    else:
        kind = "memory"
    return dict(seconds=max(compute, memory) + overhead,
                intensity=work["mxu_flops"] / max(hbm_bytes, 1), bound=kind)


def make_inputs(seed, B, T, D, V):
    kh, kw, ky, kg = jax.random.split(jax.random.key(seed), 4)
    h = jax.random.normal(kh, (B, T, D))
    w = jax.random.normal(kw, (D, V)) * (4.0 / D**0.5)
    labels = jax.random.randint(ky, (B, T), 0, V)
    g_lse = jax.random.normal(kg, (B, T)) * 0.1
    return h, w, labels, g_lse


def deviation(actual, expected):
    # Puzzle 1's deviation, in numpy: the report measures many arrays, and numpy compiles nothing.
    actual = np.asarray(actual, dtype=np.float32)
    expected = np.asarray(expected, dtype=np.float32)
    diff = np.abs(actual - expected)
    floor = np.maximum(np.abs(expected), np.finfo(np.float32).tiny)
    return float(np.max(diff)), float(np.max(diff / floor))


# %%
# The tested grid: every shape in both dtypes, forward and gradients against the xla path.
TESTED = [  # (B, T, D, V, block_t, block_v)
    (2, 64, 64, 1024, 32, 512),
    (1, 128, 128, 2048, 64, 1024),
]
TOLERANCE = {"float32": 1e-4, "bfloat16": 5e-2}

print("  B    T    D     V  dtype     blocks      loss: max abs   max rel   grads: max abs   "
      "/ max |grad|")
for B, T, D, V, bt, bv in TESTED:
    h32, w32, labels, g_lse = make_inputs(670, B, T, D, V)
    sizes = BlockSizes(bt, bv)

    def objective(h, w, implementation):
        loss, lse = cross_entropy_loss(h, w, labels, z_loss_weight=1e-4, block_sizes=sizes,
                                       implementation=implementation)
        return loss.sum() + jnp.sum(g_lse * lse), (loss, lse)

    value_and_grads = jax.jit(jax.value_and_grad(objective, argnums=(0, 1), has_aux=True),
                              static_argnums=2)
    for dtype in (jnp.float32, jnp.bfloat16):
        name = jnp.dtype(dtype).name
        h, w = h32.astype(dtype), w32.astype(dtype)
        (_, kernel_out), kernel_grads = value_and_grads(h, w, "pallas")
        (_, xla_out), xla_grads = value_and_grads(h, w, "xla")
        loss_abs, loss_rel = deviation(kernel_out[0], xla_out[0])
        grad_abs = max(deviation(kernel_grads[i], xla_grads[i])[0] for i in (0, 1))
        grad_scale = max(float(np.max(np.abs(np.asarray(g, dtype=np.float32))))
                         for g in xla_grads)
        print(f"{B:3} {T:4} {D:4} {V:5}  {name:8} ({bt:3}, {bv:4})     {loss_abs:9.1e} "
              f"{loss_rel:9.1e}         {grad_abs:9.1e}   {grad_abs / grad_scale:9.1e}")
        check(kernel_out, xla_out, atol=1e-4, rtol=1e-5, name=f"{B}x{T}x{D}x{V} {name} outputs")
        check(kernel_grads, xla_grads, atol=TOLERANCE[name], rtol=TOLERANCE[name],
              name=f"{B}x{T}x{D}x{V} {name} gradients")

# %%
# The work formulas against the emulator's counters, on the first tested shape in bfloat16, the
# dtype of the estimates below (SKIPPED under real JAX, which keeps no counters).
B, T, D, V, bt, bv = TESTED[0]
sizes = BlockSizes(bt, bv)
h, w, labels, g_lse = make_inputs(671, B, T, D, V)
h, w = h.astype(jnp.bfloat16), w.astype(jnp.bfloat16)
ce, lse = forward_call(h, w, labels, sizes)
dh, dw = backward(h, w, labels, lse[..., 0], jnp.ones((B, T)), g_lse, 1e-4, sizes)
dh_work, dw_work = backward_work(B, T, D, V, h.dtype.itemsize, sizes)
check_counts(ce, name="forward counts", **forward_work(B, T, D, V, h.dtype.itemsize, sizes))
check_counts(dh, name="dh counts", **dh_work)
check_counts(dw, name="dw counts", **dw_work)
# What the theory's table states, checked anywhere (under real JAX too): the grid steps and MXU
# FLOPs of the three calls.
fw_work = forward_work(B, T, D, V, h.dtype.itemsize, sizes)
table_steps = B * (T // bt) * (V // bv)
check(jnp.array([[work["grid_steps"], work["mxu_flops"]]
                 for work in (fw_work, dh_work, dw_work)], jnp.float32),
      jnp.array([[table_steps, 2 * B * T * D * V], [table_steps, 4 * B * T * D * V],
                 [table_steps, 4 * B * T * D * V]], jnp.float32),
      name="grid steps and MXU FLOPs of the table")

# %%
# Estimates per generation at a production shape: 8192 tokens, D 4096, a 256k vocabulary.
B, T, D, V = 4, 2048, 4096, 262144
sizes = BlockSizes(block_t=256, block_v=512)
work = dict(zip(("forward", "dh", "dw"), (forward_work(B, T, D, V, 2, sizes),)
                + backward_work(B, T, D, V, 2, sizes)))
print(f"\nroofline at B {B}, T {T}, D {D}, V {V}, bfloat16, {sizes}, one TensorCore:")
print(" " * 10 + "".join(f"  {call:<27}" for call in ("forward", "dh", "dw")) + "  total")
print("chip ridge" + f"  {'flop/B':>6} {'bound':8} {'time >=':>11}" * 3 + f"  {'time >=':>11}")
chips = (("v4", pltpu.ChipVersion.TPU_V4), ("v5e", pltpu.ChipVersion.TPU_V5E),
         ("v5p", pltpu.ChipVersion.TPU_V5P), ("v6e", pltpu.ChipVersion.TPU_V6E),
         ("7x", pltpu.ChipVersion.TPU_7X))
for label, chip in chips:
    info = pltpu.get_tpu_info_for_chip(chip, 1)
    ridge = info.bf16_ops_per_second / info.mem_bw_bytes_per_second
    line = f"{label:4} {ridge:5.0f}"
    total = 0.0
    for call in ("forward", "dh", "dw"):
        r = roofline_bound(work[call], info)
        total += r["seconds"]
        line += f"  {r['intensity']:6.0f} {r['bound']:8} {r['seconds'] * 1e3:8.2f} ms"
    print(line + f"  {total * 1e3:8.2f} ms")

# %%
print("\nknown limits:")
for limit in (
    "T % block_t == 0 and V % block_v == 0: no padding or masking of ragged shapes",
    "no ignored tokens: mask the loss and pass zero cotangents for padding",
    "(block_t, 1) columns: 1 lane of 128, masked stores",
    "dw kernel VMEM at D 4096, block_t 256, block_v 512 (bf16): 28 MiB > 16 MiB v5e default",
    "backward recomputes the logits in both kernels: 4x the forward's MXU work",
    "z_loss_weight is static (nondiff_argnums): a new value is a new trace",
    "verified on the emulator and CPU; times are roofline bounds, not measurements",
):
    print(f"  - {limit}")

# %% [markdown]
# # Online softmax inside one kernel
#
# **Goal:** compute a row softmax in one kernel that walks across its VMEM block in column
# chunks with `lax.fori_loop`, carrying the running `(m, l)` of every row from chunk to chunk.
#
# ## The same idea, one level down the memory hierarchy
#
# The previous puzzle saved a sweep over **HBM** by carrying `(m, l)` across grid steps. Inside
# a kernel there is a second, smaller level of the same story. The vector unit does not compute
# on VMEM directly: it loads data into a few dozen **vector registers** (each holds an 8 x 128
# tile of float32), computes there, and stores results back to VMEM.
#
# Look at the row softmax of puzzle 1 from that angle, on a block of `bm` rows by `N` columns:
#
# - `jnp.max(x, ...)` streams the whole block through the registers;
# - `jnp.exp(x - m)` streams it again and produces a *second* full-size block, `e`, far too big
#   for the registers, so it lands in VMEM;
# - the sum reads `e` back, and the division reads `e` once more and writes the output.
#
# For a wide block, that temporary `e` costs as much VMEM as the input itself, and VMEM also has
# to hold the double-buffered input and output blocks. Working in column chunks of `bc`
# columns with a loop keeps every temporary at `(bm, bc)`, small enough to stay in registers,
# and the online recurrence lets the statistics loop read each chunk exactly once:
#
# ```
# loop 1 (statistics), for each chunk j:      carry (m, l), each of shape (bm, 1)
#     m_new = max(m, row max of chunk j)
#     l     = l * exp(m - m_new) + row sum of exp(chunk j - m_new)
# loop 2 (output), for each chunk j:
#     o[:, chunk j] = exp(chunk j - m) / l
# ```
#
# This is the same recurrence as before, now for `bm` rows at once: `m` and `l` are columns of
# shape `(bm, 1)`, and the reductions run along `axis=1` with `keepdims=True`. The identities
# are the same too: start `m` at `-inf` and `l` at `0`.
#
# ![loop 1 carries (m, l) across column chunks; loop 2 writes the output chunk by chunk](../../images/softmax_chunk_loop.svg)
#
# ## The loop carry
#
# `lax.fori_loop(lower, upper, body, init)` calls `body(j, carry)` for `j = lower ..
# upper - 1`, and each call returns the next carry. The carry can be a tuple, here `(m, l)`,
# as long as every call returns the same shapes and dtypes it received. So build the initial
# values with the right shape and dtype: `jnp.full((bm, 1), -jnp.inf, jnp.float32)` and
# `jnp.zeros((bm, 1), jnp.float32)`. Slice a chunk of the ref with
# `x_ref[:, pl.ds(j * bc, bc)]`, which reads only those columns. The output loop stores into
# the matching `o_ref[:, pl.ds(j * bc, bc)]` and has nothing to carry (pass and return `0`).
#
# Production TPU kernels use this pattern. JAX's flash-attention kernel keeps a large key/value
# block in VMEM per grid step and loops over smaller sub-blocks of it inside the kernel
# (`pl.loop`, a decorator form of `lax.fori_loop`), updating the softmax statistics at each.

# %%
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from pallas_check import check

# %%
bm = 8  # rows per grid step
bc = 128  # columns per chunk of the inner loop


def softmax_kernel(x_ref, o_ref):
    # x_ref, o_ref: (bm, N) VMEM blocks; N is a multiple of bc
    num_chunks = x_ref.shape[1] // bc
    # YOUR CODE BEGIN
    def stats_body(j, carry):
        m, l = carry
        x = x_ref[:, pl.ds(j * bc, bc)]  # (bm, bc)
        m_new = jnp.maximum(m, jnp.max(x, axis=1, keepdims=True))
        l = l * jnp.exp(m - m_new) + jnp.sum(jnp.exp(x - m_new), axis=1, keepdims=True)
        return m_new, l

    m0 = jnp.full((bm, 1), -jnp.inf, jnp.float32)
    l0 = jnp.zeros((bm, 1), jnp.float32)
    m, l = lax.fori_loop(0, num_chunks, stats_body, (m0, l0))

    def output_body(j, carry):
        cols = pl.ds(j * bc, bc)
        o_ref[:, cols] = jnp.exp(x_ref[:, cols] - m) / l
        return carry

    lax.fori_loop(0, num_chunks, output_body, 0)
    # YOUR CODE END


def row_softmax(x):
    M, N = x.shape
    return pl.pallas_call(
        softmax_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), x.dtype),
        grid=(M // bm,),
        in_specs=[pl.BlockSpec((bm, N), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((bm, N), lambda i: (i, 0)),
        interpret=True,
    )(x)


# %%
# 4 row blocks of 8 chunks; every row rises to the right, so later chunks raise the maximum.
M, N = 32, 1024
x = 2.0 * jax.random.normal(jax.random.key(400), (M, N)) + jnp.linspace(0.0, 16.0, N)
check(row_softmax(x), jax.nn.softmax(x, axis=1), atol=1e-6, rtol=1e-4, name="rising rows")

# Far below zero: a running maximum that starts at 0 makes every exp underflow.
x = jax.random.uniform(jax.random.key(401), (M, N), minval=-130.0, maxval=-110.0)
check(row_softmax(x), jax.nn.softmax(x, axis=1), atol=1e-6, rtol=1e-4, name="far below zero")

# A second shape (2 row blocks of 5 chunks) with logits in the hundreds, rising to the right.
x = 30.0 * jax.random.normal(jax.random.key(402), (16, 640)) + jnp.linspace(0.0, 300.0, 640)
check(row_softmax(x), jax.nn.softmax(x, axis=1), atol=1e-6, rtol=1e-4, name="large logits")

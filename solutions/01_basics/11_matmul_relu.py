# %% [markdown]
# # Fused matmul, bias and ReLU
#
# **Goal:** compute `relu(a @ b + bias)` in one kernel, applying the bias and the ReLU to each
# output block just before it is stored.
#
# ## Why fuse?
#
# A dense layer followed by an activation, written as three `jnp` operations, would write the
# matmul result `(M, N)` to HBM, read it back to add the bias, write it again, and read it once
# more for the ReLU. For a large layer the time goes into moving those copies, not into the
# arithmetic. A fused kernel applies the cheap elementwise work while the block is still in
# VMEM, and writes the output to HBM exactly once.
#
# ## The epilogue
#
# The matmul kernel of puzzle 8 has a natural place for this: the store step, which runs once
# per output block, on the last step along `k`, when the accumulator holds the finished sum.
# Whatever happens there is called the **epilogue**.
#
# Only the *finished* sum may go through the ReLU. `relu(p0 + p1)` is not
# `relu(p0) + relu(p1)`: with partial sums `p0 = 3` and `p1 = -5`, the first is `0` and the
# second is `3`. So the zero and accumulate steps stay exactly as in puzzle 8, and the bias and
# the ReLU (`jnp.maximum(value, 0.0)`) go into the store.
#
# The bias has shape `(N,)`: output block `(i, j)` needs its block `j`, whatever `i` and `k`
# are (puzzle 5), and inside the kernel a `(bn,)` value broadcasts across the rows of a
# `(bm, bn)` block.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bm, bk, bn = 128, 128, 128  # block shapes: a (bm, bk), b (bk, bn), output (bm, bn)


def matmul_bias_relu_kernel(a_ref, b_ref, bias_ref, o_ref, acc_ref):
    # a_ref: (bm, bk), b_ref: (bk, bn), bias_ref: (bn,), o_ref: (bm, bn),
    # acc_ref: (bm, bn) float32 scratch
    k = pl.program_id(2)
    # YOUR CODE BEGIN
    @pl.when(k == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(a_ref[...], b_ref[...])

    @pl.when(k == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = jnp.maximum(acc_ref[...] + bias_ref[...], 0.0)
    # YOUR CODE END


def matmul_bias_relu(a, b, bias):
    M, K = a.shape
    _, N = b.shape
    return pl.pallas_call(
        matmul_bias_relu_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
        grid=(M // bm, N // bn, K // bk),
        in_specs=[
            pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
            pl.BlockSpec((bk, bn), lambda i, j, k: (k, j)),
            pl.BlockSpec((bn,), lambda i, j, k: (j,)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        interpret=True,
    )(a, b, bias)


def matmul_bias_relu_reference(a, b, bias):
    return jax.nn.relu(a @ b + bias)


# %%
a = jax.random.normal(jax.random.key(110), (256, 256))
b = jax.random.normal(jax.random.key(111), (256, 256))
bias = jax.random.normal(jax.random.key(112), (256,))
expected = matmul_bias_relu_reference(a, b, bias)
check(matmul_bias_relu(a, b, bias), expected, atol=1e-3, rtol=1e-3, name="grid (2, 2, 2)")

a = jax.random.normal(jax.random.key(113), (128, 384))
b = jax.random.normal(jax.random.key(114), (384, 384))
bias = jax.random.normal(jax.random.key(115), (384,))
expected = matmul_bias_relu_reference(a, b, bias)
check(matmul_bias_relu(a, b, bias), expected, atol=1e-3, rtol=1e-3, name="grid (1, 3, 3)")

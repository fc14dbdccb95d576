# %% [markdown]
# # bfloat16 inputs, float32 accumulation
#
# **Goal:** a tiled matmul on bfloat16 inputs that produces a bfloat16 output, with every sum
# kept in float32 until the very end.
#
# ## Why bfloat16?
#
# **bfloat16** (bf16) is a 16-bit float with the same exponent range as float32 but only 8 bits
# of precision (about 2 to 3 decimal digits). Half the bytes means half the HBM traffic and half
# the VMEM per block, and the MXU multiplies bf16 inputs several times faster than float32 ones.
# Model weights and activations are routinely stored in bf16.
#
# ## Why the sums must not be bfloat16
#
# 8 bits of precision means that between 256 and 512, bf16 can only represent even numbers.
# Add `1.0` to `256.0` in bf16 and you get `256.0` back: the small term is lost entirely. A
# matmul adds up `K` products into one number, and once the running sum is large, every
# further addition is rounded, step after step. The error grows with `K`.
#
# The MXU is built for this: it multiplies bf16 inputs and adds the products up in **float32**.
# Two things in your kernel decide whether that precision survives:
#
# 1. **The dot's result type.** `jnp.dot(a, b)` on bf16 blocks returns bf16, so the
#    float32 partial sum is rounded to bf16 on every step before you ever see it. Ask for the
#    float32 result with `jnp.dot(a, b, preferred_element_type=jnp.float32)`. (Real JAX on a
#    CPU is allowed to skip that rounding, so a kernel that forgets this can pass there and
#    still lose precision on a TPU; `pallas-puzzles` rounds as the TPU does.)
# 2. **The accumulator's dtype.** A bf16 scratch buffer rounds the running sum on every `k`
#    step. Declare it float32.
#
# Only at the very end, in the store, is the finished sum rounded once to the output dtype:
# `acc.astype(o_ref.dtype)`. That conversion is required: a store must match the ref's dtype
# exactly, and storing a float32 value into a bf16 ref is an error.
#
# A worked example of the difference, summing 1024 copies of `0.01`: a float32 sum gives
# `10.24`; a sum rounded to bf16 after every addition stalls at `4.0`, where `0.01` drops
# below half the spacing between neighbouring bf16 values.
#
# The check below compares with the default bf16 tolerance (2e-2) against a float32-accumulated
# reference. A kernel that accumulates in bf16 misses it by a wide margin on thousands of
# elements.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bm, bk, bn = 128, 256, 128  # block shapes: a (bm, bk), b (bk, bn), output (bm, bn)


def bf16_matmul_kernel(a_ref, b_ref, o_ref, acc_ref):
    # a_ref: (bm, bk) bf16, b_ref: (bk, bn) bf16, o_ref: (bm, bn) bf16, acc_ref: your scratch
    k = pl.program_id(2)
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


def bf16_matmul(a, b):
    M, K = a.shape
    _, N = b.shape
    # YOUR CODE BEGIN
    scratch_shapes = []  # the accumulator: which shape, which dtype?
    # YOUR CODE END
    return pl.pallas_call(
        bf16_matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.bfloat16),
        grid=(M // bm, N // bn, K // bk),
        in_specs=[
            pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
            pl.BlockSpec((bk, bn), lambda i, j, k: (k, j)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
        scratch_shapes=scratch_shapes,
        interpret=True,
    )(a, b)


def bf16_matmul_reference(a, b):
    return jnp.dot(a, b, preferred_element_type=jnp.float32).astype(jnp.bfloat16)


# %%
a = jax.random.normal(jax.random.key(130), (256, 1024)).astype(jnp.bfloat16)
b = jax.random.normal(jax.random.key(131), (1024, 128)).astype(jnp.bfloat16)
check(bf16_matmul(a, b), bf16_matmul_reference(a, b), name="grid (2, 1, 4)")

a = jax.random.normal(jax.random.key(133), (128, 512)).astype(jnp.bfloat16)
b = jax.random.normal(jax.random.key(134), (512, 256)).astype(jnp.bfloat16)
check(bf16_matmul(a, b), bf16_matmul_reference(a, b), name="grid (1, 2, 2)")

# Reductions in each form the CUDA backend gives them (emit_moves.cpp): one thread per result, a
# group of lanes per result (merged by warp shuffles), and the whole block per result (each warp's
# merged partial through shared memory, then merged by the first warp), for results that are
# arrays and scalars. A float32 sum of 16,384 elements once drifted 1.5e-4 (relative) from XLA's
# on CUDA, where one thread added them in order: `total` must now be within 1e-4 of the sum XLA
# computes outside the kernel (the host device's blocks of 4 threads leave 4e-5; a GPU's 1024,
# 1e-7). Every other line is exact whatever the order of the sums
# (multiples of 1/4, integers, booleans, argmax ties and NaNs) and is what JAX 0.10.2 prints with
# interpret=True.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(a_ref, x_ref, y_ref, w_ref, v_ref, n_ref, b_ref, h_ref,
           total_ref, stats_ref, arg_ref, wide_ref, deep_ref, ints_ref, bools_ref, half_ref):
    a = a_ref[...]
    x = x_ref[...]
    y = y_ref[...]
    total_ref[...] = jnp.sum(a, keepdims=True)           # the block, one result
    peak = jnp.max(x)                                    # the block, a scalar
    head = jnp.sum(x[0, :8])                             # a group, a scalar
    stats_ref[0] = jnp.sum(x, axis=1) / peak             # groups of lanes, 128 results
    stats_ref[1] = jnp.min(x, axis=0) + head             # down the columns
    stats_ref[2] = jnp.max(y, axis=1)                    # NaNs win
    arg_ref[0] = jnp.argmax(x, axis=1)                   # ties: the first
    arg_ref[1] = jnp.argmin(x, axis=0)
    arg_ref[2] = jnp.argmax(y, axis=1)                   # the first NaN
    arg_ref[3] = jnp.argmin(y, axis=0)
    wide_ref[...] = jnp.sum(w_ref[...], axis=1)          # the block, 4 results of 8,192
    deep_ref[...] = jnp.max(v_ref[...], axis=1)          # a middle axis, one thread each
    n = n_ref[...]
    ints_ref[0] = jnp.sum(n, axis=1)                     # wraps as int32
    ints_ref[1] = jnp.max(n, axis=0)
    ints_ref[2] = jnp.argmax(n, axis=0).astype(jnp.int32)
    b = b_ref[...]
    bools_ref[0] = jnp.any(b, axis=1)
    bools_ref[1] = jnp.all(b, axis=0)
    h = h_ref[...]
    half_ref[0] = jnp.min(h, axis=1)
    half_ref[1] = jnp.max(h, axis=0)


i = jnp.arange(128)[:, None]
j = jnp.arange(128)[None, :]
a = jnp.full((128, 128), 0.1, jnp.float32)
x = (((i * 37 + j * 11) % 17) * 0.25).astype(jnp.float32)
y = jnp.where(((i * 5 + j * 3) % 61 == 0) & (i % 4 == 0), jnp.nan, x)
w = (((jnp.arange(4 * 8192) * 13) % 9) * 0.25).reshape(4, 8192).astype(jnp.float32)
v = (((jnp.arange(8 * 16 * 128) * 29) % 23) - 11).reshape(8, 16, 128).astype(jnp.float32)
n = ((i * 7919 + j * 104729) * 40503 % 2000000000).astype(jnp.int32)
b = (i * 3 + j * 5) % 401 != 0
h = (((i * 13 + j * 7) % 31) * 0.125 - 2).astype(jnp.bfloat16)
shapes = (
    jax.ShapeDtypeStruct((1, 1), jnp.float32),
    jax.ShapeDtypeStruct((3, 128), jnp.float32),
    jax.ShapeDtypeStruct((4, 128), jnp.int32),
    jax.ShapeDtypeStruct((4,), jnp.float32),
    jax.ShapeDtypeStruct((8, 128), jnp.float32),
    jax.ShapeDtypeStruct((3, 128), jnp.int32),
    jax.ShapeDtypeStruct((2, 128), jnp.bool_),
    jax.ShapeDtypeStruct((2, 128), jnp.bfloat16),
)
total, stats, arg, wide, deep, ints, bools, half = pl.pallas_call(kernel, out_shape=shapes)(
    a, x, y, w, v, n, b, h)
print("total", jnp.abs(total[0, 0] - jnp.sum(a)) <= 1e-4 * jnp.sum(a))
print("stats", jnp.sum(stats[:2], axis=1), jnp.sum(jnp.isnan(stats[2])), jnp.sum(jnp.where(jnp.isnan(stats[2]), 0, stats[2])))
print("arg", jnp.sum(arg, axis=1), arg[:, :6])
print("wide", wide)
print("deep", jnp.sum(deep), deep[:, :4])
print("ints", ints[:, :4], jnp.sum(ints[2]))
print("bools", jnp.sum(bools, axis=1), jnp.argmin(bools, axis=1))
print("half", jnp.sum(half.astype(jnp.float32), axis=1), half[:, :4])

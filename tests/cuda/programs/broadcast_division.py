# Division by a divisor broadcast over the result (a scalar, a row, a column): XLA multiplies by
# the divisor's reciprocal instead, which rounds twice, in float16 natively (the reciprocal is
# rounded to float16 too) and in float32 for bfloat16 (rounded once at the end). The emulator does
# the same (engine/array/elementwise_binary.cpp); the CUDA backend once divided, a unit in the last
# place off now and then. Sums of the results' bits see every such unit. The float16 and bfloat16
# lines are what JAX 0.10.2 prints with interpret=True; in the float32 line JAX's own reciprocal
# is a unit off in a few elements (2108131 1915752 2079172 2079422 there). Elementwise division
# (same shapes, the last column) divides on all three.
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(h_ref, b_ref, f_ref, ho_ref, bo_ref, fo_ref):
    for x_ref, o_ref in ((h_ref, ho_ref), (b_ref, bo_ref), (f_ref, fo_ref)):
        x = x_ref[...]
        o_ref[0] = x / -1.5
        o_ref[1] = x / x[0:1, :]
        o_ref[2] = x / x[:, 3:4]
        o_ref[3] = x / (x + 7.0)


x = jnp.linspace(0.37, 91.3, 8 * 128, dtype=jnp.float32).reshape(8, 128)
shapes = [jax.ShapeDtypeStruct((4, 8, 128), d) for d in (jnp.float16, jnp.bfloat16, jnp.float32)]
h, b, f = pl.pallas_call(kernel, out_shape=tuple(shapes))(
    x.astype(jnp.float16), x.astype(jnp.bfloat16), x)
print(jnp.sum(lax.bitcast_convert_type(h, jnp.int16).astype(jnp.int32), axis=(1, 2)))
print(jnp.sum(lax.bitcast_convert_type(b, jnp.int16).astype(jnp.int32), axis=(1, 2)))
print(jnp.sum(lax.bitcast_convert_type(f, jnp.int32) % 4096, axis=(1, 2)))

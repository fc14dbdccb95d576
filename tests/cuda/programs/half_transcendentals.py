# The logistic function and exp2 of 16-bit floats round every step of XLA's expansion to the
# operand's precision (1 / (1 + exp(-x)); exp(x * ln 2)), on both backends: the CUDA backend once
# computed them in float32 and rounded once, a unit in the last place off now and then. Sums of
# the results' bits see every such unit; the 16-bit lines are what JAX 0.10.2 prints with
# interpret=True. (The float32 line checks exp2 as exp(x * ln 2) on both backends, bit for bit
# where both use the host's C library; XLA's own float32 exp differs in the last place.)
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(b_ref, h_ref, f_ref, bo_ref, ho_ref, fo_ref):
    bo_ref[0] = jax.nn.sigmoid(b_ref[...])
    bo_ref[1] = jnp.exp2(b_ref[...])
    ho_ref[0] = jax.nn.sigmoid(h_ref[...])
    ho_ref[1] = jnp.exp2(h_ref[...])
    fo_ref[0] = jax.nn.sigmoid(f_ref[...])
    fo_ref[1] = jnp.exp2(f_ref[...])


x = jnp.linspace(-12.0, 12.0, 8 * 128, dtype=jnp.float32).reshape(8, 128)
shapes = [jax.ShapeDtypeStruct((2, 8, 128), d) for d in (jnp.bfloat16, jnp.float16, jnp.float32)]
b, h, f = pl.pallas_call(kernel, out_shape=tuple(shapes))(
    x.astype(jnp.bfloat16), x.astype(jnp.float16), x)
print(jnp.sum(lax.bitcast_convert_type(b, jnp.int16).astype(jnp.int32), axis=(1, 2)))
print(jnp.sum(lax.bitcast_convert_type(h, jnp.int16).astype(jnp.int32), axis=(1, 2)))
print(jnp.sum((lax.bitcast_convert_type(f, jnp.int32) % 4096), axis=(1, 2)))

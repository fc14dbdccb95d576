# pl.estimate_cost: JAX's FLOP, transcendental and byte counts of a plain-JAX function
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def attention(q, k, v):
  s = jnp.einsum("qd,kd->qk", q, k)
  p = jnp.exp(s - s.max(axis=-1, keepdims=True))
  return (p / p.sum(axis=-1, keepdims=True)) @ v


spec = jax.ShapeDtypeStruct((128, 64), jnp.float32)
c = pl.estimate_cost(attention, spec, spec, spec)
print(c.flops, c.transcendentals, c.bytes_accessed)
c = pl.estimate_cost(lambda x, y: jnp.tanh(x * y + 1.0) ** 3, jnp.ones((8, 16)), jnp.ones((8, 16)))
print(c.flops, c.transcendentals, c.bytes_accessed)
c = pl.estimate_cost(lambda a, b: jnp.matmul(a, b), jax.ShapeDtypeStruct((4, 32, 16), jnp.bfloat16), jax.ShapeDtypeStruct((4, 16, 8), jnp.bfloat16))
print(c.flops, c.transcendentals, c.bytes_accessed)
# expect: 4227072 16384 131072
# expect: 640 128 1536
# expect: 32768 0 7168

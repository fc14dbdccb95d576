# jax.grad / value_and_grad / jvp through jax.custom_jvp: the jvp rule's tangent computation is
# transposed (nondiff_argnums, pytree arguments); jax.nn.relu's derivative at 0 is 0, as JAX's rule says
import jax, jax.numpy as jnp
from functools import partial

@jax.custom_jvp
def safe_log1pexp(x):
  return jnp.log1p(jnp.exp(x))

@safe_log1pexp.defjvp
def _(primals, tangents):
  (x,), (t,) = primals, tangents
  # times 10 so that the rule is seen to be used
  return safe_log1pexp(x), 10 * t * jax.nn.sigmoid(x)

print(jax.grad(lambda x: jnp.sum(safe_log1pexp(x)))(jnp.array([0.0, 1.0, -2.0])))
print(jax.value_and_grad(lambda x: jnp.sum(safe_log1pexp(x * x) * 2))(jnp.array([0.5, 1.5])))
print(jax.jvp(safe_log1pexp, (jnp.array([0.0, 2.0]),), (jnp.array([1.0, 1.0]),)))

@partial(jax.custom_jvp, nondiff_argnums=(0,))
def scaled(k, x, y):
  return k * x * y

@scaled.defjvp
def _(k, primals, tangents):
  x, y = primals
  tx, ty = tangents
  return scaled(k, x, y), k * (tx * y + x * ty) + 100 * tx

print(jax.grad(lambda x, y: scaled(3.0, x, y), argnums=(0, 1))(2.0, 5.0))
print(jax.grad(lambda p: jnp.sum(scaled(2.0, p["a"], p["b"])))({"a": jnp.ones(2), "b": jnp.arange(2.0)}))
print(jax.nn.relu(jnp.array([-1.0, 2.0])), jax.grad(lambda x: jnp.sum(jax.nn.relu(x)))(jnp.array([-1.0, 0.0, 2.0])))
# expect: [5.        7.310586  1.1920292]
# expect: (Array(6.352292, dtype=float32), Array([11.24353, 54.27903], dtype=float32))
# expect: (Array([0.6931472, 2.126928 ], dtype=float32), Array([5.     , 8.80797], dtype=float32))
# expect: (Array(115., dtype=float32, weak_type=True), Array(6., dtype=float32, weak_type=True))
# expect: {'a': Array([100., 102.], dtype=float32), 'b': Array([2., 2.], dtype=float32)}
# expect: [0. 2.] [0. 0. 1.]

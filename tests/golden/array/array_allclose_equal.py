# allclose, isclose and array_equal
import jax.numpy as jnp

a = jnp.array([1.0, 2.0, 3.0])
b = a + 1e-7
print(jnp.allclose(a, b), jnp.allclose(a, a + 0.1))  # expect: True False
print(jnp.isclose(a, jnp.array([1.0, 2.1, 3.0])))  # expect: [ True False  True]
print(jnp.allclose(a, a + 0.05, atol=0.1))  # expect: True
print(jnp.array_equal(a, a), jnp.array_equal(a, a[:2]))  # expect: True False
print(jnp.array_equal(jnp.arange(3), jnp.array([0, 1, 2])))  # expect: True
print(bool(jnp.allclose(a, b)))  # expect: True

# jnp.dot and jnp.matmul including a batched matmul
import jax.numpy as jnp

a = jnp.arange(6.0).reshape(2, 3)
b = jnp.arange(6.0).reshape(3, 2)
print(jnp.dot(a, b))  # expect: [[10. 13.]
# expect:  [28. 40.]]
print(jnp.dot(jnp.array([1, 2]), jnp.array([3, 4])))  # expect: 11
print(jnp.matmul(a, b))  # expect: [[10. 13.]
# expect:  [28. 40.]]
x = jnp.arange(12.0).reshape(2, 2, 3)
y = jnp.ones((2, 3, 1))
print(jnp.matmul(x, y).shape)  # expect: (2, 2, 1)
print(jnp.matmul(x, y)[:, :, 0])  # expect: [[ 3. 12.]
# expect:  [21. 30.]]

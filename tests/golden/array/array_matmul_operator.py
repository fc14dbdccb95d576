# the @ operator: matrix-matrix, matrix-vector and vector-vector
import jax.numpy as jnp

a = jnp.arange(6.0).reshape(2, 3)
b = jnp.arange(12.0).reshape(3, 4)
v = jnp.array([1.0, 2.0, 3.0])
print(a @ b)  # expect: [[20. 23. 26. 29.]
# expect:  [56. 68. 80. 92.]]
print(a @ v)  # expect: [ 8. 26.]
print(v @ v)  # expect: 14.0
print((jnp.arange(4).reshape(2, 2) @ jnp.arange(4).reshape(2, 2)).dtype)  # expect: int32

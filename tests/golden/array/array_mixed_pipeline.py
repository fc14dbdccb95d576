# a small layer: matmul, bias, relu, softmax, argmax
import jax
import jax.numpy as jnp

x = jnp.arange(6.0).reshape(2, 3) / 4
w = (jnp.arange(12.0).reshape(3, 4) - 6) / 8
b = jnp.array([0.5, -0.25, 0.0, 0.125])
h = jax.nn.relu(x @ w + b)
p = jax.nn.softmax(h, axis=-1)
print(h)  # expect: [[0.5625  0.      0.25    0.46875]
# expect:  [0.      0.      0.25    0.75   ]]
print(p.argmax(axis=-1), f"{p.max():.4f}")  # expect: [0 3] 0.3920

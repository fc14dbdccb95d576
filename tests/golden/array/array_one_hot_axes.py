# one_hot of a 2-d label array and reductions of it
import jax
import jax.numpy as jnp

labels = jnp.array([[0, 1], [2, 2]])
oh = jax.nn.one_hot(labels, 3)
print(oh.shape, oh.dtype)  # expect: (2, 2, 3) float32
print(oh.sum(axis=(0, 1)))  # expect: [1. 1. 2.]
print(jax.nn.one_hot(jnp.array([1, 0]), 3, axis=0))  # expect: [[0. 1.]
# expect:  [1. 0.]
# expect:  [0. 0.]]

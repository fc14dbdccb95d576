# jax.nn.softmax along the last axis or another
import jax
import jax.numpy as jnp

x = jnp.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
print(jax.nn.softmax(x))  # expect: [[0.09003057 0.24472848 0.66524094]
# expect:  [0.33333334 0.33333334 0.33333334]]
print(jax.nn.softmax(x, axis=0))  # expect: [[0.5        0.7310586  0.880797  ]
# expect:  [0.5        0.26894143 0.11920291]]
print(jax.nn.softmax(jnp.array([1000.0, 1000.0])))  # expect: [0.5 0.5]
print(jax.nn.softmax(x).sum(axis=-1))  # expect: [1. 1.]

# mean with axes, and square / reciprocal helpers
import jax.numpy as jnp

x = jnp.array([[1.0, 2.0], [3.0, 6.0]])
print(jnp.mean(x, axis=(0, 1)), jnp.mean(x, axis=-1))  # expect: 3.0 [1.5 4.5]
print(jnp.square(x))  # expect: [[ 1.  4.]
# expect:  [ 9. 36.]]
print(jnp.reciprocal(x))  # expect: [[1.         0.5       ]
# expect:  [0.33333334 0.16666667]]
print(jnp.mean(x, axis=0, keepdims=True))  # expect: [[2. 4.]]

# cumsum flattens by default, or runs along an axis
import jax.numpy as jnp

x = jnp.arange(1, 7).reshape(2, 3)
print(jnp.cumsum(x))  # expect: [ 1  3  6 10 15 21]
print(jnp.cumsum(x, axis=0))  # expect: [[1 2 3]
# expect:  [5 7 9]]
print(jnp.cumsum(x, axis=1))  # expect: [[ 1  3  6]
# expect:  [ 4  9 15]]
print(x.cumsum(axis=-1).dtype)  # expect: int32
print(jnp.cumsum(jnp.array([0.5, 0.25, 0.125])))  # expect: [0.5   0.75  0.875]

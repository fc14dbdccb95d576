# reshape with tuples, varargs and an inferred -1
import jax.numpy as jnp

x = jnp.arange(12)
print(x.reshape(3, 4))  # expect: [[ 0  1  2  3]
# expect:  [ 4  5  6  7]
# expect:  [ 8  9 10 11]]
print(x.reshape((2, -1)).shape)  # expect: (2, 6)
print(jnp.reshape(x, (2, 2, 3)).shape)  # expect: (2, 2, 3)
print(x.reshape(-1, 6)[1])  # expect: [ 6  7  8  9 10 11]
print(jnp.ravel(x.reshape(3, 4).T))  # expect: [ 0  4  8  1  5  9  2  6 10  3  7 11]
print(x.reshape(3, 4).flatten()[:5])  # expect: [0 1 2 3 4]

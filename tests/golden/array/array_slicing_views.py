# slices of slices, negative steps and empty slices
import jax.numpy as jnp

x = jnp.arange(20).reshape(4, 5)
y = x[1:, ::-2]
print(y)  # expect: [[ 9  7  5]
# expect:  [14 12 10]
# expect:  [19 17 15]]
print(y[::2, 1:])  # expect: [[ 7  5]
# expect:  [17 15]]
print(x[4:], x[2:2].shape, x[:, 5:].shape)  # expect: [] (0, 5) (4, 0)
print(x[-100:2, 3], x[1, 10:])  # expect: [3 8] []

# Reading out of bounds clamps into range as JAX does (with a warning at the line), where numpy
# raises IndexError; `.at[...].get` takes JAX's modes (clip, fill with its default fill values)
import jax.numpy as jnp
import numpy as np

x = jnp.arange(5)
print(x[2], x[-5])
print(x[5])  # warning: JAX clamps it into range
print(x[-9], x[jnp.array([0, 7, -1])])  # warning: reads out of bounds of a (5,) array
m = jnp.arange(6.0).reshape(2, 3)
print(m[1, 3], m[3])  # warning: the last element along that axis
print(m.at[jnp.array([0, 4])].get())  # warning: out of bounds
print(m.at[jnp.array([0, 4])].get(mode="clip"), m.at[9].get(mode="fill"))
print(x.at[jnp.array([1, 9])].get(mode="fill"), x.at[9].get(mode="fill", fill_value=-1))
print(jnp.ones(2, bool).at[5].get(mode="fill"), jnp.arange(3, dtype=jnp.uint8).at[7].get(mode="fill"))
try:
  np.arange(5)[5]
except IndexError as e:
  print("numpy:", e)
# expect: 2 0
# expect: 4
# expect: 0 [0 4 4]
# expect: 5.0 [3. 4. 5.]
# expect: [[0. 1. 2.]
# expect:  [3. 4. 5.]]
# expect: [[0. 1. 2.]
# expect:  [3. 4. 5.]] [nan nan nan]
# expect: [          1 -2147483648] -1
# expect: True 255
# expect: numpy: index 5 is out of bounds for axis 0 with size 5

# numpy arrays take item assignment (ints, slices, masks, +=); jax arrays still refuse it
import numpy as np
import jax.numpy as jnp

z = np.zeros((4, 6), dtype=np.float32)
z[1] = 1.0
z[2, 1:4] = np.arange(3)
z[:, 5] += 2.5
z[z > 2] = 9
print(z)
i = np.arange(5)
i[::2] = -i[::2]
print(i)
b = np.ones(3, dtype=np.int32)
b[0] = 7.9
print(b)
try:
  jnp.zeros(3)[0] = 1.0
except TypeError as e:
  print(str(e)[:38])
# expect: [[0. 0. 0. 0. 0. 9.]
# expect:  [1. 1. 1. 1. 1. 9.]
# expect:  [0. 0. 1. 2. 0. 9.]
# expect:  [0. 0. 0. 0. 0. 9.]]
# expect: [ 0  1 -2  3 -4]
# expect: [7 1 1]
# expect: JAX arrays are immutable and do not su

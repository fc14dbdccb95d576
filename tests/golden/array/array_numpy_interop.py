# numpy and jax arrays convert into each other
import numpy as np
import jax.numpy as jnp

n = np.arange(4, dtype=np.int32)
j = jnp.asarray(n) * 2
print(j, j.dtype)  # expect: [0 2 4 6] int32
back = np.asarray(j)
print(back, back.dtype)  # expect: [0 2 4 6] int32
print(np.float32(1.5) + jnp.ones(2))  # expect: [2.5 2.5]
print(np.sum(np.ones((2, 3), dtype=np.float32), axis=1))  # expect: [3. 3.]

# numpy float32 arrays print like jax arrays and mix with them
import numpy as np
import jax.numpy as jnp

a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
print(a, a.dtype, a.shape)  # expect: [1. 2. 3.] float32 (3,)
print(np.arange(6, dtype=np.float32).reshape(2, 3).sum(axis=0))  # expect: [3. 5. 7.]
x = jnp.asarray(a)
print(x * 2, (x + a).dtype)  # expect: [2. 4. 6.] float32
print(np.zeros((2, 2), dtype=np.float32))  # expect: [[0. 0.]
# expect:  [0. 0.]]
print(np.asarray(x).tolist())  # expect: [1.0, 2.0, 3.0]

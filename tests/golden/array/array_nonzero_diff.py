# jnp.nonzero / argwhere / flatnonzero (with size and fill_value) and jnp.diff (n, axis, prepend, append)
import jax.numpy as jnp
import numpy as np

m = jnp.array([[0, 3, 0], [4, 0, 5]])
print(jnp.nonzero(m))
print(jnp.nonzero(m, size=4, fill_value=-1))
print(jnp.nonzero(m, size=2))
print(jnp.argwhere(m), jnp.flatnonzero(m))
print(jnp.where(m > 3, size=3))
print(len(np.nonzero(np.array([True, False, True]))[0]))
x = jnp.array([1.0, 4.0, 9.0, 16.0])
print(jnp.diff(x), jnp.diff(x, n=2), jnp.diff(x, prepend=0.0), jnp.diff(x, append=jnp.array([20.0])))
print(jnp.diff(m, axis=0), jnp.diff(m))
# expect: (Array([0, 1, 1], dtype=int32), Array([1, 0, 2], dtype=int32))
# expect: (Array([ 0,  1,  1, -1], dtype=int32), Array([ 1,  0,  2, -1], dtype=int32))
# expect: (Array([0, 1], dtype=int32), Array([1, 0], dtype=int32))
# expect: [[0 1]
# expect:  [1 0]
# expect:  [1 2]] [1 3 5]
# expect: (Array([1, 1, 0], dtype=int32), Array([0, 2, 0], dtype=int32))
# expect: 2
# expect: [3. 5. 7.] [2. 2.] [1. 3. 5. 7.] [3. 5. 7. 4.]
# expect: [[ 4 -3  5]] [[ 3 -3]
# expect:  [-4  5]]

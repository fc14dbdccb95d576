# `.at[...]` updates drop out-of-bounds updates as JAX does (mode="drop" is the default), with a
# warning at the line (once per line, counted); negative indices count from the end; array
# indices drop only their own elements
import jax.numpy as jnp

x = jnp.arange(6.0).reshape(2, 3)
print(x.at[2, 0].set(9.0))  # warning: out of bounds of a (2, 3) array
print(x.at[-1, -1].set(9.0))
print(x.at[0, -4].add(100.0))  # warning: JAX drops those updates silently
print(x.at[jnp.array([0, 5, 1]), 1].set(jnp.array([7.0, 8.0, 9.0])))  # warning: out of bounds
print(x.at[:, jnp.array([3, -1])].add(1.0))  # warning: out of bounds
for i in range(4):
  x = x.at[i].multiply(2.0)  # warning: JAX drops those updates
print(x)
# An explicit mode says what is meant: no warning
print(x.at[1].set(5.0, mode="drop"), x.at[9].set(1.0, mode="clip"))
# expect: [[0. 1. 2.]
# expect:  [3. 4. 5.]]
# expect: [[0. 1. 2.]
# expect:  [3. 4. 9.]]
# expect: [[0. 1. 2.]
# expect:  [3. 4. 5.]]
# expect: [[0. 7. 2.]
# expect:  [3. 9. 5.]]
# expect: [[0. 1. 3.]
# expect:  [3. 4. 6.]]
# expect: [[ 0.  2.  4.]
# expect:  [ 6.  8. 10.]]
# expect: [[0. 2. 4.]
# expect:  [5. 5. 5.]] [[0. 2. 4.]
# expect:  [1. 1. 1.]]

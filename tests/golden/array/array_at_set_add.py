# .at[idx].set / add / multiply return new arrays
import jax.numpy as jnp

x = jnp.zeros(5)
y = x.at[1].set(3.0)
print(x, y)  # expect: [0. 0. 0. 0. 0.] [0. 3. 0. 0. 0.]
print(y.at[1:3].add(1))  # expect: [0. 4. 1. 0. 0.]
print(y.at[jnp.array([0, 0, 4])].add(2.0))  # expect: [4. 3. 0. 0. 2.]
print(jnp.arange(4).at[-1].multiply(10))  # expect: [ 0  1  2 30]
m = jnp.zeros((2, 3), jnp.int32)
print(m.at[:, 1].set(jnp.array([7, 8])))  # expect: [[0 7 0]
# expect:  [0 8 0]]

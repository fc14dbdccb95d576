# integer // and % follow the sign of the divisor; float % too
import jax.numpy as jnp

a = jnp.array([-7, -1, 0, 1, 7])
print(a // 3, a % 3)  # expect: [-3 -1  0  0  2] [2 2 0 1 1]
print(a // -3, a % -3)  # expect: [ 2  0  0 -1 -3] [-1 -1  0 -2 -2]
f = jnp.array([-7.5, 7.5])
print(f % 2.0, f % -2.0, f // -2.0)  # expect: [0.5 1.5] [-1.5 -0.5] [ 3. -4.]
print(jnp.array([2, 3]) ** jnp.array([10, 3]))  # expect: [1024   27]
print(jnp.array([2.0]) ** -1, 2 ** jnp.array([0.5, 2.0]))  # expect: [0.5] [1.4142135 4.       ]

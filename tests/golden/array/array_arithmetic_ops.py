# elementwise + - * / // % ** on float and int arrays
import jax.numpy as jnp

a = jnp.array([7, -7, 9, 2])
b = jnp.array([2, 2, -4, 3])
print(a + b, a - b, a * b)  # expect: [ 9 -5  5  5] [ 5 -9 13 -1] [ 14 -14 -36   6]
print(a / b)  # expect: [ 3.5       -3.5       -2.25       0.6666667]
print(a // b, a % b)  # expect: [ 3 -4 -3  0] [ 1  1 -3  2]
print(a ** 2, b ** 3)  # expect: [49 49 81  4] [  8   8 -64  27]
f = jnp.array([7.5, -7.5, 2.0])
print(f // 2, f % 2, f ** 0.5)
# expect: [ 3. -4.  1.] [1.5 0.5 0. ] [2.738613        nan 1.4142135]
print(2 - f, 1 / f)  # expect: [-5.5  9.5  0. ] [ 0.13333334 -0.13333334  0.5       ]

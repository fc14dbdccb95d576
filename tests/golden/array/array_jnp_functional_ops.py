# functional forms: add, subtract, multiply, divide, power, mod, negative
import jax.numpy as jnp

a = jnp.array([4.0, 9.0])
b = jnp.array([2.0, 4.0])
print(jnp.add(a, b), jnp.subtract(a, b), jnp.multiply(a, 2))  # expect: [ 6. 13.] [2. 5.] [ 8. 18.]
print(jnp.divide(a, b), jnp.true_divide(a, 3), jnp.floor_divide(a, b))
# expect: [2.   2.25] [1.3333334 3.       ] [2. 2.]
print(jnp.power(a, 0.5), jnp.mod(a, b), jnp.remainder(-a, b))  # expect: [2. 3.] [0. 1.] [-0.  3.]
print(jnp.negative(a), jnp.absolute(-a))  # expect: [-4. -9.] [4. 9.]

# jnp.rint rounds half to even; integer inputs become float32
import jax.numpy as jnp
print(jnp.rint(jnp.array([0.5, 1.5, 2.5, -0.5, -1.7])))
print(jnp.rint(jnp.arange(3)), jnp.rint(jnp.arange(3)).dtype)
print(jnp.rint(jnp.array([2.5], jnp.bfloat16)).dtype)
# expect: [ 0.  2.  2. -0. -2.]
# expect: [0. 1. 2.] float32
# expect: bfloat16

# uniform (with minval/maxval) and normal streams match JAX
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(0)
print(jax.random.uniform(key, (3,)))  # expect: [0.947667   0.9785799  0.33229148]
print(jax.random.uniform(key, (2, 2), minval=-1.0, maxval=1.0))
# expect: [[ 0.895334    0.95715976]
# expect:  [-0.33541703 -0.06266308]]
print(jax.random.normal(key, (4,)))  # expect: [ 1.6226422   2.0252647  -0.43359444 -0.07861735]
print(jax.random.normal(jax.random.PRNGKey(1), (2, 3)))
# expect: [[-0.15443718  0.08470728 -0.13598049]
# expect:  [-0.15503626  1.2666674   0.14829758]]
print(jax.random.uniform(key).shape, jax.random.normal(key, (2,), dtype=jnp.bfloat16).dtype)
# expect: () bfloat16

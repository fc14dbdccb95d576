# jax.random.uniform takes minval/maxval, not low/high
import jax

key = jax.random.PRNGKey(0)
print(jax.random.uniform(key, (2,), low=0.0, high=2.0))  # error: TypeError: 'low' is an invalid

# randint needs minval and maxval too
import jax

key = jax.random.PRNGKey(0)
print(jax.random.randint(key, (3,)))  # error: TypeError: randint() missing required argument

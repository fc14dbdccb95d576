# bernoulli with an array of probabilities draws one flip per entry
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(5)
p = jnp.array([0.1, 0.9, 0.5, 0.5])
print(jax.random.bernoulli(key, p))  # expect: [False False False  True]
print(jax.random.bernoulli(key, p, (2, 4)))  # expect: [[False False False  True]
# expect:  [False  True  True  True]]
print(jax.random.bernoulli(key, p.astype(jnp.bfloat16)))  # expect: [False  True False False]
print(jax.random.bernoulli(key, jnp.array(0.7), (3,)), jax.random.bernoulli(key).shape)
# expect: [ True False False] ()

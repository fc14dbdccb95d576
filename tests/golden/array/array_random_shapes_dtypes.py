# random samplers with several shapes and dtypes
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(7)
k1, k2, k3 = jax.random.split(key, 3)
print(jax.random.uniform(k1, (2, 3)))  # expect: [[0.8673705  0.55631435 0.30067706]
# expect:  [0.33249056 0.9920782  0.20568824]]
print(jax.random.normal(k2, ()))  # expect: 0.4541335
print(jax.random.randint(k3, (5,), 0, 3, dtype=jnp.int8))  # expect: [1 0 2 1 2]
print(jax.random.bernoulli(k1, 0.2, (2, 4)))  # expect: [[False False False False]
# expect:  [False False False  True]]
print(jax.random.bits(k2, (2,), dtype=jnp.uint8))  # expect: [ 31 102]

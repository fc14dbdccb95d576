# randint, bernoulli, permutation and bits
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(3)
print(jax.random.randint(key, (6,), 0, 10))  # expect: [5 9 5 4 6 2]
print(jax.random.randint(key, (2, 2), -5, 5))  # expect: [[ 0  4]
# expect:  [ 0 -1]]
print(jax.random.bernoulli(key, 0.5, (6,)))  # expect: [ True False False False  True False]
print(jax.random.permutation(key, 6))  # expect: [0 5 4 2 1 3]
print(jax.random.permutation(key, jnp.arange(4) * 10))  # expect: [ 0 20 10 30]
print(jax.random.bits(key, (3,)))  # expect: [ 318053758 4029299397 2787249374]

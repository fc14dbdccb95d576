# more random draws: split into 4, fold_in chains, permutation of rows
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(123)
keys = jax.random.split(key, 4)
print(keys.shape, keys.dtype)  # expect: (4, 2) uint32
print(jax.random.uniform(keys[2], (3,), dtype=jnp.bfloat16))  # expect: [0.5 0.6875 0.898438]
k = jax.random.fold_in(jax.random.fold_in(key, 1), 2)
print(jax.random.normal(k, (3,)))  # expect: [-0.19954278  0.6938592   0.7189748 ]
print(jax.random.permutation(key, jnp.arange(6).reshape(3, 2)))  # expect: [[2 3]
# expect:  [0 1]
# expect:  [4 5]]
print(jax.random.randint(key, (4,), 10, 1000))  # expect: [591 195 990 443]
print(jax.random.uniform(key, (2,), minval=5, maxval=6))  # expect: [5.9490747 5.7997727]

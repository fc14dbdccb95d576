# PRNGKey, split and fold_in produce the same key data as JAX
import jax

key = jax.random.PRNGKey(0)
print(key)  # expect: [0 0]
k1, k2 = jax.random.split(key)
print(k1, k2)  # expect: [1797259609 2579123966] [ 928981903 3453687069]
print(jax.random.split(key, 3))  # expect: [[1797259609 2579123966]
# expect:  [ 928981903 3453687069]
# expect:  [4146024105 2718843009]]
print(jax.random.fold_in(key, 7))  # expect: [2716826189  292468403]
print(jax.random.PRNGKey(42))  # expect: [ 0 42]

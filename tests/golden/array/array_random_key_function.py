# jax.random.key values used through split and sampling
import jax

key = jax.random.key(0)
a, b = jax.random.split(key)
print(jax.random.uniform(a, (3,)))  # expect: [0.8423141  0.18237865 0.2271781 ]
print(jax.random.normal(b, (2,)))  # expect: [-2.4424558 -2.0356805]
k = jax.random.fold_in(key, 1)
print(jax.random.randint(k, (4,), 0, 100))  # expect: [22 22 96 35]

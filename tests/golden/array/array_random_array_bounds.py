# jax.random.uniform and randint with array minval/maxval broadcast against the sample shape:
# the same streams as JAX 0.10.2, bit for bit (float bounds of randint truncate to int32).
import jax
import jax.numpy as jnp
key = jax.random.key(3)
print(jax.random.uniform(key, (2, 3), minval=jnp.array([0.0, 10.0, -5.0]), maxval=jnp.array([[1.0], [100.0]])))  # expect: [[ 7.4052572e-02  1.0000000e+01 -1.1062579e+00]
# expect:  [ 9.7562096e+01  3.5054001e+01  5.6208496e+01]]
print(jax.random.uniform(key, (4,), minval=jnp.arange(4.0), maxval=jnp.arange(4.0) * 3 + 1))  # expect: [0.07405257 3.814433   5.2447853  9.829347  ]
print(jax.random.uniform(key, (3,), dtype=jnp.bfloat16, minval=jnp.array([1.0, 2.0, 3.0]), maxval=7.5))  # expect: [4.1875 6.21875 6.90625]
print(jax.random.randint(key, (2, 4), minval=jnp.array([0, 10, 100, -50]), maxval=jnp.array([[5], [1000]])))  # expect: [[  0  10 100 -46]
# expect:  [316 432 423 854]]
print(jax.random.randint(key, (5,), 0, jnp.array([1, 2, 3, 4, 5])))  # expect: [0 1 1 2 1]
print(jax.random.randint(key, (3,), jnp.array([0, 5, 9]), 7, dtype=jnp.int8))  # expect: [3 6 9]
print(jax.random.randint(key, (2,), jnp.array([1.7, -2.5]), 10))  # expect: [7 5]
print(jax.random.randint(key, (3,), 0, jnp.array([2**31 - 1, 10, 0])))  # expect: [111646283         9         0]
print(jax.random.uniform(key, (2,), minval=3.0, maxval=4.0), jax.random.randint(key, (3,), -7, 7))  # expect: [3.0740526 3.9381442] [-4  6  4]
try:
    jax.random.uniform(key, (2,), minval=jnp.zeros(3))
except Exception as e:
    print(type(e).__name__)  # expect: TypeError

# A PRNG implementation registered with jax._src.random.prng (as JAX's Pallas Philox kernels
# register theirs): jax.random.key(seed, impl=...) seeds through it, split / fold_in / bits /
# uniform / normal call its functions on the key data
import jax
import jax.numpy as jnp
from jax._src.random import prng
from jax._src.random import threefry2x32


def counter_bits(key, bit_width, shape):
  if bit_width != 32:
    raise ValueError("Only 32-bit PRNG supported.")
  n = 1
  for d in shape:
    n *= d
  counts = jnp.arange(n, dtype=jnp.uint32).reshape(shape)
  x = (counts * jnp.uint32(0x9E3779B1)) ^ key[0]
  x = (x ^ (x >> 15)) * jnp.uint32(0x85EBCA6B) + key[1]
  return x ^ (x >> 13)


def counter_split(key, shape):
  n = 1
  for d in shape:
    n *= d
  bits = counter_bits(key, 32, (n, 2))
  return bits.reshape(tuple(shape) + (2,))


def counter_fold_in(key, data):
  return counter_bits(key ^ data, 32, (2,))


impl = prng.PRNGImpl(key_shape=(2,), seed=threefry2x32.threefry_seed, split=counter_split,
                     random_bits=counter_bits, fold_in=counter_fold_in, name="toy_counter",
                     tag="toy")
prng.register_prng(impl)

key = jax.random.key(7, impl=impl)
print(key, key.dtype)
a, b = jax.random.split(key)
print(jax.random.key_data(a), jax.random.key_data(jax.random.fold_in(b, 3)))
print(jax.random.split(key, 3).shape, jax.random.bits(a, (4,)))
print(jax.random.uniform(a, (3,)), jax.random.normal(b, (2,)))
try:
  jax.random.bits(a, (2,), jnp.uint16)
except ValueError as e:
  print("ValueError:", e)
# expect: Array((), dtype=key<toy>) overlaying:
# expect: [0 7] key<toy>
# expect: [         7 4068589069] [2020360292 3581910060]
# expect: (3,) [2616236376  999588863 1222579487  405167073]
# expect: [0.6091399 0.2327348 0.2846539] [-1.7525914  -0.62946355]
# expect: ValueError: Only 32-bit PRNG supported.

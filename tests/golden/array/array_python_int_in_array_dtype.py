# Python ints with integer arrays: JAX reads them as weak int32 first (0xFFFFFFFF overflows even
# beside a uint32 array); numpy (NEP 50) takes them in the array's dtype and compares ints
# beyond it exactly
import jax.numpy as jnp
import numpy as np

u = jnp.arange(3, dtype=jnp.uint32)
print(u ^ 0x7E3779B9, u + 0x7FFFFFFF, jnp.arange(3, dtype=jnp.int8) + 100)
for f in (lambda: u + 0xFFFFFFFF, lambda: u < 4294967295):
  try:
    print(f())
  except OverflowError:
    print("OverflowError")
v = np.arange(3, dtype=np.uint32)
print(v + 0xFFFFFFFF, v ^ 0x9E3779B9, v < 4294967295)
try:
  print(v + 2**32)
except OverflowError as e:
  print("OverflowError:", e)
n = np.prod(np.array([512, 256], dtype=np.int32))
print(n > 4294967295, n < 2**40, n == 2**33, 2**40 > n)
# expect: [2117564857 2117564856 2117564859] [2147483647 2147483648 2147483649] [100 101 102]
# expect: OverflowError
# expect: OverflowError
# expect: [4294967295          0          1] [2654435769 2654435768 2654435771] [ True  True  True]
# expect: OverflowError: Python integer 4294967296 out of bounds for uint32
# expect: False True False True

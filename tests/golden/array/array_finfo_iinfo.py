# jnp.finfo / jnp.iinfo (and numpy's): the limits of float and integer dtypes
import jax.numpy as jnp
import numpy as np

f = jnp.finfo(jnp.float32)
print(f.bits, f.eps, f.max, f.min, f.tiny, f.resolution, f.dtype)
print(float(jnp.finfo(jnp.dtype("float32")).max) * -0.7)
b = jnp.finfo(jnp.bfloat16)
print(b.bits, b.eps, b.max, b.tiny, b.nmant, b.precision)
h = np.finfo(jnp.float16)
print(h.bits, h.eps, h.max, h.tiny, h.nexp, h.maxexp, h.minexp)
print(jnp.finfo(jnp.ones(3)).max)
for t in (jnp.int8, jnp.uint8, jnp.int16, jnp.int32, jnp.uint32):
  i = jnp.iinfo(t)
  print(i.bits, i.min, i.max, i.dtype, type(i.max).__name__)
print(np.iinfo(np.int8).max < 200)
print(repr(jnp.finfo(jnp.float32)))
print(jnp.iinfo(jnp.int16))
try:
  jnp.iinfo(jnp.float32)
except ValueError as e:
  print(e)
# expect: 32 1.1920929e-07 3.4028235e+38 -3.4028235e+38 1.1754944e-38 1e-06 float32
# expect: -2.381976426469702e+38
# expect: 16 0.0078125 3.38953e+38 1.17549e-38 7 2
# expect: 16 0.000977 6.55e+04 6.104e-05 5 16 -14
# expect: 3.4028235e+38
# expect: 8 -128 127 int8 int
# expect: 8 0 255 uint8 int
# expect: 16 -32768 32767 int16 int
# expect: 32 -2147483648 2147483647 int32 int
# expect: 32 0 4294967295 uint32 int
# expect: True
# expect: finfo(resolution=1e-06, min=-3.4028235e+38, max=3.4028235e+38, dtype=float32)
# expect: iinfo(min=-32768, max=32767, dtype=int16)
# expect: Invalid integer data type 'f'.

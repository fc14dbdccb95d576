# checkify: check records the first failure inside checkify(f) (error.get/throw); outside, it raises at once
import jax, jax.numpy as jnp
from jax.experimental import checkify
def f(x, i):
  checkify.check(i >= 0, "index needs to be non-negative, got {i}", i=i)
  checkify.check(jnp.all(x > 0), "x must be positive")
  return x[i]
cf = checkify.checkify(f)
err, out = cf(jnp.arange(1.0, 4.0), jnp.int32(1))
print(err.get(), out)
err, out = cf(jnp.arange(1.0, 4.0), jnp.int32(-1))
print(err.get())
print(repr(err.get()))
err, out = cf(jnp.arange(-1.0, 2.0), jnp.int32(1))
print(err.get())
try:
  err.throw()
except Exception as e:
  print(type(e).__name__, e)

try:
  checkify.check(False, "boom")
except Exception as e:
  print(type(e).__name__, e)
err, out = checkify.checkify(lambda x: x + 1)(1.0)
err.throw(); print(err.get(), out)
# expect: None 2.0
# expect: index needs to be non-negative, got -1 (`check` failed)
# expect: 'index needs to be non-negative, got -1 (`check` failed)'
# expect: x must be positive (`check` failed)
# expect: JaxRuntimeError x must be positive (`check` failed)
# expect: JaxRuntimeError boom (`check` failed)
# expect: None 2.0

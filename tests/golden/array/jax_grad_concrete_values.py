# float() of a value being differentiated is JAX's ConcretizationTypeError (its derivative would be lost);
# item() and int() read the value as a constant, as in JAX
import jax, jax.numpy as jnp
try:
  jax.grad(lambda x: x * float(x))(1.0)
except jax.errors.ConcretizationTypeError as e:
  print("ConcretizationTypeError:", e)
print(jax.grad(lambda x: x * float(jax.lax.stop_gradient(x)))(3.0))
print(jax.grad(lambda x: x * x.item())(2.0), jax.grad(lambda x: x * int(x))(2.0))
# expect: ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: traced array with shape float32[]
# expect: The problem arose with the `float` function. If trying to convert the data type of a value, try using `x.astype(float)` or `jnp.array(x, float)` instead.
# expect:
# expect: See https://docs.jax.dev/en/latest/errors.html#jax.errors.ConcretizationTypeError
# expect: 3.0
# expect: 2.0 2.0

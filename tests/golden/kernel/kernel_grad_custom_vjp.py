# jax.grad of a loss through a Pallas kernel with a custom_vjp whose bwd rule is a second
# pallas_call (the way JAX's flash attention is differentiated); checked against jax.grad of the
# jax.numpy reference. A pallas_call without a rule cannot be differentiated (JAX's error).
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def scaled_square_kernel(x_ref, o_ref, *, scale):
  o_ref[...] = x_ref[...] * x_ref[...] * scale


def scaled_square_bwd_kernel(x_ref, g_ref, dx_ref, *, scale):
  dx_ref[...] = 2.0 * scale * x_ref[...] * g_ref[...]


def run(kernel, out_like, *args):
  return pl.pallas_call(
      kernel,
      out_shape=jax.ShapeDtypeStruct(out_like.shape, out_like.dtype),
      grid=(out_like.shape[0] // 8,),
      in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0)) for _ in args],
      out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
      interpret=True,
  )(*args)


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def scaled_square(x, scale):
  return run(functools.partial(scaled_square_kernel, scale=scale), x, x)


def scaled_square_fwd(x, scale):
  return scaled_square(x, scale), x


def scaled_square_bwd(scale, x, g):
  return (run(functools.partial(scaled_square_bwd_kernel, scale=scale), x, x, g),)


scaled_square.defvjp(scaled_square_fwd, scaled_square_bwd)

x = jax.random.normal(jax.random.key(0), (16, 128), jnp.float32)
w = jax.random.normal(jax.random.key(1), (16, 128), jnp.float32)


def loss(x):
  return jnp.sum(jnp.tanh(scaled_square(x, 0.5)) * w)


def ref_loss(x):
  return jnp.sum(jnp.tanh(x * x * 0.5) * w)


value, grad = jax.value_and_grad(loss)(x)
ref_value, ref_grad = jax.value_and_grad(ref_loss)(x)
print(grad.shape, grad.dtype, bool(jnp.allclose(grad, ref_grad, atol=1e-5, rtol=1e-5)))
print(bool(jnp.allclose(value, ref_value, atol=1e-4, rtol=1e-5)))
print(jnp.round(grad[0, :4], 4))

try:
  jax.grad(lambda x: jnp.sum(run(functools.partial(scaled_square_kernel, scale=1.0), x, x)))(x)
except ValueError as e:
  print(e)
# expect: (16, 128) float32 True
# expect: True
# expect: [-0.0627  0.011   0.0584  0.0122]
# expect: Linearization failed to produce known values for all output primals. This is typically caused by attempting to differentiate a function uses an operation that does not support reverse-mode autodiff.

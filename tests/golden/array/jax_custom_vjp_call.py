# jax.custom_vjp / jax.custom_jvp functions are called as their primal function (rules registered)
import functools
import jax
import jax.numpy as jnp


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def scaled(x, scale):
  return x * scale


def scaled_fwd(x, scale):
  return scaled(x, scale), None


def scaled_bwd(scale, residual, g):
  return (g * scale,)


scaled.defvjp(scaled_fwd, scaled_bwd)
print(scaled(jnp.arange(3.0), 2.0))


@jax.custom_jvp
def softplus(x):
  return jnp.log1p(jnp.exp(x))


@softplus.defjvp
def softplus_jvp(primals, tangents):
  (x,), (t,) = primals, tangents
  return softplus(x), t * jax.nn.sigmoid(x)


print(softplus(jnp.array([0.0, 1.0])), callable(softplus), callable(scaled))
print(jax.vmap(scaled, in_axes=(0, None))(jnp.ones((2, 2)), 3.0))
# expect: [0. 2. 4.]
# expect: [0.6931472 1.3132616] True True
# expect: [[3. 3.]
# expect:  [3. 3.]]

# jax.grad through jax.custom_vjp: the bwd rule replaces the primal's derivative; nondiff_argnums
# and nondiff_argnames, keyword calls, pytree arguments and outputs, residuals, None cotangents
import functools
import jax
import jax.numpy as jnp


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_gradient(x, limit):
  return x


def clip_fwd(x, limit):
  return x, None


def clip_bwd(limit, residual, g):
  return (jnp.clip(g, -limit, limit),)


clip_gradient.defvjp(clip_fwd, clip_bwd)
print(jax.grad(lambda a: jnp.sum(clip_gradient(a, 0.5) * jnp.array([1.0, 0.25, -3.0])))(jnp.ones(3)))


@functools.partial(jax.custom_vjp, nondiff_argnames=("scale",))
def scaled_pair(p, scale=2.0):
  return {"sum": p[0] + p[1], "prod": p[0] * p[1] * scale}


def scaled_pair_fwd(p, scale=2.0):
  return scaled_pair(p, scale=scale), (p[0], p[1])


def scaled_pair_bwd(scale, residuals, g):
  a, b = residuals
  # The true derivative, times 10 so that the rule is seen to be used
  return ((10 * (g["sum"] + g["prod"] * b * scale), None),)


scaled_pair.defvjp(scaled_pair_fwd, scaled_pair_bwd)


def loss(a, b):
  out = scaled_pair((a, b), scale=3.0)
  return out["sum"] + 2 * out["prod"]


print(jax.grad(loss, argnums=(0, 1))(2.0, 5.0))
print(jax.value_and_grad(lambda a: jnp.sum(scaled_pair((a, a))["prod"]))(jnp.array([1.0, 2.0])))


# A rule used inside a larger computation, twice, with the primal value flowing on
@jax.custom_vjp
def softplus(x):
  return jnp.log1p(jnp.exp(x))


softplus.defvjp(lambda x: (softplus(x), x), lambda x, g: (g * jax.nn.sigmoid(x),))
print(jax.grad(lambda a: jnp.sum(softplus(softplus(a) * a)))(jnp.array([0.0, 1.0])))
# Not followed (a constant argument): the primal runs, no rule is needed
print(jax.grad(lambda a: a * jnp.sum(clip_gradient(jnp.ones(2), 0.1)))(3.0))
# expect: [ 0.5   0.25 -0.5 ]
# expect: (Array(310., dtype=float32, weak_type=True), Array(0., dtype=float32, weak_type=True))
# expect: (Array(10., dtype=float32), Array([20., 40.], dtype=float32))
# expect: [0.3465736 1.6110438]
# expect: 2.0

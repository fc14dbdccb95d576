# logsumexp with -inf entries and over several axes
import jax
import jax.numpy as jnp

x = jnp.array([[0.0, -jnp.inf], [-jnp.inf, -jnp.inf]])
print(jax.nn.logsumexp(x, axis=1))  # expect: [  0. -inf]
y = jnp.arange(6.0).reshape(2, 3)
print(jax.nn.logsumexp(y, axis=(0, 1)), jax.nn.logsumexp(y, axis=0))
# expect: 5.4561934 [3.0485873 4.0485873 5.0485873]
print(jax.nn.softmax(jnp.array([0.0, -jnp.inf])))  # expect: [1. 0.]

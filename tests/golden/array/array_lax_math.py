# lax.rsqrt, lax.erf and jax.scipy.special.erf
import jax
import jax.numpy as jnp
from jax import lax

x = jnp.array([0.25, 1.0, 4.0])
print(lax.rsqrt(x))  # expect: [2.  1.  0.5]
print(lax.erf(jnp.array([-1.0, 0.0, 0.5])))  # expect: [-0.84270084  0.          0.5204999 ]
print(jax.scipy.special.erf(jnp.array([2.0, -0.1])))  # expect: [ 0.9953222  -0.11246292]
print(lax.exp(jnp.array([1.0])), lax.neg(x))  # expect: [2.7182817] [-0.25 -1.   -4.  ]

# lax elementwise ops: add, mul, sub, pow, logistic, integer_pow-like mul
import jax.numpy as jnp
from jax import lax

a = jnp.array([1.0, 2.0, 4.0])
b = jnp.array([0.5, 3.0, -1.0])
print(lax.add(a, b), lax.sub(a, b), lax.mul(a, b))
# expect: [1.5 5.  3. ] [ 0.5 -1.   5. ] [ 0.5  6.  -4. ]
print(lax.pow(a, b))  # expect: [1.   8.   0.25]
print(lax.logistic(jnp.array([0.0, 2.0])), lax.square(b))
# expect: [0.5      0.880797] [0.25 9.   1.  ]
print(lax.eq(a, 2.0), lax.lt(b, a), lax.abs(b))
# expect: [False  True False] [ True False  True] [0.5 3.  1. ]

# jax.jit runs the function as it is, with JAX's checks: static arguments (by position or name,
# each implying the other) must be hashable and name real parameters; donate_argnums is accepted
import jax, jax.numpy as jnp
from functools import partial
def t(f):
  try: print(f())
  except Exception as e: print(type(e).__name__, ":", str(e)[:300])
f = lambda x, n: x * n
t(lambda: jax.jit(f, static_argnums=1)(jnp.ones(2), 3))
t(lambda: jax.jit(f, static_argnums=(1,))(jnp.ones(2), [3]))
t(lambda: jax.jit(f, static_argnames="n")(jnp.ones(2), n=3))
t(lambda: jax.jit(f, static_argnames=("n",))(jnp.ones(2), n={"a": 1}))
t(lambda: jax.jit(f, static_argnums=5)(jnp.ones(2), 3))
@partial(jax.jit, static_argnums=(1,))
def g(x, shape):
  return jnp.zeros(shape) + x.sum()
t(lambda: g(jnp.ones(2), (2, 2)))
t(lambda: jax.jit(f, donate_argnums=0)(jnp.ones(2), 2))
# expect: [3. 3.]
# expect: ValueError : Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class 'list'>, [3]. The error was:
# expect: TypeError: unhashable type: 'list'
# expect:
# expect: [3. 3.]
# expect: ValueError : Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class 'dict'>, {'a': 1}. The error was:
# expect: TypeError: unhashable type: 'dict'
# expect:
# expect: ValueError : Jitted function has static_argnums=(5,), but only accepts 2 positional arguments.
# expect: [[2. 2.]
# expect:  [2. 2.]]
# expect: [2. 2.]

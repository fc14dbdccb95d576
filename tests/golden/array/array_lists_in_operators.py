# Python lists and tuples next to a JAX array in an operator, and in jax.nn / lax conversions:
# each is a TypeError under real JAX, worded as JAX or Python words it. Expectations: JAX 0.10.2.
import jax
import jax.numpy as jnp
from jax import lax

x = jnp.ones(2)
i = jnp.ones(2, dtype=jnp.int32)


def show(f):
    try:
        print(f())
    except TypeError as e:
        print("TypeError:", str(e).split(" See https")[0].strip())


show(lambda: [1, 2] + x)  # expect: TypeError: unsupported operand type(s) for +: 'list' and 'ArrayImpl'
show(lambda: (1, 2) * x)  # expect: TypeError: unsupported operand type(s) for *: 'tuple' and 'ArrayImpl'
show(lambda: [1, 2] - x)  # expect: TypeError: unsupported operand type(s) for -: 'list' and 'jaxlib._jax.ArrayImpl'
show(lambda: x / [1, 2])  # expect: TypeError: unsupported operand type(s) for /: 'jaxlib._jax.ArrayImpl' and 'list'
show(lambda: x ** [1, 2])  # expect: TypeError: unsupported operand type(s) for ** or pow(): 'jaxlib._jax.ArrayImpl' and 'list'
show(lambda: [1, 2] @ x)  # expect: TypeError: unsupported operand type(s) for @: 'list' and 'jaxlib._jax.ArrayImpl'
show(lambda: [1, 2] | i)  # expect: TypeError: unsupported operand type(s) for |: 'list' and 'jaxlib._jax.ArrayImpl'
show(lambda: [1, 2] != x)  # expect: TypeError: unsupported operand type(s) for ==: 'ArrayImpl' and 'list'
show(lambda: [1, 2] < x)  # expect: TypeError: '<' not supported between instances of 'list' and 'jaxlib._jax.ArrayImpl'
show(lambda: x >= (1, 2))  # expect: TypeError: '>=' not supported between instances of 'jaxlib._jax.ArrayImpl' and 'tuple'
show(lambda: jax.nn.softmax([1.0, 2.0]))  # expect: TypeError: max requires ndarray or scalar arguments, got <class 'list'> at position 0.
show(lambda: jax.nn.relu((1.0,)))  # expect: TypeError: maximum requires ndarray or scalar arguments, got <class 'tuple'> at position 0.
show(lambda: jax.nn.sigmoid([1.0]))  # expect: TypeError: Error interpreting argument to logistic as a JAX value. The problematic value is of type <class 'list'> and was passed to logistic at position 0.
show(lambda: jax.nn.log_softmax([1.0]))  # expect: TypeError: log_softmax requires ndarray or scalar arguments, got <class 'list'> at position 0.
show(lambda: lax.convert_element_type([1, 2], jnp.float32))  # expect: TypeError: Cannot determine dtype of [1, 2]

# jax.nn.one_hot takes a list of class ids; log_softmax of arrays works as JAX's.
print(jax.nn.one_hot([1, 0], 2))
# expect: [[0. 1.]
# expect:  [1. 0.]]
print(jax.nn.log_softmax(jnp.array([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]])))
# expect: [[-2.407606   -1.4076059  -0.40760595]
# expect:  [-3.5362697  -5.0362697  -0.03626956]]
print(jax.nn.log_softmax(jnp.arange(6.0).reshape(2, 3), axis=0))
# expect: [[-3.0485873  -3.0485873  -3.0485873 ]
# expect:  [-0.04858733 -0.04858733 -0.04858733]]

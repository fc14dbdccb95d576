# jax.numpy and jax.lax take arrays or scalars, never Python lists or tuples (numpy takes both):
# a program that passed a list here would fail under real JAX. Expectations: JAX 0.10.2.
import jax.numpy as jnp
import numpy as np
from jax import lax

x = jnp.ones(3)


def show(f):
    try:
        print(f())
    except TypeError as e:
        print("TypeError:", str(e).split(" See https")[0].strip())


show(lambda: jnp.sum([1, 2]))  # expect: TypeError: sum requires ndarray or scalar arguments, got <class 'list'> at position 0.
show(lambda: jnp.maximum(x, [1.0, 2.0, 3.0]))  # expect: TypeError: maximum requires ndarray or scalar arguments, got <class 'list'> at position 1.
show(lambda: jnp.where(x > 0, x, (0.0, 0.0, 0.0)))  # expect: TypeError: where requires ndarray or scalar arguments, got <class 'tuple'> at position 2.
show(lambda: jnp.concatenate([x, [1.0]]))  # expect: TypeError: concatenate requires ndarray or scalar arguments, got <class 'list'> at position 1.
show(lambda: jnp.einsum("i,i", x, [1.0, 2.0, 3.0]))  # expect: TypeError: einsum requires ndarray or scalar arguments, got <class 'list'> at position 1.
show(lambda: lax.exp([1.0]))  # expect: TypeError: Error interpreting argument to exp as a JAX value. The problematic value is of type <class 'list'> and was passed to exp at position 0.
show(lambda: x + [1.0, 2.0, 3.0])  # expect: TypeError: unsupported operand type(s) for +: 'ArrayImpl' and 'list'
show(lambda: x == (1.0, 1.0, 1.0))  # expect: TypeError: unsupported operand type(s) for ==: 'ArrayImpl' and 'tuple'
show(lambda: x[[0, 1]])  # expect: TypeError: Using a non-tuple sequence for multidimensional indexing is not allowed; use `arr[array(seq)]` instead of `arr[seq]`.
show(lambda: x.at[[0, 1]].set(2.0))  # expect: TypeError: Using a non-tuple sequence for multidimensional indexing is not allowed; use `arr[array(seq)]` instead of `arr[seq]`.

# What stays allowed: shapes, axes and sequences of arrays; lists inside a tuple index; numpy.
print(jnp.sum(jnp.ones((2, 3)), axis=(0, 1)), jnp.reshape(x, [3, 1]).shape)  # expect: 6.0 (3, 1)
print(jnp.concatenate([x, x]).shape, jnp.array([1, 2]) + 1)  # expect: (6,) [2 3]
print(jnp.ones((3, 3))[[0, 1], 0])  # expect: [1. 1.]
print(np.sum([1, 2]), np.array([1, 2]) + [1, 1], np.arange(4)[[0, 3]])  # expect: 3 [2 3] [0 3]

# lax.dot_general with contracting and batch dimensions
import jax.numpy as jnp
from jax import lax

a = jnp.arange(6.0).reshape(2, 3)
b = jnp.arange(6.0).reshape(2, 3)
print(lax.dot_general(a, b, (((1,), (1,)), ((), ()))))  # expect: [[ 5. 14.]
# expect:  [14. 50.]]
x = jnp.arange(8.0).reshape(2, 2, 2)
print(lax.dot_general(x, x, (((2,), (1,)), ((0,), (0,)))))  # expect: [[[ 2.  3.]
# expect:   [ 6. 11.]]
# expect:
# expect:  [[46. 55.]
# expect:   [66. 79.]]]
print(lax.dot_general(a, b, (((0,), (0,)), ((), ()))).shape)  # expect: (3, 3)

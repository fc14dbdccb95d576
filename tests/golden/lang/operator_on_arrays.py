# operator's functions on jax.numpy arrays go through the arrays' own operators.
import operator

import jax.numpy as jnp

x = jnp.array([1.0, 2.0, 3.0])
print(operator.add(x, 1), operator.mul(x, x), operator.neg(x), operator.truediv(x, 2))
print(operator.getitem(x, 1), operator.matmul(x, x), operator.lt(x, 2.5), operator.pow(x, 2))
m = jnp.arange(6).reshape(2, 3)
print(operator.getitem(m, (1, 2)), operator.itemgetter(0)(m), operator.attrgetter("shape")(m))
print(operator.abs(-x), operator.sub(m, 1).tolist())
# expect: [2. 3. 4.] [1. 4. 9.] [-1. -2. -3.] [0.5 1.  1.5]
# expect: 2.0 14.0 [ True  True False] [1. 4. 9.]
# expect: 5 [0 1 2] (2, 3)
# expect: [1. 2. 3.] [[-1, 0, 1], [2, 3, 4]]

# 3-d arrays print with blank lines between blocks
import jax.numpy as jnp

x = jnp.arange(12).reshape(2, 2, 3)
print(x)  # expect: [[[ 0  1  2]
# expect:   [ 3  4  5]]
# expect:
# expect:  [[ 6  7  8]
# expect:   [ 9 10 11]]]
print(repr(x * 0.5))  # expect: Array([[[0. , 0.5, 1. ],
# expect:         [1.5, 2. , 2.5]],
# expect:
# expect:        [[3. , 3.5, 4. ],
# expect:         [4.5, 5. , 5.5]]], dtype=float32, weak_type=True)
print(jnp.zeros((2, 0)))  # expect: []
print(jnp.zeros((0,)).shape)  # expect: (0,)

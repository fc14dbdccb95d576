# integer columns are padded to the widest entry
import jax.numpy as jnp

print(jnp.array([[1, -200], [30, 4]]))  # expect: [[   1 -200]
# expect:  [  30    4]]
print(jnp.array([[0.5, 100.0], [-2.25, 3.0]]))  # expect: [[  0.5  100.  ]
# expect:  [ -2.25   3.  ]]
print(repr(jnp.array([[1, 2], [3, 4]], dtype=jnp.uint8)))  # expect: Array([[1, 2],
# expect:        [3, 4]], dtype=uint8)
print(repr(jnp.array([[True], [False]])))  # expect: Array([[ True],
# expect:        [False]], dtype=bool)

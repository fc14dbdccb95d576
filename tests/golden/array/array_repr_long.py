# repr of summarised and wrapped arrays
import jax.numpy as jnp

print(repr(jnp.arange(1500)))
# expect: Array([   0,    1,    2, ..., 1497, 1498, 1499], dtype=int32)
print(repr(jnp.arange(20.0).reshape(2, 10) / 3))
# expect: Array([[0.        , 0.33333334, 0.6666667 , 1.        , 1.3333334 ,
# expect:         1.6666667 , 2.        , 2.3333335 , 2.6666667 , 3.        ],
# expect:        [3.3333335 , 3.6666667 , 4.        , 4.3333335 , 4.666667  ,
# expect:         5.        , 5.3333335 , 5.666667  , 6.        , 6.3333335 ]],      dtype=float32)
print(repr(jnp.ones((2, 3), jnp.bfloat16)))  # expect: Array([[1, 1, 1],
# expect:        [1, 1, 1]], dtype=bfloat16)
print(repr(jnp.zeros((0, 3), jnp.int32)))  # expect: Array([], shape=(0, 3), dtype=int32)

# arrays over 1000 elements print with ... in the middle
import jax.numpy as jnp

print(jnp.arange(2000))  # expect: [   0    1    2 ... 1997 1998 1999]
print(jnp.arange(1001.0))  # expect: [   0.    1.    2. ...  998.  999. 1000.]
print(jnp.zeros((40, 30), dtype=jnp.int32))  # expect: [[0 0 0 ... 0 0 0]
# expect:  [0 0 0 ... 0 0 0]
# expect:  [0 0 0 ... 0 0 0]
# expect:  ...
# expect:  [0 0 0 ... 0 0 0]
# expect:  [0 0 0 ... 0 0 0]
# expect:  [0 0 0 ... 0 0 0]]
print(jnp.arange(1000)[-3:])  # expect: [997 998 999]

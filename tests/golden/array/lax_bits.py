# lax's shifts, clamp and bitcast_convert_type: one dtype for all operands (no promotion, a Python
# int is int32, a Python float float32), logical and arithmetic right shifts of either signedness
import jax.numpy as jnp
from jax import lax

i = jnp.array([-8, -1, 5, 127], jnp.int8)
u = jnp.array([248, 255, 5, 127], jnp.uint8)
print(lax.shift_right_logical(i, jnp.int8(2)), lax.shift_right_arithmetic(i, jnp.int8(2)))
print(lax.shift_right_logical(u, jnp.uint8(2)), lax.shift_right_arithmetic(u, jnp.uint8(2)))
print(lax.shift_left(i, jnp.int8(1)), lax.shift_right_logical(jnp.int32(-16), 28))
print(lax.bitcast_convert_type(jnp.float32(1.5), jnp.int32), lax.bitcast_convert_type(i, jnp.uint8))
print(lax.clamp(-1.0, jnp.array([-3.0, 0.5, 2.0]), 1.0))
print(lax.clamp(jnp.int8(0), jnp.arange(-2, 3, dtype=jnp.int8), jnp.int8(1)))
for f in [lambda: lax.shift_left(u, 1), lambda: lax.shift_right_arithmetic(u, 1),
          lambda: lax.shift_left(jnp.arange(3.0), jnp.arange(3.0)),
          lambda: lax.clamp(0, jnp.arange(5, dtype=jnp.int8), 3)]:
    try:
        f()
    except TypeError as e:
        print(str(e).splitlines()[0])
# expect: [62 63  1 31] [-2 -1  1 31]
# expect: [62 63  1 31] [254 255   1  31]
# expect: [-16  -2  10  -2] 15
# expect: 1069547520 [248 255   5 127]
# expect: [-1.   0.5  1. ]
# expect: [0 0 0 1 1]
# expect: lax.shift_left requires arguments to have the same dtypes, got uint8, int32. (Tip: jnp.left_shift is a similar function that does automatic type promotion on inputs).
# expect: lax.shift_right_arithmetic requires arguments to have the same dtypes, got uint8, int32. (Tip: jnp.right_shift is a similar function that does automatic type promotion on inputs).
# expect: shift_left does not accept dtype float32 at position 0. Accepted dtypes at position 0 are subtypes of integer.
# expect: lax.clamp requires arguments to have the same dtypes, got int32, int8, int32.

# jnp.int4 / jnp.uint4: 4-bit integers (wrapping, saturating float casts, no implicit promotion, printing)
import jax.numpy as jnp
a = jnp.array([-8, -1, 0, 3, 7], dtype=jnp.int4)
u = jnp.arange(6, dtype=jnp.uint4) * 3
print(u, u.dtype)
print(jnp.array([7.9, -8.5, 20.0, -20.0]).astype(jnp.int4))
print(jnp.array([300, -3]).astype(jnp.int4), jnp.array([300, -3]).astype(jnp.uint4))
print(a.astype(jnp.float32).sum(), u.astype(jnp.int32).max())
print(jnp.int4 in [jnp.int8, jnp.int4], jnp.dtype("uint4"), jnp.iinfo(jnp.int4), jnp.iinfo(jnp.uint4))
print((a * 2).dtype)
for other in (True, 1.5, jnp.array(1, jnp.uint4), jnp.array(1, jnp.int8)):
  try:
    a + other
  except Exception as e:
    print(type(e).__name__, "no implicit dtype promotion path" in str(e))
print(repr(a))
print(jnp.zeros((2, 3), jnp.int4))
# expect: [0 3 6 9 12 15] uint4
# expect: [7 -8 7 -8]
# expect: [-4 -3] [12 13]
# expect: 1.0 15
# expect: True uint4 iinfo(min=-8, max=7, dtype=int4) iinfo(min=0, max=15, dtype=uint4)
# expect: int4
# expect: TypePromotionError False
# expect: TypePromotionError False
# expect: TypePromotionError False
# expect: Array([-8, -1, 0, 3, 7], dtype=int4)
# expect: [[0 0 0]
# expect:  [0 0 0]]

# jnp.var / jnp.std / jnp.median / jnp.count_nonzero: dtypes, axes, ddof, where masks, and the
# float32 rounding of real JAX on CPU. Expectations: JAX 0.10.2.
import jax.numpy as jnp

x = jnp.arange(24, dtype=jnp.float32).reshape(2, 3, 4) * 0.37 - 2.1
xi = jnp.arange(12, dtype=jnp.int8).reshape(3, 4)
xb = x.astype(jnp.bfloat16)
m = (jnp.arange(24).reshape(2, 3, 4) % 3) != 0
print(jnp.var(x), jnp.std(x))  # expect: 6.559792 2.5612092
print(jnp.var(x, axis=1))  # expect: [[1.4602667 1.4602666 1.4602667 1.4602667]
# expect:  [1.4602667 1.4602667 1.4602667 1.4602667]]
print(jnp.std(x, axis=(0, 2), keepdims=True).shape, jnp.std(x, axis=(0, 2), keepdims=True).ravel())  # expect: (1, 3, 1) [2.2582128 2.2582128 2.2582128]
print(jnp.var(xi), jnp.var(xi).dtype, jnp.var(xi, axis=0, ddof=1))  # expect: 11.916667 float32 [16. 16. 16. 16.]
print(jnp.std(xb, axis=-1), jnp.var(xb).dtype)  # expect: [[0.412109 0.414062 0.414062]
# expect:  [0.414062 0.419922 0.408203]] bfloat16
print(jnp.var(x, axis=2, where=m))  # expect: [[0.034225   0.21295561 0.2129556 ]
# expect:  [0.03422507 0.21295564 0.21295561]]
print(jnp.std(x, where=m), jnp.var(x, ddof=24), jnp.var(x, correction=2))  # expect: 2.550049 nan 7.156137
print(x.var(axis=0)[0], x.std())  # expect: [4.9284    4.9284    4.928401  4.9284005] 2.5612092
print(jnp.var(jnp.ones(3), dtype=jnp.bfloat16).dtype, jnp.std(jnp.arange(4)).dtype)  # expect: bfloat16 float32
print(jnp.median(x), jnp.median(x, axis=1)[0], jnp.median(xi, axis=0, keepdims=True))  # expect: 2.1550002 [-0.6199999  -0.24999988  0.12000012  0.49000025] [[4. 5. 6. 7.]]
print(jnp.median(xb), jnp.median(jnp.array([3.0, jnp.nan, 1.0])), jnp.median(x, axis=(0, 2)))  # expect: 2.15625 nan [0.67500013 2.1550002  3.6350002 ]
print(jnp.count_nonzero(xi), jnp.count_nonzero(xi % 3, axis=1), jnp.count_nonzero(m, axis=(0, 2), keepdims=True).ravel())  # expect: 11 [2 3 3] [4 6 6]
print(jnp.count_nonzero(jnp.array([0.0, -0.0, jnp.nan, 2.0])).dtype)  # expect: int32
try:
    jnp.var(x, where=1)
except ValueError as e:
    print("ValueError:", e)  # expect: ValueError: jnp.var: where must be None or a boolean array; got where.dtype=dtype('int32').
try:
    jnp.std(x, dtype=jnp.int32)
except ValueError as e:
    print("ValueError:", e)  # expect: ValueError: dtype argument to jnp.std must be inexact; got int32
try:
    jnp.var(x, ddof=1, correction=1)
except ValueError as e:
    print("ValueError:", e)  # expect: ValueError: ddof and correction can't be provided simultaneously.

# Reductions with `where=` masks and `initial=` values, as jnp.sum/prod/max/min/mean/any/all take
# them: masked elements count as the identity; `initial` joins every result. JAX 0.10.2.
import jax.numpy as jnp

x = jnp.arange(24, dtype=jnp.float32).reshape(2, 3, 4) * 0.37 - 2.1
xi = jnp.arange(12, dtype=jnp.int8).reshape(3, 4)
xb = x.astype(jnp.bfloat16)
m = (jnp.arange(24).reshape(2, 3, 4) % 3) != 0
print(jnp.sum(x, axis=1, where=m))  # expect: [[ 0.24000025 -1.9799998   0.24000025  2.4600005 ]
# expect:  [ 9.120001    6.9         9.120001   11.34      ]]
print(jnp.sum(x, initial=5.0), jnp.max(x, axis=(0, 1), initial=0.0))  # expect: 56.720005 [5.3       5.67      6.0400004 6.4100003]
print(jnp.max(x, axis=2, where=m, initial=-10))  # expect: [[-1.3599999   0.49000025  1.9700003 ]
# expect:  [ 3.0800004   4.9300003   6.4100003 ]]
print(jnp.min(xi, axis=1, initial=3), jnp.min(xi, axis=1, initial=3).dtype)  # expect: [0 3 3] int8
print(jnp.prod(xi, axis=0, where=xi > 2), jnp.prod(xi, axis=0, where=xi > 2).dtype)  # expect: [ 32  45  60 231] int32
print(jnp.mean(x, axis=1, where=m))  # expect: [[ 0.12000012 -0.9899999   0.12000012  1.2300003 ]
# expect:  [ 4.5600004   3.45        4.5600004   5.67      ]]
print(jnp.mean(xb, where=m), jnp.mean(xb, where=m).dtype)  # expect: 2.34375 bfloat16
print(jnp.any(x > 1, where=m), jnp.all(x > -3, axis=0, where=m).all())  # expect: True True
print(jnp.sum(xb, initial=1.5), jnp.sum(xb, initial=1.5).dtype, jnp.sum(xi, where=xi < 9))  # expect: 53.25 bfloat16 36
print(jnp.max(jnp.zeros((0, 3)), axis=0, initial=2.0), jnp.min(jnp.zeros((2, 0)), axis=1, initial=-1))  # expect: [2. 2. 2.] [-1. -1.]
print(jnp.sum(xi, initial=200, dtype=jnp.uint8), x.sum(axis=0, where=m)[1])  # expect: 10 [3.2000003 3.94      0.        5.4200006]
print(jnp.max(xi, where=xi % 2 == 0, initial=-128), jnp.amax(x, initial=100.0))  # expect: 10 100.0
print(jnp.mean(x, where=jnp.zeros(x.shape, bool)))  # expect: nan
for bad in [
    lambda: jnp.max(x, where=m),
    lambda: jnp.sum(x, where=xi),
    lambda: jnp.sum(x, initial=jnp.ones(2)),
    lambda: jnp.max(jnp.zeros((0,))),
]:
    try:
        bad()
    except ValueError as e:
        print("ValueError:", e)  # expect: ValueError: reduction operation max does not have an identity, so to use a where mask one has to specify 'initial'
# expect: ValueError: jnp.sum: where must be None or a boolean array; got where.dtype=dtype('int8').
# expect: ValueError: initial value must be a scalar. Got array of shape (2,)
# expect: ValueError: zero-size array to reduction operation max which has no identity

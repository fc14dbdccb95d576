# prod and mean of integer arrays along axes
import jax.numpy as jnp

x = jnp.arange(1, 7).reshape(2, 3)
print(x.prod(), x.prod(axis=0), x.prod(axis=1).dtype)  # expect: 720 [ 4 10 18] int32
print(x.mean(axis=0), x.mean(axis=1, keepdims=True))  # expect: [2.5 3.5 4.5] [[2.]
# expect:  [5.]]
print(jnp.mean(jnp.array([True, False, True, True])))  # expect: 0.75
print(x.max(axis=(0, 1)), x.min(axis=-1, keepdims=True))  # expect: 6 [[1]
# expect:  [4]]

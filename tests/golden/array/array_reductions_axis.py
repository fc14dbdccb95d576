# sum, max, min, mean, prod with axis, negative axis and keepdims
import jax.numpy as jnp

x = jnp.arange(1.0, 7.0).reshape(2, 3)
print(x.sum(), jnp.sum(x, axis=0), x.sum(axis=-1))  # expect: 21.0 [5. 7. 9.] [ 6. 15.]
print(x.max(axis=1), x.min(0))  # expect: [3. 6.] [1. 2. 3.]
print(x.mean(), x.mean(axis=0))  # expect: 3.5 [2.5 3.5 4.5]
print(jnp.prod(x, axis=1))  # expect: [  6. 120.]
print(x.sum(axis=1, keepdims=True))  # expect: [[ 6.]
# expect:  [15.]]
print(x.sum(axis=(0, 1)), jnp.max(x, axis=-2, keepdims=True).shape)  # expect: 21.0 (1, 3)

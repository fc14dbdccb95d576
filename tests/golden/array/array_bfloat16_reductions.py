# reductions and comparisons on bfloat16 arrays keep the dtype
import jax.numpy as jnp

x = jnp.linspace(0.0, 1.0, 7).astype(jnp.bfloat16)
print(x)  # expect: [0 0.166992 0.333984 0.5 0.667969 0.832031 1]
print(x.sum(), x.sum().dtype, x.max(), x.mean())  # expect: 3.5 bfloat16 1 0.5
print(x > 0.5, jnp.argmax(x))  # expect: [False False False False  True  True  True] 6
print(jnp.cumsum(x).dtype)  # expect: bfloat16

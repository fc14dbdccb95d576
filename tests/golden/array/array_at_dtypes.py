# .at updates keep the array's dtype: values are cast
import jax.numpy as jnp

i = jnp.arange(4)
print(i.at[0].set(9.7), i.at[1].add(0.9).dtype)  # expect: [9 1 2 3] int32
b = jnp.zeros(3, jnp.bfloat16)
print(b.at[1].set(1 / 3), b.at[2].add(jnp.float32(0.1)).dtype)  # expect: [0 0.333984 0] bfloat16
m = jnp.ones((2, 2), jnp.bool_)
print(m.at[0, 1].set(False))  # expect: [[ True False]
# expect:  [ True  True]]

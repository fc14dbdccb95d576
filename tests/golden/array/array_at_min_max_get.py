# .at[idx].min / max / get
import jax.numpy as jnp

x = jnp.array([5, 1, 9, 3])
print(x.at[0].min(2), x.at[1].max(4))  # expect: [2 1 9 3] [5 4 9 3]
print(x.at[jnp.array([0, 2])].min(jnp.array([7, 6])))  # expect: [5 1 6 3]
print(x.at[2].get(), x.at[1:3].get())  # expect: 9 [1 9]
print(x.at[:].max(4))  # expect: [5 4 9 4]

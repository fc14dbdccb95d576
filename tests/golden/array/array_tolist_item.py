# tolist and item return Python values
import jax.numpy as jnp

x = jnp.arange(6).reshape(2, 3)
print(x.tolist())  # expect: [[0, 1, 2], [3, 4, 5]]
print(jnp.array([0.5, 1.5]).tolist())  # expect: [0.5, 1.5]
print(jnp.array([True, False]).tolist())  # expect: [True, False]
print(jnp.array(3).item(), type(jnp.array(3).item()).__name__)  # expect: 3 int
print(jnp.array(2.5).item(), x[1, 2].item())  # expect: 2.5 5
print(jnp.array(7).tolist())  # expect: 7

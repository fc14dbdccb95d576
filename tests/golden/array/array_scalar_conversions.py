# float(), int(), bool() and formatting of 0-d arrays
import jax.numpy as jnp

x = jnp.array([1.0, 2.0, 3.5])
s = x.sum()
print(float(s), int(s), bool(s))  # expect: 6.5 6 True
print(f"{s:.3f}", f"{x.mean():.2f}", f"{jnp.array(7):03d}")  # expect: 6.500 2.17 007
print(int(jnp.array(-2.7)), bool(jnp.array(0)))  # expect: -2 False
if x[0] > 0:
    print("positive")  # expect: positive
print(s + 1, type(float(s)).__name__)  # expect: 7.5 float

# str(), f-strings and format specs with arrays
import jax.numpy as jnp

x = jnp.array([1.5, 2.25])
print(str(x), f"{x}", "x=%s" % x)  # expect: [1.5  2.25] [1.5  2.25] x=[1.5  2.25]
s = jnp.array(3.14159)
print(f"{s:.2f} {s:8.3f} {s:e}", f"{jnp.array(42):>5}", f"{jnp.array(7):x}")
# expect: 3.14    3.142 3.141590e+00    42 7
print(str(jnp.array(2, dtype=jnp.bfloat16)), f"{jnp.array(True)}")  # expect: 2 True
print("{:.1%}".format(jnp.array(0.25)))  # expect: 25.0%

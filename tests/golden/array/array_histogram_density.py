# jnp.histogram: bin counts, given edges, range, weights, density=True
import jax.numpy as jnp

x = jnp.array([0.1, 0.5, 0.5, 0.9, 2.0, jnp.nan, -1.0])
print(jnp.histogram(x, bins=3))
print(jnp.histogram(x, bins=3, density=True)[0])
print(jnp.histogram(x, bins=jnp.array([0.0, 0.5, 1.0, 2.0]), density=True)[0])
w = jnp.array([1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 3.0])
print(jnp.histogram(x, bins=2, range=(0, 1), weights=w))
print(jnp.histogram(x, bins=2, range=(0, 1), density=True, weights=w)[0])
print(jnp.histogram(jnp.arange(10), bins=4, density=True))
d, e = jnp.histogram(jnp.linspace(0.0, 1.0, 50) ** 2, bins=5, density=True)
print(float(jnp.sum(d * (e[1:] - e[:-1]))))
# expect: (Array([0., 0., 0.], dtype=float32), Array([nan, nan, nan, nan], dtype=float32))
# expect: [nan nan nan]
# expect: [0.4 1.2 0.2]
# expect: (Array([1., 4.], dtype=float32), Array([0. , 0.5, 1. ], dtype=float32))
# expect: [0.4 1.6]
# expect: (Array([0.13333334, 0.08888889, 0.08888889, 0.13333334], dtype=float32), Array([0.  , 2.25, 4.5 , 6.75, 9.  ], dtype=float32))
# expect: 1.0

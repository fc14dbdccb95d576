# a 1-D grid: step i gets block i of every operand through BlockSpec((4,), lambda i: (i,))
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def vadd_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


n, block = 12, 4
x = jnp.arange(n).astype(jnp.float32)
y = (jnp.arange(n) * 100).astype(jnp.float32)
spec = pl.BlockSpec((block,), lambda i: (i,))
out = pl.pallas_call(vadd_kernel, out_shape=jax.ShapeDtypeStruct((n,), jnp.float32),
                     grid=(n // block,), in_specs=[spec, spec], out_specs=spec,
                     interpret=True)(x, y)
print(out)  # expect: [   0.  101.  202.  303.  404.  505.  606.  707.  808.  909. 1010. 1111.]
print(jnp.array_equal(out, x + y))  # expect: True

# a grid given as a plain int means a 1-tuple
out2 = pl.pallas_call(vadd_kernel, out_shape=jax.ShapeDtypeStruct((n,), jnp.float32),
                      grid=3, in_specs=[spec, spec], out_specs=spec, interpret=True)(y, y)
print(out2)  # expect: [   0.  200.  400.  600.  800. 1000. 1200. 1400. 1600. 1800. 2000. 2200.]

# Values a kernel computes and never uses, inside the element loops the CUDA backend fuses: a
# load and the sum made from it, a chain of three operations, and a whole loop's worth (loads and
# arithmetic with no store at all). They are left out of the generated unit (nvcc warned of each
# as a variable set and never used), and the values the kernel does store are the emulator's.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref, p_ref):
    x = x_ref[...]
    scaled = x * 3.0  # never used
    o_ref[...] = x + y_ref[...]
    chained = jnp.exp(jnp.tanh(y_ref[...] * 0.5))  # never used, nor what it is made of
    p_ref[...] = x * y_ref[...]
    a = x_ref[...]
    b = a - y_ref[...]  # a loop of loads and arithmetic that stores nothing


x = jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128) / 100.0
y = jnp.cos(jnp.arange(16 * 128, dtype=jnp.float32)).reshape(16, 128)
spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
o, p = pl.pallas_call(
    kernel,
    grid=(2,),
    in_specs=[spec, spec],
    out_specs=[spec, spec],
    out_shape=[jax.ShapeDtypeStruct((16, 128), jnp.float32)] * 2,
)(x, y)
print(o[::5, ::40])
print(p[::5, ::40])

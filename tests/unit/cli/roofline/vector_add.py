# A vector add of 2**20 float32 elements, first in blocks of 8192 (128 grid steps), then in
# blocks of 131072 (8 steps): the roofline test's second hand-computed kernel.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import check


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def add(x, y, block):
    spec = pl.BlockSpec((block,), lambda i: (i,))
    return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(x.shape[0] // block,), in_specs=[spec, spec], out_specs=spec,
                          interpret=True)(x, y)


kx, ky = jax.random.split(jax.random.key(1))
x = jax.random.normal(kx, (1 << 20,))
y = jax.random.normal(ky, (1 << 20,))
check(add(x, y, 8192), x + y, name="small blocks")
check(add(x, y, 131072), x + y, name="large blocks")

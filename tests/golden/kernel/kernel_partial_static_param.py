# functools.partial binds a static keyword parameter; each value traces a different kernel
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def power_kernel(x_ref, o_ref, *, power, offset):
    acc = jnp.ones_like(x_ref[...])
    for _ in range(power):
        acc = acc * x_ref[...]
    o_ref[...] = acc + offset


def run(power, offset):
    kernel = functools.partial(power_kernel, power=power, offset=offset)
    spec = pl.BlockSpec((3,), lambda i: (i,))
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((6,), jnp.float32), grid=(2,),
                          in_specs=[spec], out_specs=spec, interpret=True)(x)


x = jnp.array([1.0, 2.0, 3.0, -1.0, -2.0, 0.5])
print(run(2, 0.0))  # expect: [1.   4.   9.   1.   4.   0.25]
print(run(3, 0.0))  # expect: [ 1.     8.    27.    -1.    -8.     0.125]
print(run(0, 10.0))  # expect: [11. 11. 11. 11. 11. 11.]

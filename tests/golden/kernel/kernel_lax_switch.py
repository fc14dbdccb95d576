# lax.switch picks a branch by index; an index outside [0, n) is clamped to the nearest branch
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def add_one(v):
    return v + 1.0


def negate(v):
    return -v


def square(v):
    return v * v


def switch_kernel(x_ref, o_ref):
    i = pl.program_id(0)
    # steps 0..5 ask for branches -1..4: -1 clamps to 0, 3 and 4 clamp to 2
    o_ref[...] = lax.switch(i - 1, [add_one, negate, square], x_ref[...])


x = jnp.arange(12).astype(jnp.float32)
spec = pl.BlockSpec((2,), lambda i: (i,))
out = pl.pallas_call(switch_kernel, out_shape=jax.ShapeDtypeStruct((12,), jnp.float32),
                     grid=(6,), in_specs=[spec], out_specs=spec, interpret=True)(x)
print(out)  # expect: [  1.   2.   3.   4.  -4.  -5.  36.  49.  64.  81. 100. 121.]

# lax.cond inside a kernel: branches that return values, and branches that write refs
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def cond_kernel(x_ref, o_ref, flag_ref):
    i = pl.program_id(0)
    v = x_ref[...]
    o_ref[...] = lax.cond(i % 2 == 0, lambda a: a * 10.0, lambda a: a - 100.0, v)

    def positive():
        flag_ref[...] = jnp.ones_like(flag_ref)

    def other():
        flag_ref[...] = jnp.full(flag_ref.shape, -1, jnp.int32)

    lax.cond(jnp.sum(v) > 10.0, positive, other)


x = jnp.arange(8).astype(jnp.float32)
spec = pl.BlockSpec((2,), lambda i: (i,))
flag_spec = pl.BlockSpec((1,), lambda i: (i,))
shapes = (jax.ShapeDtypeStruct((8,), jnp.float32), jax.ShapeDtypeStruct((4,), jnp.int32))
out, flags = pl.pallas_call(cond_kernel, out_shape=shapes, grid=(4,), in_specs=[spec],
                            out_specs=(spec, flag_spec), interpret=True)(x)
print(out)  # expect: [  0.  10. -98. -97.  40.  50. -94. -93.]
print(flags)  # expect: [-1 -1 -1  1]

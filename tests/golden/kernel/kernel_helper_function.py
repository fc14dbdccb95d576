# kernels can call ordinary Python helpers, on values and on refs
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def affine(v, scale, shift):
    return v * scale + shift


def copy_scaled(src_ref, dst_ref, factor):
    dst_ref[...] = src_ref[...] * factor


def kernel(x_ref, y_ref, o_ref, p_ref):
    o_ref[...] = affine(x_ref[...], 2.0, y_ref[...])
    copy_scaled(y_ref, p_ref, 3.0)


x = jnp.arange(6).astype(jnp.float32)
y = jnp.array([1.0, 0.0, -1.0, 5.0, 7.0, 2.0])
spec = pl.BlockSpec((3,), lambda i: (i,))
shape = jax.ShapeDtypeStruct((6,), jnp.float32)
o, p = pl.pallas_call(kernel, out_shape=(shape, shape), grid=(2,), in_specs=[spec, spec],
                      out_specs=(spec, spec), interpret=True)(x, y)
print(o)  # expect: [ 1.  2.  3. 11. 15. 12.]
print(p)  # expect: [ 3.  0. -3. 15. 21.  6.]

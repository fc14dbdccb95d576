# a tuple out_shape gives the kernel two output refs and the call a tuple of two arrays
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def sum_diff_kernel(x_ref, y_ref, s_ref, d_ref):
    s_ref[...] = x_ref[...] + y_ref[...]
    d_ref[...] = (x_ref[...] - y_ref[...]).astype(jnp.int32)


x = jnp.array([5.0, 7.0, 9.0, 11.0, 13.0, 15.0])
y = jnp.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
spec = pl.BlockSpec((2,), lambda i: (i,))
out_shape = (jax.ShapeDtypeStruct((6,), jnp.float32), jax.ShapeDtypeStruct((6,), jnp.int32))
res = pl.pallas_call(sum_diff_kernel, out_shape=out_shape, grid=(3,), in_specs=[spec, spec],
                     out_specs=(spec, spec), interpret=True)(x, y)
print(type(res).__name__, len(res))  # expect: tuple 2
s, d = res
print(s, s.dtype)  # expect: [ 6.  9. 12. 15. 18. 21.] float32
print(d, d.dtype)  # expect: [4 5 6 7 8 9] int32

# a list out_shape (and list out_specs) is turned into a tuple too
res2 = pl.pallas_call(sum_diff_kernel, out_shape=list(out_shape), grid=(3,),
                      in_specs=[spec, spec], out_specs=[spec, spec], interpret=True)(y, x)
print(type(res2).__name__, res2[1])  # expect: tuple [-4 -5 -6 -7 -8 -9]

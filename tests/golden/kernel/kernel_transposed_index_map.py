# a transposed index map: output block (i, j) comes from input block (j, i), transposed in-kernel
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def transpose_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...].T


x = jnp.arange(24).reshape(4, 6).astype(jnp.float32)
out = pl.pallas_call(transpose_kernel, out_shape=jax.ShapeDtypeStruct((6, 4), jnp.float32),
                     grid=(3, 2), in_specs=[pl.BlockSpec((2, 2), lambda i, j: (j, i))],
                     out_specs=pl.BlockSpec((2, 2), lambda i, j: (i, j)), interpret=True)(x)
print(out)
print(jnp.array_equal(out, x.T))


# swapping blocks without transposing them: block (i, j) of the output is block (j, i) of x
def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


sq = jnp.arange(16).reshape(4, 4).astype(jnp.float32)
swapped = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32),
                         grid=(2, 2), in_specs=[pl.BlockSpec((2, 2), lambda i, j: (j, i))],
                         out_specs=pl.BlockSpec((2, 2), lambda i, j: (i, j)), interpret=True)(sq)
print(swapped)
# expect: [[ 0.  6. 12. 18.]
# expect:  [ 1.  7. 13. 19.]
# expect:  [ 2.  8. 14. 20.]
# expect:  [ 3.  9. 15. 21.]
# expect:  [ 4. 10. 16. 22.]
# expect:  [ 5. 11. 17. 23.]]
# expect: True
# expect: [[ 0.  1.  8.  9.]
# expect:  [ 4.  5. 12. 13.]
# expect:  [ 2.  3. 10. 11.]
# expect:  [ 6.  7. 14. 15.]]

# args: --semantics interpret
# A TPU cannot compile jnp.sort in a kernel (fail_kernel_sort_unlowerable.py), but JAX's
# interpret mode runs it, and so does `--semantics interpret`
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = jnp.sort(x_ref[...], axis=-1) + jnp.cumsum(x_ref[...], axis=-1)


x = jnp.array([[3.0, 1.0, 2.0, 0.5], [0.0, -1.0, 4.0, 2.5]], jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2, 4), jnp.float32),
                     interpret=True)(x)
print(out)
# expect: [[ 3.5  5.   8.   9.5]
# expect:  [-1.  -1.   5.5  9.5]]

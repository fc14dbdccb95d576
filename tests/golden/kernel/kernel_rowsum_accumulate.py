# row sums accumulated over the last grid axis straight into the output block (init at k == 0)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def rowsum_kernel(x_ref, o_ref):
    k = pl.program_id(1)

    @pl.when(k == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += jnp.sum(x_ref[...], axis=1)


rows, cols, bm, bk = 4, 12, 2, 4
x = jnp.arange(rows * cols).reshape(rows, cols).astype(jnp.float32)
x = x * jnp.array([1.0, -1.0, 2.0, 0.5])[:, None]
out = pl.pallas_call(rowsum_kernel, out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
                     grid=(rows // bm, cols // bk),
                     in_specs=[pl.BlockSpec((bm, bk), lambda i, k: (i, k))],
                     out_specs=pl.BlockSpec((bm,), lambda i, k: (i,)), interpret=True)(x)
print(out)  # expect: [  66. -210.  708.  249.]
print(jnp.sum(x, axis=1))  # expect: [  66. -210.  708.  249.]

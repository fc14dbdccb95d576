# without in_specs every step sees the whole input; only the output is cut into blocks
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def tile_kernel(x_ref, o_ref):
    assert x_ref.shape == (2, 4) and o_ref.shape == (2, 4)
    o_ref[...] = x_ref[...] * (pl.program_id(0) + 1).astype(jnp.float32)


x = jnp.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
out = pl.pallas_call(tile_kernel, out_shape=jax.ShapeDtypeStruct((6, 4), jnp.float32), grid=(3,),
                     out_specs=pl.BlockSpec((2, 4), lambda i: (i, 0)), interpret=True)(x)
print(out)


# no specs at all with a grid: every step sees the whole input and the whole output
def accumulate_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...] * (pl.program_id(0) + 1).astype(jnp.float32)


total = pl.pallas_call(accumulate_kernel, out_shape=jax.ShapeDtypeStruct((2, 4), jnp.float32),
                       grid=(3,), interpret=True)(x)
print(total)
# expect: [[ 1.  2.  3.  4.]
# expect:  [ 5.  6.  7.  8.]
# expect:  [ 2.  4.  6.  8.]
# expect:  [10. 12. 14. 16.]
# expect:  [ 3.  6.  9. 12.]
# expect:  [15. 18. 21. 24.]]
# expect: [[ 6. 12. 18. 24.]
# expect:  [30. 36. 42. 48.]]

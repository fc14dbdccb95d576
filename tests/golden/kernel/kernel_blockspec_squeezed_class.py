# pl.Squeezed() and pl.squeezed mean the same as None in a block shape
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def colsum_kernel(x_ref, o_ref):
    assert x_ref.shape == (3, 4) and o_ref.shape == (4,)
    o_ref[...] = jnp.sum(x_ref[...], axis=0)


x = jnp.arange(24).reshape(2, 3, 4).astype(jnp.float32)
in_spec = pl.BlockSpec((pl.Squeezed(), 3, 4), lambda b: (b, 0, 0))
out_spec = pl.BlockSpec((pl.squeezed, 4), lambda b: (b, 0))
out = pl.pallas_call(colsum_kernel, out_shape=jax.ShapeDtypeStruct((2, 4), jnp.float32),
                     grid=(2,), in_specs=[in_spec], out_specs=out_spec, interpret=True)(x)
print(out)

# squeezing two dimensions leaves a 1-D ref
def row_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + x_ref[0] * 0.5


row_spec = pl.BlockSpec((None, None, 4), lambda b, r: (b, r, 0))
rows = pl.pallas_call(row_kernel,
                      out_shape=jax.ShapeDtypeStruct((2, 3, 4), jnp.float32), grid=(2, 3),
                      in_specs=[row_spec], out_specs=row_spec, interpret=True)(x)
print(rows[1])
# expect: [[12. 15. 18. 21.]
# expect:  [48. 51. 54. 57.]]
# expect: [[18. 19. 20. 21.]
# expect:  [24. 25. 26. 27.]
# expect:  [30. 31. 32. 33.]]

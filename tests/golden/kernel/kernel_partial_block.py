# array sizes that are not block multiples: grid = pl.cdiv(n, block); the ragged tail is dropped
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0 + 1.0


n, block = 10, 4
print(pl.cdiv(n, block), pl.cdiv(8, 4), pl.cdiv(1, 4))  # expect: 3 2 1
x = jnp.arange(n).astype(jnp.float32)
spec = pl.BlockSpec((block,), lambda i: (i,))
out = pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct((n,), jnp.float32),
                     grid=(pl.cdiv(n, block),), in_specs=[spec], out_specs=spec,
                     interpret=True)(x)
print(out.shape)  # expect: (10,)
print(out)  # expect: [ 1.  4.  7. 10. 13. 16. 19. 22. 25. 28.]

# 2-D: a (5, 6) array in (2, 4) blocks needs a (3, 2) grid
m = jnp.arange(30).reshape(5, 6).astype(jnp.float32)
spec2 = pl.BlockSpec((2, 4), lambda i, j: (i, j))
out2 = pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct((5, 6), jnp.float32),
                      grid=(pl.cdiv(5, 2), pl.cdiv(6, 4)), in_specs=[spec2], out_specs=spec2,
                      interpret=True)(m)
print(jnp.array_equal(out2, m * 3.0 + 1.0))  # expect: True
print(out2[4])  # expect: [73. 76. 79. 82. 85. 88.]

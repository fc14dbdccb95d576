# a 2-D grid over 2-D blocks: the kernel tags each block with its grid coordinates
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def tag_kernel(x_ref, o_ref):
    i = pl.program_id(0)
    j = pl.program_id(1)
    o_ref[...] = x_ref[...] + (i * 100 + j * 10).astype(jnp.float32)


x = jnp.arange(24).reshape(4, 6).astype(jnp.float32)
spec = pl.BlockSpec((2, 3), lambda i, j: (i, j))
out = pl.pallas_call(tag_kernel, out_shape=jax.ShapeDtypeStruct((4, 6), jnp.float32),
                     grid=(2, 2), in_specs=[spec], out_specs=spec, interpret=True)(x)
print(out)

# blocks of a different shape: (4, 2) tiles on a (1, 3) grid
spec2 = pl.BlockSpec((4, 2), lambda i, j: (i, j))
out2 = pl.pallas_call(tag_kernel, out_shape=jax.ShapeDtypeStruct((4, 6), jnp.float32),
                      grid=(1, 3), in_specs=[spec2], out_specs=spec2, interpret=True)(x)
print(out2)
# expect: [[  0.   1.   2.  13.  14.  15.]
# expect:  [  6.   7.   8.  19.  20.  21.]
# expect:  [112. 113. 114. 125. 126. 127.]
# expect:  [118. 119. 120. 131. 132. 133.]]
# expect: [[ 0.  1. 12. 13. 24. 25.]
# expect:  [ 6.  7. 18. 19. 30. 31.]
# expect:  [12. 13. 24. 25. 36. 37.]
# expect:  [18. 19. 30. 31. 42. 43.]]

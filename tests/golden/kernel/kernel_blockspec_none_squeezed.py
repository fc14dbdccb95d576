# a None entry in block_shape squeezes that dimension out of the kernel's ref
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def batch_kernel(x_ref, o_ref):
    assert x_ref.shape == (2, 4)
    b = pl.program_id(0)
    tag = (b * 100).astype(jnp.float32)
    o_ref[0, :] = x_ref[1, :] + tag
    o_ref[1, :] = x_ref[0, :] + tag


x = jnp.arange(24).reshape(3, 2, 4).astype(jnp.float32)
spec = pl.BlockSpec((None, 2, 4), lambda b: (b, 0, 0))
out = pl.pallas_call(batch_kernel, out_shape=jax.ShapeDtypeStruct((3, 2, 4), jnp.float32),
                     grid=(3,), in_specs=[spec], out_specs=spec, interpret=True)(x)
print(out)


# a squeezed middle dimension: the index map gives an element index there
def middle_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


mid_in = pl.BlockSpec((3, None, 4), lambda j: (0, 1 - j, 0))
mid_out = pl.BlockSpec((3, None, 4), lambda j: (0, j, 0))
out2 = pl.pallas_call(middle_kernel, out_shape=jax.ShapeDtypeStruct((3, 2, 4), jnp.float32),
                      grid=(2,), in_specs=[mid_in], out_specs=mid_out, interpret=True)(x)
print(out2[:, 0])
print(out2[:, 1])
# expect: [[[  4.   5.   6.   7.]
# expect:   [  0.   1.   2.   3.]]
# expect:
# expect:  [[112. 113. 114. 115.]
# expect:   [108. 109. 110. 111.]]
# expect:
# expect:  [[220. 221. 222. 223.]
# expect:   [216. 217. 218. 219.]]]
# expect: [[ 8. 10. 12. 14.]
# expect:  [24. 26. 28. 30.]
# expect:  [40. 42. 44. 46.]]
# expect: [[ 0.  2.  4.  6.]
# expect:  [16. 18. 20. 22.]
# expect:  [32. 34. 36. 38.]]

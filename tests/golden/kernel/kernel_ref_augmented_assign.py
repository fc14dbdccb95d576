# augmented assignment on refs loads, computes and stores back; pl.multiple_of is a hint only
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def aug_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]
    o_ref[...] += 1.0
    o_ref[1, :] *= 10.0
    o_ref[:, 0] -= 100.0
    o_ref[2, pl.ds(1, 2)] /= 2.0


x = jnp.arange(12).reshape(3, 4).astype(jnp.float32)
print(pl.pallas_call(aug_kernel, out_shape=jax.ShapeDtypeStruct((3, 4), jnp.float32),
                     interpret=True)(x))


def aligned_kernel(x_ref, o_ref):
    start = pl.multiple_of(pl.program_id(0) * 4, 4)
    o_ref[...] = jnp.zeros_like(o_ref)
    o_ref[...] += x_ref[pl.ds(start, 4)]
    o_ref[...] *= 2


v = jnp.arange(8, dtype=jnp.int32)
print(pl.pallas_call(aligned_kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.int32), grid=(2,),
                     out_specs=pl.BlockSpec((4,), lambda i: (i,)), interpret=True)(v))
# expect: [[-99.    2.    3.    4. ]
# expect:  [-50.   60.   70.   80. ]
# expect:  [-91.    5.    5.5  12. ]]
# expect: [ 0  2  4  6  8 10 12 14]

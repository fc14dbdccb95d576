# pl.ds(start, size, stride) takes `size` elements `stride` apart; pl.dslice is the same thing
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def stride_kernel(x_ref, o_ref, p_ref):
    o_ref[...] = jnp.zeros_like(o_ref)
    o_ref[0, :] = x_ref[pl.ds(0, 4, stride=2)]
    o_ref[1, :] = x_ref[pl.ds(1, 4, 2)]
    o_ref[2, :3] = x_ref[pl.dslice(2, 3)]
    o_ref[3, :] = x_ref[pl.ds(4)]
    p_ref[...] = jnp.zeros_like(p_ref)
    p_ref[pl.ds(1, 3, stride=3)] = x_ref[pl.ds(5, 3)]


x = (jnp.arange(10) * 10).astype(jnp.float32)
shapes = (jax.ShapeDtypeStruct((4, 4), jnp.float32), jax.ShapeDtypeStruct((8,), jnp.float32))
o, p = pl.pallas_call(stride_kernel, out_shape=shapes, interpret=True)(x)
print(o)
print(p)


def traced_stride_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[pl.ds(pl.program_id(0), 3, stride=3)]


per_step = pl.pallas_call(traced_stride_kernel, out_shape=jax.ShapeDtypeStruct((3, 3), jnp.float32),
                          grid=(3,), out_specs=pl.BlockSpec((None, 3), lambda i: (i, 0)),
                          interpret=True)(x)
print(per_step)
# expect: [[ 0. 20. 40. 60.]
# expect:  [10. 30. 50. 70.]
# expect:  [20. 30. 40.  0.]
# expect:  [ 0. 10. 20. 30.]]
# expect: [ 0. 50.  0.  0. 60.  0.  0. 70.]
# expect: [[ 0. 30. 60.]
# expect:  [10. 40. 70.]
# expect:  [20. 50. 80.]]

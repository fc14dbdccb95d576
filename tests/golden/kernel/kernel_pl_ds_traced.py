# pl.ds(start, size) with a start computed from pl.program_id picks a window of the whole ref
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def reverse_blocks_kernel(x_ref, o_ref):
    i = pl.program_id(0)
    start = (pl.num_programs(0) - 1 - i) * 4
    o_ref[...] = x_ref[pl.ds(start, 4)]


x = jnp.arange(12).astype(jnp.float32)
out = pl.pallas_call(reverse_blocks_kernel, out_shape=jax.ShapeDtypeStruct((12,), jnp.float32),
                     grid=(3,), out_specs=pl.BlockSpec((4,), lambda i: (i,)),
                     interpret=True)(x)
print(out)


def pairs_kernel(m_ref, o_ref):
    i = pl.program_id(0)
    o_ref[...] = m_ref[pl.ds(i, 2), 1:4] * 10.0 + m_ref[pl.ds(0, 2), pl.ds(i + 1, 3)]


m = jnp.arange(20).reshape(4, 5).astype(jnp.float32)
out2 = pl.pallas_call(pairs_kernel, out_shape=jax.ShapeDtypeStruct((2, 2, 3), jnp.float32),
                      grid=(2,), out_specs=pl.BlockSpec((None, 2, 3), lambda i: (i, 0, 0)),
                      interpret=True)(m)
print(out2)
# expect: [ 8.  9. 10. 11.  4.  5.  6.  7.  0.  1.  2.  3.]
# expect: [[[ 11.  22.  33.]
# expect:   [ 66.  77.  88.]]
# expect:
# expect:  [[ 62.  73.  84.]
# expect:   [117. 128. 139.]]]

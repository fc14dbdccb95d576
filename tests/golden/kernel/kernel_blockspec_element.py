# pl.Element(n): the index map returns an element offset, so windows may overlap
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def window_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


x = (jnp.arange(10) * 3).astype(jnp.float32)
# windows of 4 elements starting at 0, 2, 4, 6
in_spec = pl.BlockSpec((pl.Element(4),), lambda i: (i * 2,))
out_spec = pl.BlockSpec((None, 4), lambda i: (i, 0))
out = pl.pallas_call(window_kernel, out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32),
                     grid=(4,), in_specs=[in_spec], out_specs=out_spec, interpret=True)(x)
print(out)


def sum_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sum(x_ref[...], axis=0, keepdims=True)


# 2-D: rows from element offset 3 - i, all columns
m = jnp.arange(20).reshape(5, 4).astype(jnp.float32)
in2 = pl.BlockSpec((pl.Element(2), 4), lambda i: (3 - i, 0))
out2 = pl.BlockSpec((1, 4), lambda i: (i, 0))
sums = pl.pallas_call(sum_kernel, out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32),
                      grid=(4,), in_specs=[in2], out_specs=out2, interpret=True)(m)
print(sums)
# expect: [[ 0.  3.  6.  9.]
# expect:  [ 6.  9. 12. 15.]
# expect:  [12. 15. 18. 21.]
# expect:  [18. 21. 24. 27.]]
# expect: [[28. 30. 32. 34.]
# expect:  [20. 22. 24. 26.]
# expect:  [12. 14. 16. 18.]
# expect:  [ 4.  6.  8. 10.]]

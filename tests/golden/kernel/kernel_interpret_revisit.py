# args: --semantics interpret
# in interpret semantics (JAX interpret=True) an output block revisited after other blocks works:
# the block is re-read from the full output array every step (the tpu semantics reject this)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


x = jnp.arange(16).reshape(4, 4).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32), grid=(2, 2),
                     in_specs=[pl.BlockSpec((2, 4), lambda i, j: (j, 0))],
                     out_specs=pl.BlockSpec((2, 4), lambda i, j: (j, 0)),
                     interpret=True)(x)
print(out)
# expect: [[ 0.  2.  4.  6.]
# expect:  [ 8. 10. 12. 14.]
# expect:  [16. 18. 20. 22.]
# expect:  [24. 26. 28. 30.]]

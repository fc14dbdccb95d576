# args: --semantics interpret
# in interpret semantics (JAX interpret=True) a block index past the array is clamped: block 3
# reads block 2 (the tpu semantics report the out-of-range index instead)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


x = jnp.arange(12).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((12,), jnp.float32), grid=(3,),
                     in_specs=[pl.BlockSpec((4,), lambda i: (i + 1,))],
                     out_specs=pl.BlockSpec((4,), lambda i: (i,)), interpret=True)(x)
print(out)
# expect: [ 5.  6.  7.  8.  9. 10. 11. 12.  9. 10. 11. 12.]

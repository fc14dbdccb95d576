# jnp.sort records the primitive `sort`, which Mosaic cannot lower for a TensorCore: in `tpu`
# semantics the kernel fails at the call, in Mosaic's words (real JAX raises this when it
# compiles the kernel for a TPU; its interpret mode runs it, see kernel_sort_interpret.py)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = jnp.sort(x_ref[...], axis=-1)  # error: NotImplementedError: Unimplemented primitive in Pallas TPU lowering for tc: sort.


x = jnp.array([[3.0, 1.0, 2.0, 0.5], [0.0, -1.0, 4.0, 2.5]], jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2, 4), jnp.float32),
                     interpret=True)(x)
print(out)

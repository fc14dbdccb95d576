# args: --lint
# with --lint, block shapes a real TPU rejects (last two dims not multiples of 8 and 128) warn
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def double(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


x = jnp.arange(16 * 256, dtype=jnp.float32).reshape(16, 256)
out = pl.pallas_call(double, out_shape=jax.ShapeDtypeStruct((16, 256), jnp.float32), grid=(4, 2),
                     in_specs=[pl.BlockSpec((4, 128), lambda i, j: (i, j))],  # warning: breaks the TPU tiling rule
                     out_specs=pl.BlockSpec((4, 128), lambda i, j: (i, j)),  # warning: breaks the TPU tiling rule
                     interpret=True)(x)
print(out[::8, ::128])
# expect: [[   0.  256.]
# expect:  [4096. 4352.]]

# A call with two errors: its output block comes back at grid step 2 (a revisit), and its input's
# block index leaves the array at step 3. The emulated TPU runs the steps in order and raises the
# revisit; the CUDA backend, which works out every step's blocks before the call runs, once raised
# the later step's error first. Both must fail at the output's index map.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


x = jnp.ones((24, 128), jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
    grid=(4,),
    in_specs=[pl.BlockSpec((8, 128), lambda i: (i // 3 * 5, 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i: (i % 2, 0)),
)(x)
print(out.sum())

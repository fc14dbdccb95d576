# An output that an input aliases may come back to a block it left: the emulated TPU (as JAX's TPU
# interpret mode) does not judge revisits of such outputs, and the last visit's block stays. The
# CUDA backend once raised a revisit error here. Grid (2, 3): each block of the output is written
# at steps (0, j) and again at (1, j), from the input as the call passed it.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0 + pl.program_id(0).astype(jnp.float32)


x = jnp.arange(24 * 128, dtype=jnp.float32).reshape(24, 128)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((24, 128), jnp.float32),
    grid=(2, 3),
    in_specs=[pl.BlockSpec((8, 128), lambda i, j: (j, 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i, j: (j, 0)),
    input_output_aliases={0: 0},
)(x)
print(out[::8, :3])

# a kernel that writes a scalar-prefetch ref an index map reads: the emulated TPU's later steps
# follow the write, but the CUDA backend computes every step's block indices before the kernel
# runs, so it refuses the kernel at the write rather than run other blocks
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(order_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0
    order_ref[pl.program_id(0)] = 0  # cuda-error: writes the scalar-prefetch ref `order_ref`


order = jnp.array([3, 2, 1, 0], dtype=jnp.int32)
x = jnp.arange(32 * 128, dtype=jnp.float32).reshape(32, 128)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32),
    grid_spec=pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1, grid=(4,),
        in_specs=[pl.BlockSpec((8, 128), lambda i, order: (order[i], 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i, order: (i, 0))))(order, x)
print(out.sum())

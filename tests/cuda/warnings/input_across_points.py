# An input block that the kernel stores into stays in its buffer while its index does not change
# (a TPU fetches a block again only when it does), so on the emulated TPU, which runs every step
# in order, the first step of a point of a "parallel" axis reads what the point before stored
# there; the CUDA backend runs each point as a chain of its own, which fetches the block afresh,
# and warns at the read. `rows_kernel` bumps a block that changes with every point of axis 0
# (only its "arbitrary" axis 1 carries the stores) and `scaled_kernel` writes its block whole
# before reading it: neither is warned of. A scalar-prefetch ref is an input whose block never
# changes (SMEM keeps what the kernel stores there for the whole grid), of which each CUDA block
# starts from a copy of its own: `counter_kernel` counts its steps there.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def bumped_kernel(x_ref, o_ref):
    x_ref[...] += 1.0  # cuda-warning: input `x_ref` is read at grid step (1, 0), where a point
    o_ref[...] = x_ref[...]


def rows_kernel(x_ref, o_ref):
    x_ref[...] += 1.0
    o_ref[...] = x_ref[...]


def scaled_kernel(x_ref, o_ref):
    x_ref[...] = jnp.full(x_ref.shape, 2.0, x_ref.dtype)
    o_ref[...] = x_ref[...] * 3.0


def counter_kernel(count_ref, x_ref, o_ref):
    count_ref[0] += 1  # cuda-warning: scalar-prefetch ref `count_ref` is read at grid step (1, 0)
    o_ref[...] = x_ref[...] + count_ref[0].astype(jnp.float32)


def run(kernel, in_map):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((4, 16, 128), jnp.float32),
        grid=(4, 2),
        in_specs=[pl.BlockSpec((None, 8, 128), in_map)],
        out_specs=pl.BlockSpec((None, 8, 128), lambda i, j: (i, j, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
    )(x)


x = jnp.zeros((4, 8, 128), jnp.float32)
print(run(bumped_kernel, lambda i, j: (0, 0, 0)).shape)
print(run(rows_kernel, lambda i, j: (i, 0, 0))[:, ::8, 0])
print(run(scaled_kernel, lambda i, j: (0, 0, 0))[:, ::8, 0])
counted = pl.pallas_call(
    counter_kernel,
    out_shape=jax.ShapeDtypeStruct((4, 16, 128), jnp.float32),
    grid_spec=pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(4, 2),
        in_specs=[pl.BlockSpec((None, 8, 128), lambda i, j, c: (i, 0, 0))],
        out_specs=pl.BlockSpec((None, 8, 128), lambda i, j, c: (i, j, 0)),
    ),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
)(jnp.zeros((1,), jnp.int32), x)
print(counted.shape)

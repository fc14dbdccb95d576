# State a kernel changes in place: a counter in a scalar-prefetch ref (SMEM, which keeps the
# kernel's stores for the whole grid), a scalar-prefetch ref each point of a "parallel" axis
# writes and reads back, and an output aliased to an input that the kernel adds to. The CUDA
# backend gives each CUDA block a copy of a scalar-prefetch ref the kernel writes (on a GPU the
# blocks run at once, and one block's store into the array in HBM would reach another's read).
# It must not split a grid point of a kernel that stores into one into parts on several CUDA
# blocks either (each part would count once);
# and with --stats its timing launches run only after the outputs are down (the `same_stats`
# test), since each would count, and add, again. The printed lines are what JAX 0.10.2 prints
# with InterpretParams, whose SMEM keeps the stores as a TPU's does (interpret=True, JAX's HLO
# interpreter, starts every step from the operand's own values: [[2. 2. 2. 2.] ...]).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def counted_kernel(count_ref, x_ref, o_ref):
    count_ref[0] += 1
    o_ref[...] = x_ref[...] + count_ref[0].astype(jnp.float32)


def tagged_kernel(tag_ref, x_ref, o_ref):
    tag_ref[0] = pl.program_id(0) * 10
    o_ref[...] = x_ref[...] + tag_ref[0].astype(jnp.float32)


def accumulate_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = y_ref[...] + 2.0 * x_ref[...]


x = jnp.ones((64, 256), jnp.float32)
counted = pl.pallas_call(
    counted_kernel,
    out_shape=jax.ShapeDtypeStruct((64, 256), jnp.float32),
    grid_spec=pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(2,),
        in_specs=[pl.BlockSpec((64, 128), lambda j, c: (0, j))],
        out_specs=pl.BlockSpec((64, 128), lambda j, c: (0, j)),
    ),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
    interpret=pltpu.InterpretParams(),
)(jnp.zeros((1,), jnp.int32), x)
print(counted[::32, ::64])

tagged = pl.pallas_call(
    tagged_kernel,
    out_shape=jax.ShapeDtypeStruct((64, 256), jnp.float32),
    grid_spec=pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(8,),
        in_specs=[pl.BlockSpec((8, 256), lambda i, t: (i, 0))],
        out_specs=pl.BlockSpec((8, 256), lambda i, t: (i, 0)),
    ),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
    interpret=pltpu.InterpretParams(),
)(jnp.zeros((1,), jnp.int32), x)
print(tagged[::8, 0])

y = jnp.full((64, 256), 5.0, jnp.float32)
summed = pl.pallas_call(
    accumulate_kernel,
    out_shape=jax.ShapeDtypeStruct((64, 256), jnp.float32),
    grid=(2,),
    in_specs=[pl.BlockSpec((64, 128), lambda j: (0, j)), pl.BlockSpec((64, 128), lambda j: (0, j))],
    out_specs=pl.BlockSpec((64, 128), lambda j: (0, j)),
    input_output_aliases={1: 0},
    interpret=pltpu.InterpretParams(),
)(x, y)
print(summed[::32, ::64])

# args: --lint
# with --lint, scratch that the first step of a point of the leading "parallel" axes reads before
# writing it whole is a megacore hazard: it carries a value over from the point before, which the
# second TensorCore of a v4 / v5p never has (the emulator, like real JAX's interpret mode, runs
# every step in order and prints the sequential sums). Scratch zeroed when the "arbitrary" axis
# starts again, or carried along an axis that is not a leading "parallel" one, is fine.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def carried(x_ref, o_ref, total_ref):
    @pl.when((pl.program_id(0) == 0) & (pl.program_id(1) == 0))
    def _():
        total_ref[...] = jnp.zeros_like(total_ref)

    total_ref[...] += x_ref[...]  # warning: scratch `total_ref` is read at the first step of a point
    o_ref[...] = total_ref[...]


def restarted(x_ref, o_ref, total_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        total_ref[...] = jnp.zeros_like(total_ref)

    total_ref[...] += x_ref[...]
    o_ref[...] = total_ref[...]


def call(kernel, semantics, out_map):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((4, 8, 128), jnp.float32),
        grid=(4, 2),
        in_specs=[pl.BlockSpec((None, 8, 128), lambda i, k: (i, 0, k))],
        out_specs=pl.BlockSpec((None, 8, 128), out_map),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=semantics),
        interpret=True,
    )(x)


x = jnp.ones((4, 8, 256), jnp.float32)
print(call(carried, ("parallel", "arbitrary"), lambda i, k: (i, 0, 0))[:, 0, 0])  # expect: [2. 4. 6. 8.]
print(call(restarted, ("parallel", "arbitrary"), lambda i, k: (i, 0, 0))[:, 0, 0])  # expect: [2. 2. 2. 2.]
print(call(carried, ("arbitrary", "parallel"), lambda i, k: (i, 0, 0))[:, 0, 0])  # expect: [2. 4. 6. 8.]

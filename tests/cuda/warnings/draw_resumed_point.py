# A "parallel" axis inside an "arbitrary" one: the CUDA backend runs each point of the inner axis
# as a chain of its own, where the emulated TPU runs the steps in row-major order, with one
# random number generator for the core. `seeded_once_kernel` seeds the generator at each point's
# first step only: on the emulated TPU the draw at (1, 0) goes on from where the other point's
# draws at (0, 1) left the generator, on CUDA from where this point's own draws at (0, 0) left
# its chain's, and the backend warns at the draw. `seeded_each_step_kernel` seeds at every step
# before it draws, from both program ids: its bits depend on the step alone, on both.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def seeded_once_kernel(o_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        pltpu.prng_seed(17, pl.program_id(1))

    o_ref[...] = pltpu.prng_random_bits(o_ref.shape)  # cuda-warning: pltpu.prng_random_bits at grid step (1, 0), where its point


def seeded_each_step_kernel(o_ref):
    pltpu.prng_seed(17, pl.program_id(0), pl.program_id(1))
    o_ref[...] = pltpu.prng_random_bits(o_ref.shape)


def run(kernel):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((3, 2, 8, 128), jnp.int32),
        grid=(3, 2),
        out_specs=pl.BlockSpec((None, None, 8, 128), lambda i, j: (i, j, 0, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary", "parallel")),
    )()


print(run(seeded_once_kernel).shape)
print(run(seeded_each_step_kernel)[:, :, 0, 0])

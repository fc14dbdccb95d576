# The core generator seeded only at the first grid step: the emulated TPU runs every step on one
# core, whose generator goes on from that seed, but the CUDA backend runs each point of the
# "parallel" axis on a CUDA block of its own, whose generator starts unseeded: an error at the
# draw of the second point (as a megacore TPU's second TensorCore would draw unseeded bits)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(o_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        pltpu.prng_seed(17)

    o_ref[...] = pltpu.prng_random_bits(o_ref.shape)  # cuda-fault: before any pltpu.prng_seed at this point


out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.int32), grid=(2,),
    out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))()
print(out.shape)

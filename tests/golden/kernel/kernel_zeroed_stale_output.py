# A new output block's buffer is never filled from HBM: it holds what the last block left there.
# With memory zeroed (InterpretParams(uninitialized_memory="zero")) both backends show the last
# block's values where the odd steps read before writing, as JAX's TPU interpret mode does (JAX
# 0.10.2 prints the lines expected below); the emulator once zeroed every new block, and without
# semantics the CUDA backend once ran the steps as separate chains, each with its own buffer.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    @pl.when(pl.program_id(0) % 2 == 0)
    def _():
        o_ref[0:4, :] = x_ref[0:4, :]

    o_ref[4:8, :] = o_ref[0:4, :] + 1.0


x = jnp.arange(32 * 128, dtype=jnp.float32).reshape(32, 128) / 64.0
spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32), grid=(4,),
                     in_specs=[spec], out_specs=spec,
                     interpret=pltpu.InterpretParams(uninitialized_memory="zero"))(x)
print(out[8, :4], out[12, :4])
print(out.sum())
# expect: [0.       0.015625 0.03125  0.046875] [1.       1.015625 1.03125  1.046875]
# expect: 83936.0

# Output blocks that a visit stores only in part, or not at all. On the emulated TPU each new
# visit of an output block starts as poison, what a TPU leaves there being garbage (with
# InterpretParams(uninitialized_memory="zero") it keeps the last block's values, as JAX's
# interpret mode does), and the write-back carries that into the array. The CUDA kernel keeps
# one buffer per block through a chain, so it poisons it at each new visit; with zeroed memory
# such a window keeps its buffer (no direct window in HBM) and its axis no chains apart. Fuzzed
# programs with zeroed memory (seeds 63752, 64930, 65000) found the latter.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def skipping(x_ref, o_ref):
    @pl.when(jnp.sum(x_ref[...]) > 0)
    def _():
        o_ref[...] = x_ref[...] * 2


def halves(x_ref, o_ref):
    o_ref[0:4, :] = x_ref[0:4, :]

    @pl.when(pl.program_id(0) == 0)
    def _():
        o_ref[4:8, :] = x_ref[4:8, :] + 100


x = jnp.ones((32, 128), jnp.float32) * jnp.repeat(jnp.array([1.0, 2.0, -1.0, 3.0]), 8)[:, None]
spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
for kernel in (skipping, halves):
    for semantics in (None, ("arbitrary",)):
        params = None if semantics is None else pltpu.CompilerParams(dimension_semantics=semantics)
        out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
                             grid=(4,), in_specs=[spec], out_specs=spec,
                             compiler_params=params)(x)
        print(kernel.__name__, out[::4, 0])

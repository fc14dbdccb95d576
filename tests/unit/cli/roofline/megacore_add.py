# A vector add over 3 blocks on a "parallel" axis: with `--tpu v5p --cores 2` the two TensorCores
# split the grid 2 + 1, so the busier one runs 2 steps (the roofline test's megacore case).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


x = jnp.arange(3072, dtype=jnp.float32)
y = jnp.ones(3072, jnp.float32)
spec = pl.BlockSpec((1024,), lambda i: (i,))
out = pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(3,),
                     in_specs=[spec, spec], out_specs=spec,
                     compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
                     interpret=True)(x, y)
check(out, x + y, name="add")

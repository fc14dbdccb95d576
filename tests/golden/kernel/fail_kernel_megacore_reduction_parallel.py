# args: --cores 2
# megacore race: the reduction axis k is marked "parallel", so the split of the (3, 4) grid puts
# the steps of output block (1, 0) on both TensorCores (interpret=True runs one core: no error)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def rowsum_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...]


x = jnp.arange(6 * 32, dtype=jnp.float32).reshape(6, 32)
out = pl.pallas_call(  # error: megacore race: both TensorCores write block (1, 0) of output `o_ref`
    rowsum_kernel,
    out_shape=jax.ShapeDtypeStruct((6, 8), jnp.float32),
    grid=(3, 4),
    in_specs=[pl.BlockSpec((2, 8), lambda i, k: (i, k))],
    out_specs=pl.BlockSpec((2, 8), lambda i, k: (i, 0)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel")),
    interpret=True,
)(x)
print(out)

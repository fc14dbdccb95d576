# compiler_params, name, debug=False and cost_estimate are accepted and change no values
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def colsum_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...]


x = jnp.arange(32).reshape(8, 4).astype(jnp.float32)
params = pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary"))
cost = pl.CostEstimate(flops=32, transcendentals=0, bytes_accessed=160)
out = pl.pallas_call(colsum_kernel, out_shape=jax.ShapeDtypeStruct((2, 4), jnp.float32),
                     grid=(1, 4), in_specs=[pl.BlockSpec((2, 4), lambda i, k: (k, 0))],
                     out_specs=pl.BlockSpec((2, 4), lambda i, k: (i, 0)),
                     compiler_params=params, name="colsum", debug=False, cost_estimate=cost,
                     interpret=True)(x)
print(out)



def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


semantics = pltpu.CompilerParams(dimension_semantics=(pltpu.PARALLEL,),
                                 vmem_limit_bytes=32 * 1024 * 1024)
spec = pl.BlockSpec((4,), lambda i: (i,))
y = pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), grid=(2,),
                   in_specs=[spec], out_specs=spec, compiler_params=semantics,
                   interpret=True)(jnp.arange(8).astype(jnp.float32))
print(y)
# expect: [[48. 52. 56. 60.]
# expect:  [64. 68. 72. 76.]]
# expect: [ 0.  2.  4.  6.  8. 10. 12. 14.]

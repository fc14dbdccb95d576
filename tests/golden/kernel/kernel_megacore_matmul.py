# args: --cores 2
# megacore: ("parallel", "parallel", "arbitrary") splits the (i, j) points over two TensorCores
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def matmul_kernel(x_ref, y_ref, o_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)


x = (jnp.arange(32 * 24).reshape(32, 24) % 7 - 3).astype(jnp.float32)
y = (jnp.arange(24 * 16).reshape(24, 16) * 3 % 11 - 5).astype(jnp.float32)
out = pl.pallas_call(
    matmul_kernel,
    out_shape=jax.ShapeDtypeStruct((32, 16), jnp.float32),
    grid=(4, 2, 3),
    in_specs=[pl.BlockSpec((8, 8), lambda i, j, k: (i, k)),
              pl.BlockSpec((8, 8), lambda i, j, k: (k, j))],
    out_specs=pl.BlockSpec((8, 8), lambda i, j, k: (i, j)),
    compiler_params=pltpu.CompilerParams(
        dimension_semantics=("parallel", "parallel", "arbitrary")),
    interpret=True,
)(x, y)
print(bool(jnp.array_equal(out, x @ y)))
print(out[::8, ::5])
# expect: True
# expect: [[ 22.  -2.  -4.  16.]
# expect:  [-10. -31.  14.   4.]
# expect:  [-14. -11.  25.   6.]
# expect:  [-32.  23.   1.   1.]]

# a (2, n) grid with ("parallel", "arbitrary"): each parallel row of steps owns its output block
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def colsum_kernel(x_ref, o_ref, acc_ref):
    core = pl.program_id(0)
    k = pl.program_id(1)

    @pl.when(k == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.sum(x_ref[...], axis=0, keepdims=True)

    @pl.when(k == pl.num_programs(1) - 1)
    def _():
        o_ref[...] = acc_ref[...] + core.astype(jnp.float32) * 1000.0


x = (jnp.arange(96).reshape(16, 6) * 5 % 13).astype(jnp.float32)
out = pl.pallas_call(colsum_kernel, out_shape=jax.ShapeDtypeStruct((1, 6), jnp.float32),
                     grid=(2, 4), in_specs=[pl.BlockSpec((4, 3), lambda c, k: (k, c))],
                     out_specs=pl.BlockSpec((1, 3), lambda c, k: (0, c)),
                     scratch_shapes=[pltpu.VMEM((1, 3), jnp.float32)],
                     compiler_params=pltpu.CompilerParams(
                         dimension_semantics=("parallel", "arbitrary")),
                     interpret=True)(x)
print(out)  # expect: [[  90.   92.   94. 1096. 1098. 1100.]]

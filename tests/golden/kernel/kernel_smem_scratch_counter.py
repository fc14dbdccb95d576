# an SMEM scratch scalar survives from one grid step to the next: a step counter
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def counter_kernel(x_ref, o_ref, count_ref):
    @pl.when((pl.program_id(0) == 0) & (pl.program_id(1) == 0))
    def _():
        count_ref[0] = 0

    count_ref[0] = count_ref[0] + 1
    o_ref[...] = x_ref[...] * 100 + count_ref[0]


x = jnp.arange(6, dtype=jnp.int32).reshape(2, 3)
spec = pl.BlockSpec((1, 1), lambda i, j: (i, j))
out = pl.pallas_call(counter_kernel, out_shape=jax.ShapeDtypeStruct((2, 3), jnp.int32),
                     grid=(2, 3), in_specs=[spec], out_specs=spec,
                     scratch_shapes=[pltpu.SMEM((1,), jnp.int32)], interpret=True)(x)
print(out)
# expect: [[  1 102 203]
# expect:  [304 405 506]]

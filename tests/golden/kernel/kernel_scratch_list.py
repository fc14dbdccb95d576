# a list of scratch buffers follows the outputs; they persist across grid steps
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def moments_kernel(x_ref, o_ref, sum_ref, sq_ref, count_ref):
    k = pl.program_id(0)

    @pl.when(k == 0)
    def _():
        sum_ref[...] = jnp.zeros_like(sum_ref)
        sq_ref[...] = jnp.zeros_like(sq_ref)
        count_ref[...] = jnp.zeros_like(count_ref)

    x = x_ref[...]
    sum_ref[...] += x
    sq_ref[...] += x * x
    count_ref[...] += 1

    @pl.when(k == pl.num_programs(0) - 1)
    def _():
        o_ref[0, :] = sum_ref[...]
        o_ref[1, :] = sq_ref[...]
        o_ref[2, :] = count_ref[...].astype(jnp.float32)


x = jnp.array([[1.0, -2.0, 3.0], [4.0, 0.0, -1.0], [2.0, 2.0, 2.0], [-3.0, 1.0, 5.0]])
out = pl.pallas_call(moments_kernel, out_shape=jax.ShapeDtypeStruct((3, 3), jnp.float32),
                     grid=(4,), in_specs=[pl.BlockSpec((None, 3), lambda k: (k, 0))],
                     out_specs=pl.BlockSpec((3, 3), lambda k: (0, 0)),
                     scratch_shapes=[pltpu.VMEM((3,), jnp.float32), pltpu.VMEM((3,), jnp.float32),
                                     pltpu.VMEM((3,), jnp.int32)], interpret=True)(x)
print(out)
# expect: [[ 4.  1.  9.]
# expect:  [30.  9. 39.]
# expect:  [ 4.  4.  4.]]

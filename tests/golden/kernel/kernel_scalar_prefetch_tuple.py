# a pytree prefetch operand: one tuple argument becomes a tuple of SMEM refs in kernel and maps
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(meta, x_ref, o_ref):
    rows, scales = meta
    i = pl.program_id(0)
    o_ref[...] = x_ref[...] * scales[i].astype(jnp.float32) + rows[i].astype(jnp.float32)


def x_map(i, meta):
    rows, scales = meta
    return rows[i], 0


x = jnp.arange(15).reshape(5, 3).astype(jnp.float32)
rows = jnp.array([4, 1, 1], dtype=jnp.int32)
scales = jnp.array([1, -1, 10], dtype=jnp.int32)
grid_spec = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1, grid=(3,),
    in_specs=[pl.BlockSpec((None, 3), x_map)],
    out_specs=pl.BlockSpec((None, 3), lambda i, meta: (i, 0)))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((3, 3), jnp.float32),
                     grid_spec=grid_spec, interpret=True)((rows, scales), x)
print(out)


# two prefetch operands, no grid and no specs: one invocation over whole arrays
def two_kernel(a_ref, b_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * a_ref[0].astype(jnp.float32) + b_ref[1].astype(jnp.float32)


print(pl.pallas_call(two_kernel, out_shape=jax.ShapeDtypeStruct((3,), jnp.float32),
                     grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=2),
                     interpret=True)(jnp.array([3], jnp.int32), jnp.array([0, 7], jnp.int32),
                                     jnp.array([1.0, 2.0, 3.0])))
# expect: [[16. 17. 18.]
# expect:  [-2. -3. -4.]
# expect:  [31. 41. 51.]]
# expect: [10. 13. 16.]

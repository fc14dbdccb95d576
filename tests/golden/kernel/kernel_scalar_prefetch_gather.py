# scalar prefetch: index maps read the prefetched table to gather blocks; the kernel reads it too
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gather_kernel(idx_ref, x_ref, o_ref):
    i = pl.program_id(0)
    o_ref[...] = x_ref[...] + (idx_ref[i] * 100).astype(jnp.float32)


def x_map(i, idx_ref):
    return idx_ref[i], 0


x = jnp.arange(12).reshape(6, 2).astype(jnp.float32)
order = jnp.array([2, 0, 2, 1], dtype=jnp.int32)
grid_spec = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1, grid=(4,),
    in_specs=[pl.BlockSpec((2, 2), x_map)],
    out_specs=pl.BlockSpec((2, 2), lambda i, idx_ref: (i, 0)))
out = pl.pallas_call(gather_kernel, out_shape=jax.ShapeDtypeStruct((8, 2), jnp.float32),
                     grid_spec=grid_spec, interpret=True)(order, x)
print(out[:, 0])  # expect: [208. 210.   0.   2. 208. 210. 104. 106.]
print(out[:, 1])  # expect: [209. 211.   1.   3. 209. 211. 105. 107.]


# block-sparse: visit only the listed output blocks; the others keep the aliased zeros
def scatter_kernel(idx_ref, x_ref, z_ref, o_ref):
    o_ref[...] = x_ref[...] * 10.0


targets = jnp.array([3, 0], dtype=jnp.int32)
spec = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1, grid=(2,),
    in_specs=[pl.BlockSpec((2,), lambda i, t: (i,)), pl.BlockSpec((2,), lambda i, t: (t[i],))],
    out_specs=pl.BlockSpec((2,), lambda i, t: (t[i],)))
v = jnp.array([1.0, 2.0, 3.0, 4.0])
sparse = pl.pallas_call(scatter_kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
                        grid_spec=spec, input_output_aliases={2: 0},
                        interpret=True)(targets, v, jnp.zeros((8,), jnp.float32))
print(sparse)  # expect: [30. 40.  0.  0.  0.  0. 10. 20.]

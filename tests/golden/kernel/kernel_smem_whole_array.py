# BlockSpec(memory_space=pltpu.SMEM) with no block shape: the whole array, read as scalars
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def poly_kernel(c_ref, k_ref, x_ref, o_ref):
    i = pl.program_id(0)
    v = x_ref[...]
    o_ref[...] = c_ref[0] * v * v + c_ref[1] * v + c_ref[2] + k_ref[i].astype(jnp.float32)


coeffs = jnp.array([1.0, -2.0, 3.0])
per_block = jnp.array([100, 200, 300], dtype=jnp.int32)
x = jnp.arange(6).astype(jnp.float32)
smem = pl.BlockSpec(memory_space=pltpu.SMEM)
blk = pl.BlockSpec((2,), lambda i: (i,))
out = pl.pallas_call(poly_kernel, out_shape=jax.ShapeDtypeStruct((6,), jnp.float32), grid=(3,),
                     in_specs=[smem, smem, blk], out_specs=blk, interpret=True)(coeffs, per_block, x)
print(out)  # expect: [103. 102. 203. 206. 311. 318.]


def table_kernel(t_ref, o_ref):
    o_ref[...] = jnp.full(o_ref.shape, t_ref[1, 2] * 10 + t_ref[0, 1], jnp.int32)


table = jnp.array([[1, 2, 3], [4, 5, 6]], dtype=jnp.int32)
print(pl.pallas_call(table_kernel, out_shape=jax.ShapeDtypeStruct((3,), jnp.int32),
                     in_specs=[smem], interpret=True)(table))  # expect: [62 62 62]

# pl.program_id is traced per step; pl.num_programs of a static grid is a plain Python int
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def ids_kernel(o_ref):
    i = pl.program_id(0)
    j = pl.program_id(1)
    rows = pl.num_programs(0)
    cols = pl.num_programs(1)
    # Python code runs once, when the kernel is traced
    print("traced with", rows, cols, isinstance(cols, int), o_ref.shape)
    linear = i * cols + j
    o_ref[...] = jnp.full(o_ref.shape, linear * 10 + rows * cols, jnp.int32)


spec = pl.BlockSpec((1, 2), lambda i, j: (i, j))
out = pl.pallas_call(ids_kernel, out_shape=jax.ShapeDtypeStruct((2, 6), jnp.int32),
                     grid=(2, 3), out_specs=spec, interpret=True)()
print(out)


def last_kernel(x_ref, o_ref):
    last = pl.num_programs(0) - 1
    o_ref[...] = x_ref[...] * (last - pl.program_id(0))


spec1 = pl.BlockSpec((2,), lambda i: (i,))
x = jnp.ones((8,), jnp.int32)
print(pl.pallas_call(last_kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.int32), grid=(4,),
                     in_specs=[spec1], out_specs=spec1, interpret=True)(x))
# expect: traced with 2 3 True (1, 2)
# expect: [[ 6  6 16 16 26 26]
# expect:  [36 36 46 46 56 56]]
# expect: [3 3 2 2 1 1 0 0]

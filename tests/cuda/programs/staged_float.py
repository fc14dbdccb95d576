# A float32 product whose blocks are too large for the 48 KiB of shared memory the CUDA backend
# plans for: the operands stay in HBM and the product stages tiles of them in shared memory. The
# lhs block has k contiguous, so it is copied element by element into a tile with k as its rows;
# the rhs block has its columns contiguous, copied 16 bytes at a time. The last lhs block lies
# partly past the array's edge (reads there give the poison, which only reaches rows that are
# never written back; split into parts of 128 rows, one part straddles the edge and the other
# lies wholly past it), and the output is accumulated over two steps of k in a scratch buffer. The
# operands are small integers, so every sum is exact and the same in any order.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, y_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)

    @pl.when(pl.program_id(1) == pl.num_programs(1) - 1)
    def _():
        o_ref[...] = acc_ref[...]


m, k, n = 320, 512, 256
x = (jnp.arange(m * k, dtype=jnp.int32).reshape(m, k) % 7 - 3).astype(jnp.float32)
y = (jnp.arange(k * n, dtype=jnp.int32).reshape(k, n) % 5 - 2).astype(jnp.float32)
out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32), grid=(2, 2),
    in_specs=[pl.BlockSpec((256, 256), lambda i, kk: (i, kk)),
              pl.BlockSpec((256, n), lambda i, kk: (kk, 0))],
    out_specs=pl.BlockSpec((256, n), lambda i, kk: (i, 0)),
    scratch_shapes=[pltpu.VMEM((256, n), jnp.float32)],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")))(x, y)
print(out[::29, ::31])
print(jnp.array_equal(out, jnp.dot(x, y, preferred_element_type=jnp.float32)))

# A bfloat16 tiled matmul whose float32 accumulator the CUDA backend keeps in the tensor cores'
# registers from one grid step to the next (emit_resident.cpp): the product runs once per step of
# the k axis and adds into the whole scratch ref. The operands stay in HBM (the blocks do not fit
# in 48 KiB of shared memory with the accumulator), so the product stages its tiles. At k = 1 the
# kernel also halves the accumulator, so the registers go back to the ref and are read again in
# the middle of the chain. In the second call the k axis has one step, which both starts and ends
# the accumulation.
# The operands are small integers: every sum is exact and the same in any order.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def matmul_kernel(x_ref, y_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)

    @pl.when(pl.program_id(2) == 1)
    def _():
        acc_ref[...] = acc_ref[...] * 0.5

    @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = acc_ref[...]


def matmul(x, y, block_k):
    m, k = x.shape
    n = y.shape[1]
    return pl.pallas_call(
        matmul_kernel, out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(m // 128, n // 128, k // block_k),
        in_specs=[pl.BlockSpec((128, block_k), lambda i, j, kk: (i, kk)),
                  pl.BlockSpec((block_k, 128), lambda i, j, kk: (kk, j))],
        out_specs=pl.BlockSpec((128, 128), lambda i, j, kk: (i, j)),
        scratch_shapes=[pltpu.VMEM((128, 128), jnp.float32)],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary")))(x, y)


m, k, n = 256, 384, 256
x = (jnp.arange(m * k, dtype=jnp.int32).reshape(m, k) % 7 - 3).astype(jnp.bfloat16)
y = (jnp.arange(k * n, dtype=jnp.int32).reshape(k, n) % 5 - 2).astype(jnp.bfloat16)
out = matmul(x, y, 128)
print(out[::37, ::41])
steps = [jnp.dot(x[:, s:s + 128], y[s:s + 128], preferred_element_type=jnp.float32)
         for s in range(0, k, 128)]
print(jnp.array_equal(out, (steps[0] + steps[1]) * 0.5 + steps[2]))
whole = matmul(x, y, 384)
print(whole[::53, ::29])
print(jnp.array_equal(whole, jnp.dot(x, y, preferred_element_type=jnp.float32)))

# bf16 inputs with an f32 accumulator: preferred_element_type=jnp.float32 keeps the sum exact
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def matmul_kernel(a_ref, b_ref, o_ref, acc_ref):
    k = pl.program_id(1)

    @pl.when(k == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    prod = jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)
    assert prod.dtype == jnp.float32 and a_ref.dtype == jnp.bfloat16
    acc_ref[...] += prod

    @pl.when(k == pl.num_programs(1) - 1)
    def _():
        o_ref[...] = acc_ref[...]


a = (jnp.arange(32).reshape(4, 8) * 7 % 33).astype(jnp.bfloat16)
b = (jnp.arange(24).reshape(8, 3) * 5 % 31).astype(jnp.bfloat16)
out = pl.pallas_call(matmul_kernel, out_shape=jax.ShapeDtypeStruct((4, 3), jnp.float32),
                     grid=(2, 2), in_specs=[pl.BlockSpec((2, 4), lambda i, k: (i, k)),
                                            pl.BlockSpec((4, 3), lambda i, k: (k, 0))],
                     out_specs=pl.BlockSpec((2, 3), lambda i, k: (i, 0)),
                     scratch_shapes=[pltpu.VMEM((2, 3), jnp.float32)], interpret=True)(a, b)
print(out, out.dtype)
ref = jnp.dot(a, b, preferred_element_type=jnp.float32)
print(jnp.array_equal(out, ref))
# expect: [[2101. 1005. 1490.]
# expect:  [2539. 1610. 2355.]
# expect:  [2515. 1423. 2098.]
# expect:  [2524. 1269. 1874.]] float32
# expect: True

# The flop counter counts a product's multiply-adds (2 * batch * M * N * K) whichever way it is
# written: jnp.dot, `@`, a batched einsum or lax.dot_general. (report_work is engine-only; under
# real JAX its twin prints a note.)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import report_work

a = jnp.ones((2, 8, 16))
b = jnp.ones((2, 16, 4))
out_shape = jax.ShapeDtypeStruct((2, 8, 4), jnp.float32)


def einsum_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.einsum("bij,bjk->bik", a_ref[...], b_ref[...])


def dot_general_kernel(a_ref, b_ref, o_ref):
    dims = (((2,), (1,)), ((0,), (0,)))
    o_ref[...] = jax.lax.dot_general(a_ref[...], b_ref[...], dims)


def matmul_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = a_ref[...] @ b_ref[...]


def dot_per_batch_kernel(a_ref, b_ref, o_ref):
    for i in range(2):
        o_ref[i] = jnp.dot(a_ref[i], b_ref[i])


outs = {name: pl.pallas_call(k, out_shape=out_shape, interpret=True)(a, b)
        for name, k in [("einsum", einsum_kernel), ("dot_general", dot_general_kernel),
                        ("matmul", matmul_kernel), ("dot", dot_per_batch_kernel)]}
work = report_work(**outs)
# expect: work measured by the emulator:
# expect:   call         grid steps       flops     HBM read  HBM written
# expect:   einsum                1        2048      1.5 KiB        256 B
# expect:   dot_general           1        2048      1.5 KiB        256 B
# expect:   matmul                1        2048      1.5 KiB        256 B
# expect:   dot                   1        2048      1.5 KiB        256 B
# expect:   dot_general against einsum: the same grid steps, the same flops, the same bytes read from HBM
# expect:   matmul against einsum: the same grid steps, the same flops, the same bytes read from HBM
# expect:   dot against einsum: the same grid steps, the same flops, the same bytes read from HBM
print(all(jnp.array_equal(o, outs["einsum"]) for o in outs.values()))  # expect: True

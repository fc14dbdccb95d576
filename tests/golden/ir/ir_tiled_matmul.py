# args: --dump-ir
# tiled matmul over an (M/bm, N/bn, K/bk) grid, summing in an f32 VMEM scratch accumulator
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

M, K, N, bm, bk, bn = 16, 256, 256, 8, 128, 128


def matmul_kernel(a_ref, b_ref, o_ref, acc_ref):
    k = pl.program_id(2)

    @pl.when(k == 0)
    def _init():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)

    @pl.when(k == pl.num_programs(2) - 1)
    def _store():
        o_ref[...] = acc_ref[...]


a = (jnp.arange(M * K).reshape(M, K) % 5 - 2).astype(jnp.float32)
b = (jnp.arange(K * N).reshape(K, N) % 7 - 3).astype(jnp.float32)
out = pl.pallas_call(
    matmul_kernel, out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
    grid=(M // bm, N // bn, K // bk),
    in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
              pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))],
    out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
    scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)], interpret=True)(a, b)
print(jnp.allclose(out, a @ b, atol=1e-3))
print(out[1, :4], out[M - 1, N - 4:])
# expect: kernel matmul_kernel(
# expect:     #0 a_ref: VMEM f32[8,128],
# expect:     #1 b_ref: VMEM f32[128,128],
# expect:     #2 o_ref: VMEM f32[8,128],
# expect:     #3 acc_ref: VMEM f32[8,128]) {
# expect:   %0 = ProgramId axis=2 : i32[]  # line 12:9
# expect:   %1 = Constant 0 : i32[]~  # line 14:14
# expect:   %2 = eq (%0, %1) : bool[]  # line 14:14
# expect:   Cond (%2)  # line 14:6
# expect:     region 0:
# expect:       %3 = Constant <array> : f32[8,128]  # line 16:9
# expect:       Store #3[0:+8, 0:+128] (%3)  # line 16:9
# expect:     region 1:
# expect:   %4 = Load #3[0:+8, 0:+128] : f32[8,128]  # line 18:5
# expect:   %5 = Load #0[0:+8, 0:+128] : f32[8,128]  # line 18:29
# expect:   %6 = Load #1[0:+128, 0:+128] : f32[128,128]  # line 18:41
# expect:   %7 = dot_general contract=(1,)x(0,) preferred=float32 (%5, %6) : f32[8,128]  # line 18:21
# expect:   %8 = add (%4, %7) : f32[8,128]  # line 18:5
# expect:   Store #3[0:+8, 0:+128] (%8)  # line 18:5
# expect:   %9 = Constant 1 : i32[]~  # line 20:14
# expect:   %10 = eq (%0, %9) : bool[]  # line 20:14
# expect:   Cond (%10)  # line 20:6
# expect:     region 0:
# expect:       %11 = Load #3[0:+8, 0:+128] : f32[8,128]  # line 22:22
# expect:       Store #2[0:+8, 0:+128] (%11)  # line 22:9
# expect:     region 1:
# expect: }
# expect: index map of a_ref: kernel <lambda>() params %0, %1, %2 {
# expect:   yield %0, %2
# expect: }
# expect: index map of b_ref: kernel <lambda>() params %0, %1, %2 {
# expect:   yield %2, %1
# expect: }
# expect: index map of o_ref: kernel <lambda>() params %0, %1, %2 {
# expect:   yield %0, %1
# expect: }
# expect: True
# expect: [  5.  11.   3. -12.] [-8.  4.  9.  7.]

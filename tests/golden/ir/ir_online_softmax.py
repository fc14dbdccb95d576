# args: --dump-ir
# row softmax in two sweeps of one grid: steps k < nk stream the running max and sum over the
# column blocks into scratch, steps k >= nk revisit the blocks and write exp(x - m) / l
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

M, N, bm, bn = 16, 512, 8, 128
nk = N // bn


def softmax_kernel(x_ref, o_ref, m_ref, l_ref):
    k = pl.program_id(1)

    @pl.when(k == 0)
    def _init():
        m_ref[...] = jnp.full(m_ref.shape, -jnp.inf, jnp.float32)
        l_ref[...] = jnp.zeros_like(l_ref)

    @pl.when(k < nk)
    def _stats():
        x = x_ref[...]
        m_old = m_ref[...]
        m_new = jnp.maximum(m_old, jnp.max(x, axis=1, keepdims=True))
        l_ref[...] = l_ref[...] * jnp.exp(m_old - m_new) + jnp.sum(
            jnp.exp(x - m_new), axis=1, keepdims=True)
        m_ref[...] = m_new

    @pl.when(k >= nk)
    def _normalise():
        o_ref[...] = jnp.exp(x_ref[...] - m_ref[...]) / l_ref[...]


x = jnp.sin(jnp.arange(M * N).reshape(M, N) * 0.013) * 4.0 + jnp.linspace(0.0, 6.0, N)
out = pl.pallas_call(
    softmax_kernel, out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32), grid=(M // bm, 2 * nk),
    in_specs=[pl.BlockSpec((bm, bn), lambda i, k: (i, k % nk))],
    out_specs=pl.BlockSpec((bm, bn), lambda i, k: (i, jnp.maximum(k - nk, 0))),
    scratch_shapes=[pltpu.VMEM((bm, 1), jnp.float32), pltpu.VMEM((bm, 1), jnp.float32)],
    interpret=True)(x)
print(jnp.allclose(out, jax.nn.softmax(x, axis=1), atol=1e-7, rtol=1e-4))
print(jnp.round(jnp.sum(out, axis=1)[:4], 4), jnp.round(out[0, N - 4:] * 1000.0, 2))
# expect: kernel softmax_kernel(
# expect:     #0 x_ref: VMEM f32[8,128],
# expect:     #1 o_ref: VMEM f32[8,128],
# expect:     #2 m_ref: VMEM f32[8,1],
# expect:     #3 l_ref: VMEM f32[8,1]) {
# expect:   %0 = ProgramId axis=1 : i32[]  # line 14:9
# expect:   %1 = Constant 0 : i32[]~  # line 16:14
# expect:   %2 = eq (%0, %1) : bool[]  # line 16:14
# expect:   Cond (%2)  # line 16:6
# expect:     region 0:
# expect:       %3 = Constant <array> : f32[8,1]  # line 18:9
# expect:       Store #2[0:+8, 0:+1] (%3)  # line 18:9
# expect:       %4 = Constant <array> : f32[8,1]  # line 19:9
# expect:       Store #3[0:+8, 0:+1] (%4)  # line 19:9
# expect:     region 1:
# expect:   %5 = Constant 4 : i32[]~  # line 21:14
# expect:   %6 = lt (%0, %5) : bool[]  # line 21:14
# expect:   Cond (%6)  # line 21:6
# expect:     region 0:
# expect:       %7 = Load #0[0:+8, 0:+128] : f32[8,128]  # line 23:13
# expect:       %8 = Load #2[0:+8, 0:+1] : f32[8,1]  # line 24:17
# expect:       %9 = reduce_max axes=(1,) keepdims (%7) : f32[8,1]  # line 25:36
# expect:       %10 = max (%8, %9) : f32[8,1]  # line 25:17
# expect:       %11 = Load #3[0:+8, 0:+1] : f32[8,1]  # line 26:22
# expect:       %12 = sub (%8, %10) : f32[8,1]  # line 26:43
# expect:       %13 = exp (%12) : f32[8,1]  # line 26:35
# expect:       %14 = mul (%11, %13) : f32[8,1]  # line 26:22
# expect:       %15 = sub (%7, %10) : f32[8,128]  # line 27:21
# expect:       %16 = exp (%15) : f32[8,128]  # line 27:13
# expect:       %17 = reduce_sum axes=(1,) keepdims (%16) : f32[8,1]  # line 26:60
# expect:       %18 = add (%14, %17) : f32[8,1]  # line 26:22
# expect:       Store #3[0:+8, 0:+1] (%18)  # line 26:9
# expect:       Store #2[0:+8, 0:+1] (%10)  # line 28:9
# expect:     region 1:
# expect:   %19 = Constant 4 : i32[]~  # line 30:14
# expect:   %20 = ge (%0, %19) : bool[]  # line 30:14
# expect:   Cond (%20)  # line 30:6
# expect:     region 0:
# expect:       %21 = Load #0[0:+8, 0:+128] : f32[8,128]  # line 32:30
# expect:       %22 = Load #2[0:+8, 0:+1] : f32[8,1]  # line 32:43
# expect:       %23 = sub (%21, %22) : f32[8,128]  # line 32:30
# expect:       %24 = exp (%23) : f32[8,128]  # line 32:22
# expect:       %25 = Load #3[0:+8, 0:+1] : f32[8,1]  # line 32:57
# expect:       %26 = div (%24, %25) : f32[8,128]  # line 32:22
# expect:       Store #1[0:+8, 0:+128] (%26)  # line 32:9
# expect:     region 1:
# expect: }
# expect: index map of x_ref: kernel <lambda>() params %0, %1 {
# expect:   %2 = Constant 4 : i32[]~  # line 38:55
# expect:   %3 = remainder (%1, %2) : i32[]  # line 38:55
# expect:   yield %0, %3
# expect: }
# expect: index map of o_ref: kernel <lambda>() params %0, %1 {
# expect:   %2 = Constant 4 : i32[]~  # line 39:67
# expect:   %3 = sub (%1, %2) : i32[]  # line 39:67
# expect:   %4 = Constant 0 : i32[]~  # line 39:55
# expect:   %5 = max (%3, %4) : i32[]  # line 39:55
# expect:   yield %0, %5
# expect: }
# expect: True
# expect: [1. 1. 1. 1.] [25.96 27.59 29.32 31.15]

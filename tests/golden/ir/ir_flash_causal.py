# args: --dump-ir
# causal flash attention forward: a (T/bq, T/bk) grid with m/l/acc scratch; blocks above the
# diagonal are skipped, the others masked with iota
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

T, H, bq, bk = 64, 128, 16, 16


def causal_kernel(q_ref, k_ref, v_ref, o_ref, m_ref, l_ref, acc_ref):
    i, kv = pl.program_id(0), pl.program_id(1)

    @pl.when(kv == 0)
    def _init():
        m_ref[...] = jnp.full(m_ref.shape, -jnp.inf, jnp.float32)
        l_ref[...] = jnp.zeros_like(l_ref)
        acc_ref[...] = jnp.zeros_like(acc_ref)

    @pl.when(kv * bk <= i * bq + bq - 1)
    def _fold():
        s = jnp.einsum("qh,kh->qk", q_ref[...], k_ref[...]) * H ** -0.5
        rows = i * bq + lax.broadcasted_iota(jnp.int32, (bq, bk), 0)
        cols = kv * bk + lax.broadcasted_iota(jnp.int32, (bq, bk), 1)
        s = jnp.where(cols <= rows, s, -jnp.inf)
        m_old = m_ref[...]
        m_new = jnp.maximum(m_old, jnp.max(s, axis=1, keepdims=True))
        corr = jnp.exp(m_old - m_new)
        p = jnp.exp(s - m_new)
        l_ref[...] = l_ref[...] * corr + jnp.sum(p, axis=1, keepdims=True)
        acc_ref[...] = acc_ref[...] * corr + jnp.dot(p, v_ref[...])
        m_ref[...] = m_new

    @pl.when(kv == pl.num_programs(1) - 1)
    def _finish():
        o_ref[...] = acc_ref[...] / l_ref[...]


x = jnp.arange(T * H).reshape(T, H).astype(jnp.float32)
q, k, v = jnp.sin(x * 0.37), jnp.cos(x * 0.23) * 2.0, jnp.sin(x * 0.11 + 1.0)
# skipped steps repeat the last block that row i needs, so nothing new is fetched
kv_spec = pl.BlockSpec((bk, H), lambda i, kv: (jnp.minimum(kv, ((i + 1) * bq - 1) // bk), 0))
out = pl.pallas_call(
    causal_kernel, out_shape=jax.ShapeDtypeStruct((T, H), jnp.float32), grid=(T // bq, T // bk),
    in_specs=[pl.BlockSpec((bq, H), lambda i, kv: (i, 0)), kv_spec, kv_spec],
    out_specs=pl.BlockSpec((bq, H), lambda i, kv: (i, 0)),
    scratch_shapes=[pltpu.VMEM((bq, 1), jnp.float32), pltpu.VMEM((bq, 1), jnp.float32),
                    pltpu.VMEM((bq, H), jnp.float32)], interpret=True)(q, k, v)
s = jnp.where(jnp.tril(jnp.ones((T, T), bool)), q @ k.T * H ** -0.5, -jnp.inf)
print(jnp.allclose(out, jax.nn.softmax(s, axis=1) @ v, atol=1e-5, rtol=1e-5))
print(jnp.round(out[1, :4] * 1000.0), jnp.round(out[T - 1, :4] * 1000.0))
# expect: kernel causal_kernel(
# expect:     #0 q_ref: VMEM f32[16,128],
# expect:     #1 k_ref: VMEM f32[16,128],
# expect:     #2 v_ref: VMEM f32[16,128],
# expect:     #3 o_ref: VMEM f32[16,128],
# expect:     #4 m_ref: VMEM f32[16,1],
# expect:     #5 l_ref: VMEM f32[16,1],
# expect:     #6 acc_ref: VMEM f32[16,128]) {
# expect:   %0 = ProgramId axis=0 : i32[]  # line 14:13
# expect:   %1 = ProgramId axis=1 : i32[]  # line 14:31
# expect:   %2 = Constant 0 : i32[]~  # line 16:14
# expect:   %3 = eq (%1, %2) : bool[]  # line 16:14
# expect:   Cond (%3)  # line 16:6
# expect:     region 0:
# expect:       %4 = Constant <array> : f32[16,1]  # line 18:9
# expect:       Store #4[0:+16, 0:+1] (%4)  # line 18:9
# expect:       %5 = Constant <array> : f32[16,1]  # line 19:9
# expect:       Store #5[0:+16, 0:+1] (%5)  # line 19:9
# expect:       %6 = Constant <array> : f32[16,128]  # line 20:9
# expect:       Store #6[0:+16, 0:+128] (%6)  # line 20:9
# expect:     region 1:
# expect:   %7 = Constant 16 : i32[]~  # line 22:14
# expect:   %8 = mul (%1, %7) : i32[]  # line 22:14
# expect:   %9 = Constant 16 : i32[]~  # line 22:25
# expect:   %10 = mul (%0, %9) : i32[]  # line 22:25
# expect:   %11 = Constant 16 : i32[]~  # line 22:25
# expect:   %12 = add (%10, %11) : i32[]  # line 22:25
# expect:   %13 = Constant 1 : i32[]~  # line 22:25
# expect:   %14 = sub (%12, %13) : i32[]  # line 22:25
# expect:   %15 = le (%8, %14) : bool[]  # line 22:14
# expect:   Cond (%15)  # line 22:6
# expect:     region 0:
# expect:       %16 = Load #0[0:+16, 0:+128] : f32[16,128]  # line 24:37
# expect:       %17 = Load #1[0:+16, 0:+128] : f32[16,128]  # line 24:49
# expect:       %18 = dot_general contract=(1,)x(1,) (%16, %17) : f32[16,16]  # line 24:13
# expect:       %19 = Constant 0.0883883461356163 : f32[]~  # line 24:13
# expect:       %20 = mul (%18, %19) : f32[16,16]  # line 24:13
# expect:       %21 = Constant 16 : i32[]~  # line 25:16
# expect:       %22 = mul (%0, %21) : i32[]  # line 25:16
# expect:       %23 = iota int32 shape=(16, 16) dimension=0 : i32[16,16]  # line 25:25
# expect:       %24 = add (%22, %23) : i32[16,16]  # line 25:16
# expect:       %25 = Constant 16 : i32[]~  # line 26:16
# expect:       %26 = mul (%1, %25) : i32[]  # line 26:16
# expect:       %27 = iota int32 shape=(16, 16) dimension=1 : i32[16,16]  # line 26:26
# expect:       %28 = add (%26, %27) : i32[16,16]  # line 26:16
# expect:       %29 = le (%28, %24) : bool[16,16]  # line 27:23
# expect:       %30 = Constant -inf : f32[]~  # line 27:13
# expect:       %31 = select_n (%29, %30, %20) : f32[16,16]  # line 27:13
# expect:       %32 = Load #4[0:+16, 0:+1] : f32[16,1]  # line 28:17
# expect:       %33 = reduce_max axes=(1,) keepdims (%31) : f32[16,1]  # line 29:36
# expect:       %34 = max (%32, %33) : f32[16,1]  # line 29:17
# expect:       %35 = sub (%32, %34) : f32[16,1]  # line 30:24
# expect:       %36 = exp (%35) : f32[16,1]  # line 30:16
# expect:       %37 = sub (%31, %34) : f32[16,16]  # line 31:21
# expect:       %38 = exp (%37) : f32[16,16]  # line 31:13
# expect:       %39 = Load #5[0:+16, 0:+1] : f32[16,1]  # line 32:22
# expect:       %40 = mul (%39, %36) : f32[16,1]  # line 32:22
# expect:       %41 = reduce_sum axes=(1,) keepdims (%38) : f32[16,1]  # line 32:42
# expect:       %42 = add (%40, %41) : f32[16,1]  # line 32:22
# expect:       Store #5[0:+16, 0:+1] (%42)  # line 32:9
# expect:       %43 = Load #6[0:+16, 0:+128] : f32[16,128]  # line 33:24
# expect:       %44 = mul (%43, %36) : f32[16,128]  # line 33:24
# expect:       %45 = Load #2[0:+16, 0:+128] : f32[16,128]  # line 33:57
# expect:       %46 = dot_general contract=(1,)x(0,) (%38, %45) : f32[16,128]  # line 33:46
# expect:       %47 = add (%44, %46) : f32[16,128]  # line 33:24
# expect:       Store #6[0:+16, 0:+128] (%47)  # line 33:9
# expect:       Store #4[0:+16, 0:+1] (%34)  # line 34:9
# expect:     region 1:
# expect:   %48 = Constant 3 : i32[]~  # line 36:14
# expect:   %49 = eq (%1, %48) : bool[]  # line 36:14
# expect:   Cond (%49)  # line 36:6
# expect:     region 0:
# expect:       %50 = Load #6[0:+16, 0:+128] : f32[16,128]  # line 38:22
# expect:       %51 = Load #5[0:+16, 0:+1] : f32[16,1]  # line 38:37
# expect:       %52 = div (%50, %51) : f32[16,128]  # line 38:22
# expect:       Store #3[0:+16, 0:+128] (%52)  # line 38:9
# expect:     region 1:
# expect: }
# expect: index map of q_ref: kernel <lambda>() params %0, %1 {
# expect:   %2 = Constant 0 : i32[]  # line 45:7
# expect:   yield %0, %2
# expect: }
# expect: index map of k_ref: kernel <lambda>() params %0, %1 {
# expect:   %2 = Constant 1 : i32[]~  # line 44:65
# expect:   %3 = add (%0, %2) : i32[]  # line 44:65
# expect:   %4 = Constant 16 : i32[]~  # line 44:65
# expect:   %5 = mul (%3, %4) : i32[]  # line 44:65
# expect:   %6 = Constant 1 : i32[]~  # line 44:64
# expect:   %7 = sub (%5, %6) : i32[]  # line 44:64
# expect:   %8 = Constant 16 : i32[]~  # line 44:64
# expect:   %9 = floor_divide (%7, %8) : i32[]  # line 44:64
# expect:   %10 = min (%1, %9) : i32[]  # line 44:48
# expect:   %11 = Constant 0 : i32[]  # line 45:7
# expect:   yield %10, %11
# expect: }
# expect: index map of v_ref: kernel <lambda>() params %0, %1 {
# expect:   %2 = Constant 1 : i32[]~  # line 44:65
# expect:   %3 = add (%0, %2) : i32[]  # line 44:65
# expect:   %4 = Constant 16 : i32[]~  # line 44:65
# expect:   %5 = mul (%3, %4) : i32[]  # line 44:65
# expect:   %6 = Constant 1 : i32[]~  # line 44:64
# expect:   %7 = sub (%5, %6) : i32[]  # line 44:64
# expect:   %8 = Constant 16 : i32[]~  # line 44:64
# expect:   %9 = floor_divide (%7, %8) : i32[]  # line 44:64
# expect:   %10 = min (%1, %9) : i32[]  # line 44:48
# expect:   %11 = Constant 0 : i32[]  # line 45:7
# expect:   yield %10, %11
# expect: }
# expect: index map of o_ref: kernel <lambda>() params %0, %1 {
# expect:   %2 = Constant 0 : i32[]  # line 45:7
# expect:   yield %0, %2
# expect: }
# expect: True
# expect: [654. 600. 539. 472.] [13. 13. 12. 12.]

# args: --dump-ir
# block-sparse (splash) attention: prefetched tables list each query block's key blocks and
# their count; the key/value index maps read them, the kernel skips the padding steps
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

T, H, bq, bk = 64, 128, 16, 16
# query block i sees key block 0 (a global sink), block i - 1 and block i; rows padded to 3
# entries by repeating their last block, so a padding step fetches nothing new
blocks = jnp.array([[0, 0, 0], [0, 1, 1], [0, 1, 2], [0, 2, 3]], jnp.int32)
counts = jnp.array([1, 2, 3, 3], jnp.int32)


def splash_kernel(blocks_ref, counts_ref, q_ref, k_ref, v_ref, o_ref, m_ref, l_ref, acc_ref):
    i, j = pl.program_id(0), pl.program_id(1)

    @pl.when(j == 0)
    def _init():
        m_ref[...] = jnp.full(m_ref.shape, -jnp.inf, jnp.float32)
        l_ref[...] = jnp.zeros_like(l_ref)
        acc_ref[...] = jnp.zeros_like(acc_ref)

    @pl.when(j < counts_ref[i])
    def _fold():
        s = jnp.einsum("qh,kh->qk", q_ref[...], k_ref[...]) * H ** -0.5
        m_old = m_ref[...]
        m_new = jnp.maximum(m_old, jnp.max(s, axis=1, keepdims=True))
        corr = jnp.exp(m_old - m_new)
        p = jnp.exp(s - m_new)
        l_ref[...] = l_ref[...] * corr + jnp.sum(p, axis=1, keepdims=True)
        acc_ref[...] = acc_ref[...] * corr + jnp.dot(p, v_ref[...])
        m_ref[...] = m_new

    @pl.when(j == pl.num_programs(1) - 1)
    def _finish():
        o_ref[...] = acc_ref[...] / l_ref[...]


x = jnp.arange(T * H).reshape(T, H).astype(jnp.float32)
q, k, v = jnp.sin(x * 0.37), jnp.cos(x * 0.23) * 2.0, jnp.sin(x * 0.11 + 1.0)
q_spec = pl.BlockSpec((bq, H), lambda i, j, blocks_ref, counts_ref: (i, 0))
kv_spec = pl.BlockSpec((bk, H), lambda i, j, blocks_ref, counts_ref: (blocks_ref[i, j], 0))
grid_spec = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=2, grid=(T // bq, blocks.shape[1]), in_specs=[q_spec, kv_spec, kv_spec],
    out_specs=q_spec,
    scratch_shapes=[pltpu.VMEM((bq, 1), jnp.float32), pltpu.VMEM((bq, 1), jnp.float32),
                    pltpu.VMEM((bq, H), jnp.float32)])
out = pl.pallas_call(splash_kernel, out_shape=jax.ShapeDtypeStruct((T, H), jnp.float32),
                     grid_spec=grid_spec, interpret=True)(blocks, counts, q, k, v)
qb, kb = jnp.arange(T)[:, None] // bq, jnp.arange(T)[None, :] // bk
s = jnp.where((kb == 0) | (kb == qb - 1) | (kb == qb), q @ k.T * H ** -0.5, -jnp.inf)
print(jnp.allclose(out, jax.nn.softmax(s, axis=1) @ v, atol=1e-5, rtol=1e-5))
print(jnp.round(out[1, :4] * 1000.0), jnp.round(out[T - 1, :4] * 1000.0))
# expect: kernel splash_kernel(
# expect:     #0 blocks_ref: SMEM i32[4,3],
# expect:     #1 counts_ref: SMEM i32[4],
# expect:     #2 q_ref: VMEM f32[16,128],
# expect:     #3 k_ref: VMEM f32[16,128],
# expect:     #4 v_ref: VMEM f32[16,128],
# expect:     #5 o_ref: VMEM f32[16,128],
# expect:     #6 m_ref: VMEM f32[16,1],
# expect:     #7 l_ref: VMEM f32[16,1],
# expect:     #8 acc_ref: VMEM f32[16,128]) {
# expect:   %0 = ProgramId axis=0 : i32[]  # line 17:12
# expect:   %1 = ProgramId axis=1 : i32[]  # line 17:30
# expect:   %2 = Constant 0 : i32[]~  # line 19:14
# expect:   %3 = eq (%1, %2) : bool[]  # line 19:14
# expect:   Cond (%3)  # line 19:6
# expect:     region 0:
# expect:       %4 = Constant <array> : f32[16,1]  # line 21:9
# expect:       Store #6[0:+16, 0:+1] (%4)  # line 21:9
# expect:       %5 = Constant <array> : f32[16,1]  # line 22:9
# expect:       Store #7[0:+16, 0:+1] (%5)  # line 22:9
# expect:       %6 = Constant <array> : f32[16,128]  # line 23:9
# expect:       Store #8[0:+16, 0:+128] (%6)  # line 23:9
# expect:     region 1:
# expect:   %7 = Load #1[%0] (%0) : i32[]  # line 25:18
# expect:   %8 = lt (%1, %7) : bool[]  # line 25:14
# expect:   Cond (%8)  # line 25:6
# expect:     region 0:
# expect:       %9 = Load #2[0:+16, 0:+128] : f32[16,128]  # line 27:37
# expect:       %10 = Load #3[0:+16, 0:+128] : f32[16,128]  # line 27:49
# expect:       %11 = dot_general contract=(1,)x(1,) (%9, %10) : f32[16,16]  # line 27:13
# expect:       %12 = Constant 0.0883883461356163 : f32[]~  # line 27:13
# expect:       %13 = mul (%11, %12) : f32[16,16]  # line 27:13
# expect:       %14 = Load #6[0:+16, 0:+1] : f32[16,1]  # line 28:17
# expect:       %15 = reduce_max axes=(1,) keepdims (%13) : f32[16,1]  # line 29:36
# expect:       %16 = max (%14, %15) : f32[16,1]  # line 29:17
# expect:       %17 = sub (%14, %16) : f32[16,1]  # line 30:24
# expect:       %18 = exp (%17) : f32[16,1]  # line 30:16
# expect:       %19 = sub (%13, %16) : f32[16,16]  # line 31:21
# expect:       %20 = exp (%19) : f32[16,16]  # line 31:13
# expect:       %21 = Load #7[0:+16, 0:+1] : f32[16,1]  # line 32:22
# expect:       %22 = mul (%21, %18) : f32[16,1]  # line 32:22
# expect:       %23 = reduce_sum axes=(1,) keepdims (%20) : f32[16,1]  # line 32:42
# expect:       %24 = add (%22, %23) : f32[16,1]  # line 32:22
# expect:       Store #7[0:+16, 0:+1] (%24)  # line 32:9
# expect:       %25 = Load #8[0:+16, 0:+128] : f32[16,128]  # line 33:24
# expect:       %26 = mul (%25, %18) : f32[16,128]  # line 33:24
# expect:       %27 = Load #4[0:+16, 0:+128] : f32[16,128]  # line 33:57
# expect:       %28 = dot_general contract=(1,)x(0,) (%20, %27) : f32[16,128]  # line 33:46
# expect:       %29 = add (%26, %28) : f32[16,128]  # line 33:24
# expect:       Store #8[0:+16, 0:+128] (%29)  # line 33:9
# expect:       Store #6[0:+16, 0:+1] (%16)  # line 34:9
# expect:     region 1:
# expect:   %30 = Constant 2 : i32[]~  # line 36:14
# expect:   %31 = eq (%1, %30) : bool[]  # line 36:14
# expect:   Cond (%31)  # line 36:6
# expect:     region 0:
# expect:       %32 = Load #8[0:+16, 0:+128] : f32[16,128]  # line 38:22
# expect:       %33 = Load #7[0:+16, 0:+1] : f32[16,1]  # line 38:37
# expect:       %34 = div (%32, %33) : f32[16,128]  # line 38:22
# expect:       Store #5[0:+16, 0:+128] (%34)  # line 38:9
# expect:     region 1:
# expect: }
# expect: index map of q_ref: kernel <lambda>(
# expect:     #0 blocks_ref: SMEM i32[4,3],
# expect:     #1 counts_ref: SMEM i32[4]) params %0, %1 {
# expect:   %2 = Constant 0 : i32[]  # line 50:7
# expect:   yield %0, %2
# expect: }
# expect: index map of k_ref: kernel <lambda>(
# expect:     #0 blocks_ref: SMEM i32[4,3],
# expect:     #1 counts_ref: SMEM i32[4]) params %0, %1 {
# expect:   %2 = Load #0[%0, %1] (%0, %1) : i32[]  # line 44:71
# expect:   %3 = Constant 0 : i32[]  # line 50:7
# expect:   yield %2, %3
# expect: }
# expect: index map of v_ref: kernel <lambda>(
# expect:     #0 blocks_ref: SMEM i32[4,3],
# expect:     #1 counts_ref: SMEM i32[4]) params %0, %1 {
# expect:   %2 = Load #0[%0, %1] (%0, %1) : i32[]  # line 44:71
# expect:   %3 = Constant 0 : i32[]  # line 50:7
# expect:   yield %2, %3
# expect: }
# expect: index map of o_ref: kernel <lambda>(
# expect:     #0 blocks_ref: SMEM i32[4,3],
# expect:     #1 counts_ref: SMEM i32[4]) params %0, %1 {
# expect:   %2 = Constant 0 : i32[]  # line 50:7
# expect:   yield %0, %2
# expect: }
# expect: True
# expect: [32. 24. 15.  6.] [13. 13. 13. 13.]

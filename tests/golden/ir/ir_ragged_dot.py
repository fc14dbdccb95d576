# args: --dump-ir
# ragged dot: rows grouped by expert, prefetched metadata maps each grid step to a row tile and
# a group; a tile shared by two groups is visited once per group with a masked store
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

M, K, N, bm, bk, bn = 32, 256, 128, 8, 128, 128
group_sizes = jnp.array([12, 0, 20], jnp.int32)  # group 1 is empty; tile 1 holds groups 0 and 2
offsets = jnp.concatenate([jnp.zeros((1,), jnp.int32), jnp.cumsum(group_sizes)])
group_ids = jnp.array([0, 0, 2, 2, 2], jnp.int32)
m_tile_ids = jnp.array([0, 1, 1, 2, 3], jnp.int32)


def gmm_kernel(offsets_ref, group_ids_ref, m_tile_ids_ref, lhs_ref, rhs_ref, o_ref, acc_ref):
    t, k = pl.program_id(1), pl.program_id(2)

    @pl.when(k == 0)
    def _init():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(lhs_ref[...], rhs_ref[...], preferred_element_type=jnp.float32)

    @pl.when(k == pl.num_programs(2) - 1)
    def _store():
        g = group_ids_ref[t]
        rows = m_tile_ids_ref[t] * bm + lax.broadcasted_iota(jnp.int32, (bm, bn), 0)
        mine = (rows >= offsets_ref[g]) & (rows < offsets_ref[g + 1])
        o_ref[...] = jnp.where(mine, acc_ref[...], o_ref[...])


grid_spec = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=3, grid=(N // bn, group_ids.shape[0], K // bk),
    in_specs=[pl.BlockSpec((bm, bk), lambda n, t, k, off, gid, mt: (mt[t], k)),
              pl.BlockSpec((None, bk, bn), lambda n, t, k, off, gid, mt: (gid[t], k, n))],
    out_specs=pl.BlockSpec((bm, bn), lambda n, t, k, off, gid, mt: (mt[t], n)),
    scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)])
lhs = (jnp.arange(M * K).reshape(M, K) % 5 - 2).astype(jnp.float32)
rhs = (jnp.arange(3 * K * N).reshape(3, K, N) % 7 - 3).astype(jnp.float32)
out = pl.pallas_call(gmm_kernel, out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
                     grid_spec=grid_spec, interpret=True)(offsets, group_ids, m_tile_ids, lhs, rhs)
expert = jnp.repeat(jnp.arange(3), group_sizes, total_repeat_length=M)
reference = jnp.einsum("mk,mkn->mn", lhs, rhs[expert])
print(jnp.allclose(out, reference, atol=1e-3))
print(out[11, :4], out[12, :4])
# expect: kernel gmm_kernel(
# expect:     #0 offsets_ref: SMEM i32[4],
# expect:     #1 group_ids_ref: SMEM i32[5],
# expect:     #2 m_tile_ids_ref: SMEM i32[5],
# expect:     #3 lhs_ref: VMEM f32[8,128],
# expect:     #4 rhs_ref: VMEM f32[128,128],
# expect:     #5 o_ref: VMEM f32[8,128],
# expect:     #6 acc_ref: VMEM f32[8,128]) {
# expect:   %0 = ProgramId axis=1 : i32[]  # line 18:12
# expect:   %1 = ProgramId axis=2 : i32[]  # line 18:30
# expect:   %2 = Constant 0 : i32[]~  # line 20:14
# expect:   %3 = eq (%1, %2) : bool[]  # line 20:14
# expect:   Cond (%3)  # line 20:6
# expect:     region 0:
# expect:       %4 = Constant <array> : f32[8,128]  # line 22:9
# expect:       Store #6[0:+8, 0:+128] (%4)  # line 22:9
# expect:     region 1:
# expect:   %5 = Load #6[0:+8, 0:+128] : f32[8,128]  # line 24:5
# expect:   %6 = Load #3[0:+8, 0:+128] : f32[8,128]  # line 24:29
# expect:   %7 = Load #4[0:+128, 0:+128] : f32[128,128]  # line 24:43
# expect:   %8 = dot_general contract=(1,)x(0,) preferred=float32 (%6, %7) : f32[8,128]  # line 24:21
# expect:   %9 = add (%5, %8) : f32[8,128]  # line 24:5
# expect:   Store #6[0:+8, 0:+128] (%9)  # line 24:5
# expect:   %10 = Constant 1 : i32[]~  # line 26:14
# expect:   %11 = eq (%1, %10) : bool[]  # line 26:14
# expect:   Cond (%11)  # line 26:6
# expect:     region 0:
# expect:       %12 = Load #1[%0] (%0) : i32[]  # line 28:13
# expect:       %13 = Load #2[%0] (%0) : i32[]  # line 29:16
# expect:       %14 = Constant 8 : i32[]~  # line 29:16
# expect:       %15 = mul (%13, %14) : i32[]  # line 29:16
# expect:       %16 = iota int32 shape=(8, 128) dimension=0 : i32[8,128]  # line 29:41
# expect:       %17 = add (%15, %16) : i32[8,128]  # line 29:16
# expect:       %18 = Load #0[%12] (%12) : i32[]  # line 30:25
# expect:       %19 = ge (%17, %18) : bool[8,128]  # line 30:17
# expect:       %20 = Constant 1 : i32[]~  # line 30:63
# expect:       %21 = add (%12, %20) : i32[]  # line 30:63
# expect:       %22 = Load #0[%21] (%21) : i32[]  # line 30:51
# expect:       %23 = lt (%17, %22) : bool[8,128]  # line 30:44
# expect:       %24 = and (%19, %23) : bool[8,128]  # line 30:16
# expect:       %25 = Load #6[0:+8, 0:+128] : f32[8,128]  # line 31:38
# expect:       %26 = Load #5[0:+8, 0:+128] : f32[8,128]  # line 31:52
# expect:       %27 = select_n (%24, %26, %25) : f32[8,128]  # line 31:22
# expect:       Store #5[0:+8, 0:+128] (%27)  # line 31:9
# expect:     region 1:
# expect: }
# expect: index map of lhs_ref: kernel <lambda>(
# expect:     #0 offsets_ref: SMEM i32[4],
# expect:     #1 group_ids_ref: SMEM i32[5],
# expect:     #2 m_tile_ids_ref: SMEM i32[5]) params %0, %1, %2 {
# expect:   %3 = Load #2[%1] (%1) : i32[]  # line 36:69
# expect:   yield %3, %2
# expect: }
# expect: index map of rhs_ref: kernel <lambda>(
# expect:     #0 offsets_ref: SMEM i32[4],
# expect:     #1 group_ids_ref: SMEM i32[5],
# expect:     #2 m_tile_ids_ref: SMEM i32[5]) params %0, %1, %2 {
# expect:   %3 = Load #1[%1] (%1) : i32[]  # line 37:75
# expect:   yield %3, %2, %0
# expect: }
# expect: index map of o_ref: kernel <lambda>(
# expect:     #0 offsets_ref: SMEM i32[4],
# expect:     #1 group_ids_ref: SMEM i32[5],
# expect:     #2 m_tile_ids_ref: SMEM i32[5]) params %0, %1, %2 {
# expect:   %3 = Load #2[%1] (%1) : i32[]  # line 38:69
# expect:   yield %3, %0
# expect: }
# expect: True
# expect: [ 4. -4. -5.  1.] [ 1. -6. -6.  1.]

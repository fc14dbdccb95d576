# args: --dump-ir
# moving sum over a pl.ANY input with hand-written double buffering: each grid step starts the
# DMA of the next window into the other VMEM slot, then waits for its own
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

N, C, bm, halo = 32, 128, 8, 8


def moving_sum_kernel(x_hbm, o_ref, buf, sems):
    i, n = pl.program_id(0), pl.num_programs(0)
    slot = i % 2

    def window_copy(step, slot):
        return pltpu.make_async_copy(x_hbm.at[pl.ds(step * bm, bm + halo)], buf.at[slot],
                                     sems.at[slot])

    @pl.when(i == 0)
    def _warm_up():
        window_copy(0, 0).start()

    @pl.when(i + 1 < n)
    def _prefetch():
        window_copy(i + 1, 1 - slot).start()

    window_copy(i, slot).wait()
    o_ref[...] = buf[slot, pl.ds(0, bm)] + buf[slot, pl.ds(1, bm)] + buf[slot, pl.ds(2, bm)]


x = jnp.sin(jnp.arange((N + halo) * C).reshape(N + halo, C) * 0.07)
out = pl.pallas_call(
    moving_sum_kernel, out_shape=jax.ShapeDtypeStruct((N, C), jnp.float32), grid=(N // bm,),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    out_specs=pl.BlockSpec((bm, C), lambda i: (i, 0)),
    scratch_shapes=[pltpu.VMEM((2, bm + halo, C), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
    interpret=True)(x)
print(jnp.allclose(out, x[0:N] + x[1:N + 1] + x[2:N + 2], atol=1e-6))
print(jnp.round(out[0, :4] * 1000.0), jnp.round(out[N - 1, C - 4:] * 1000.0))
# expect: kernel moving_sum_kernel(
# expect:     #0 x_hbm: ANY f32[40,128],
# expect:     #1 o_ref: VMEM f32[8,128],
# expect:     #2 buf: VMEM f32[2,16,128],
# expect:     #3 sems: DMA i32[2]) {
# expect:   %0 = ProgramId axis=0 : i32[]  # line 13:12
# expect:   %1 = Constant 2 : i32[]~  # line 14:12
# expect:   %2 = remainder (%0, %1) : i32[]  # line 14:12
# expect:   %3 = Constant 0 : i32[]~  # line 20:14
# expect:   %4 = eq (%0, %3) : bool[]  # line 20:14
# expect:   Cond (%4)  # line 20:6
# expect:     region 0:
# expect:       DmaStart #0[0:+16, 0:+128] -> #2[0, 0:+16, 0:+128] sem #3[0]  # line 22:9
# expect:     region 1:
# expect:   %5 = Constant 1 : i32[]~  # line 24:14
# expect:   %6 = add (%0, %5) : i32[]  # line 24:14
# expect:   %7 = Constant 4 : i32[]~  # line 24:14
# expect:   %8 = lt (%6, %7) : bool[]  # line 24:14
# expect:   Cond (%8)  # line 24:6
# expect:     region 0:
# expect:       %9 = Constant 1 : i32[]~  # line 26:21
# expect:       %10 = add (%0, %9) : i32[]  # line 26:21
# expect:       %11 = Constant 1 : i32[]~  # line 26:28
# expect:       %12 = sub (%11, %2) : i32[]  # line 26:28
# expect:       %13 = Constant 8 : i32[]~  # line 17:53
# expect:       %14 = mul (%10, %13) : i32[]  # line 17:53
# expect:       DmaStart #0[%14:+16, 0:+128] -> #2[%12, 0:+16, 0:+128] sem #3[%12] (%14, %12, %12)  # line 26:9
# expect:     region 1:
# expect:   %15 = Constant 8 : i32[]~  # line 17:53
# expect:   %16 = mul (%0, %15) : i32[]  # line 17:53
# expect:   DmaWait #0[%16:+16, 0:+128] -> #2[%2, 0:+16, 0:+128] sem #3[%2] bytes=8192 (%16, %2, %2)  # line 28:5
# expect:   %17 = Load #2[%2, 0:+8, 0:+128] (%2) : f32[8,128]  # line 29:18
# expect:   %18 = Load #2[%2, 1:+8, 0:+128] (%2) : f32[8,128]  # line 29:44
# expect:   %19 = add (%17, %18) : f32[8,128]  # line 29:18
# expect:   %20 = Load #2[%2, 2:+8, 0:+128] (%2) : f32[8,128]  # line 29:70
# expect:   %21 = add (%19, %20) : f32[8,128]  # line 29:18
# expect:   Store #1[0:+8, 0:+128] (%21)  # line 29:5
# expect: }
# expect: index map of o_ref: kernel <lambda>() params %0 {
# expect:   %1 = Constant 0 : i32[]  # line 33:7
# expect:   yield %0, %1
# expect: }
# expect: True
# expect: [-353. -303. -251. -199.] [ -71. -126. -180. -233.]

# manual write-back to an HBM output: step i computes into scratch slot i % 2 and starts its copy
# out; the copy of step i - 1 is waited at step i + 1 before its slot is reused, the last at the end
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_hbm, buf, sems):
    i = pl.program_id(0)
    n = pl.num_programs(0)
    slot = i % 2

    def copy_out(step, s):
        return pltpu.make_async_copy(buf.at[s], o_hbm.at[step], sems.at[s])

    @pl.when(i >= 2)
    def _():
        copy_out(i - 2, slot).wait()  # the slot's previous copy

    buf[slot] = x_ref[...] * 2 + i
    copy_out(i, slot).start()

    @pl.when(i == n - 1)
    def _():
        copy_out(i - 1, 1 - slot).wait()
        copy_out(i, slot).wait()


x = jnp.arange(40, dtype=jnp.int32).reshape(5, 8)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((5, 8), jnp.int32),
    grid=(5,),
    in_specs=[pl.BlockSpec((None, 8), lambda i: (i, 0))],
    out_specs=pl.BlockSpec(memory_space=pl.ANY),
    scratch_shapes=[pltpu.VMEM((2, 8), jnp.int32), pltpu.SemaphoreType.DMA((2,))],
    interpret=True,
)(x)
print(out)
# expect: [[ 0  2  4  6  8 10 12 14]
# expect:  [17 19 21 23 25 27 29 31]
# expect:  [34 36 38 40 42 44 46 48]
# expect:  [51 53 55 57 59 61 63 65]
# expect:  [68 70 72 74 76 78 80 82]]

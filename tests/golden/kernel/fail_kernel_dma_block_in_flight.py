# a DMA into a pipelined output block must be waited in the same grid step: between steps the
# pipeline writes the block back to HBM (and hands the kernel another buffer)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, sem):
    i = pl.program_id(0)

    @pl.when(i > 0)
    def _():
        pltpu.make_async_copy(x_hbm.at[pl.ds(i * 8, 8)], o_ref, sem).wait()

    pltpu.make_async_copy(x_hbm.at[pl.ds(i * 8, 8)], o_ref, sem).start()  # error: still in flight


x = jnp.arange(16, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((16,), jnp.float32),
    grid=(2,),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    out_specs=pl.BlockSpec((8,), lambda i: (i,)),
    scratch_shapes=[pltpu.SemaphoreType.DMA],
    interpret=True,
)(x)
print(out)

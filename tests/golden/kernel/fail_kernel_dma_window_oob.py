# a DMA window at a traced offset that runs past the end of its array, found while running
# (interpret=True silently clamps the window; TPU interpret mode raises an IndexError too)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, buf, sem):
    start = pl.program_id(0) * 6
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(start, 8)], buf, sem)
    copy.start()  # error: Out-of-bounds read of x_hbm: index 6:14 on dimension 0 of size 12
    copy.wait()
    o_ref[...] = buf[...]


x = jnp.arange(12, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((16,), jnp.float32),
    grid=(2,),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    out_specs=pl.BlockSpec((8,), lambda i: (i,)),
    scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA],
    interpret=True,
)(x)
print(out)

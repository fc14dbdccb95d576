# each step waits for the previous step's copy before starting its own, but step 0 has no previous
# copy: its wait can never complete (a hang on a TPU; the pattern needs `pl.when(i > 0)`)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, buf, sem):
    i = pl.program_id(0)
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(i * 8, 8)], buf, sem)
    copy.wait()  # error: deadlock: this wait on DMA semaphore `sem` (grid step (0,))
    copy.start()
    o_ref[...] = jnp.zeros((8,), jnp.float32)


x = jnp.arange(16, dtype=jnp.float32)
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

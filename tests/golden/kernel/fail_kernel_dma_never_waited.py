# a DMA started but never waited leaves its semaphore non-zero at kernel exit (a TPU crashes;
# JAX's TPU interpret mode never runs the copy (on_wait) or prints "Semaphore ... has non-zero
# count" (eager); interpret=True ignores it)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, buf, sem):
    o_ref[...] = jnp.zeros((8,), jnp.float32)
    pltpu.make_async_copy(x_hbm, buf, sem).start()  # error: was never waited


x = jnp.arange(8, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA],
    interpret=True,
)(x)
print(out)

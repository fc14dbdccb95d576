# pl.semaphore_signal / pl.semaphore_wait take regular semaphores: a DMA semaphore is only waited
# through a copy descriptor (real JAX: "Must signal semaphores of the following types: ...")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, sem):
    pl.semaphore_signal(sem)  # error: Must signal semaphores of the following types
    pl.semaphore_wait(sem)
    o_ref[...] = x_ref[...]


x = jnp.arange(8, dtype=jnp.int32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.int32),
    scratch_shapes=[pltpu.SemaphoreType.DMA],
    interpret=True,
)(x)
print(out)

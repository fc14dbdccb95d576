# a regular semaphore signalled more often than waited is non-zero when the kernel ends (a TPU
# crashes; JAX's interpret modes do not report it); the error names the last signal and its step
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, sem):
    pl.semaphore_signal(sem, 2)  # error: holds 1 when the kernel ends
    pl.semaphore_wait(sem)
    o_ref[...] = x_ref[...]


x = jnp.arange(8, dtype=jnp.int32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.int32),
    scratch_shapes=[pltpu.SemaphoreType.REGULAR],
    interpret=True,
)(x)
print(out)

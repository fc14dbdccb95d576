# a regular semaphore: signalled three times (by 1 and by 2), then waited for value 3
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, sem):
    pl.semaphore_signal(sem)
    pl.semaphore_signal(sem, 2)
    pl.semaphore_wait(sem, 3)
    o_ref[...] = x_ref[...] + 1


x = jnp.arange(8, dtype=jnp.int32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.int32),
    scratch_shapes=[pltpu.SemaphoreType.REGULAR],
    interpret=True,
)(x)
print(out)
# expect: [1 2 3 4 5 6 7 8]

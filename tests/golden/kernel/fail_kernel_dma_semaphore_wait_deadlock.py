# pl.semaphore_wait on a regular semaphore nobody signalled: on one core it can never complete
# (a hang on a TPU; interpret=True does not block)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, sems):
    pl.semaphore_signal(sems.at[0])
    pl.semaphore_wait(sems.at[1])  # error: deadlock: this wait on semaphore `sems[1]`
    pl.semaphore_wait(sems.at[0])
    o_ref[...] = x_ref[...]


x = jnp.arange(8, dtype=jnp.int32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.int32),
    scratch_shapes=[pltpu.SemaphoreType.REGULAR((2,))],
    interpret=True,
)(x)
print(out)

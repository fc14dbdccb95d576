# a copy into a pl.run_scoped buffer must be waited inside the scope: the buffer and its
# semaphore do not outlive it (the error names the start line and the run_scoped line)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref):
    def body(buf, sem):
        pltpu.make_async_copy(x_hbm, buf, sem).start()  # error: pl.run_scoped at line 13

    pl.run_scoped(body, pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA)
    o_ref[...] = jnp.zeros((8,), jnp.float32)


x = jnp.arange(8, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    interpret=True,
)(x)
print(out)

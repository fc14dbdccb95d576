# pl.run_scoped allocates a VMEM buffer and a DMA semaphore for the body only; its result is
# the body's return value
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref):
    def body(buf, sem):
        copy = pltpu.make_async_copy(x_hbm.at[pl.ds(4, 4)], buf, sem)
        copy.start()
        copy.wait()
        return jnp.sum(buf[...])

    total = pl.run_scoped(body, pltpu.VMEM((4,), jnp.float32), pltpu.SemaphoreType.DMA)
    o_ref[...] = jnp.full((8,), total, jnp.float32)


x = jnp.arange(8, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    interpret=True,
)(x)
print(out)
# expect: [22. 22. 22. 22. 22. 22. 22. 22.]

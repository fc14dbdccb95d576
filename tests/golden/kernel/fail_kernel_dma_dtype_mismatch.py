# a DMA copies bytes and does not convert: source and destination dtypes must match (checked
# while tracing; real JAX fails later with an unrelated "while_loop body function carry" error)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm, buf, sem)  # error: must have the same dtype
    copy.start()
    copy.wait()
    o_ref[...] = buf[...].astype(jnp.float32)


x = jnp.arange(8, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    scratch_shapes=[pltpu.VMEM((8,), jnp.int32), pltpu.SemaphoreType.DMA],
    interpret=True,
)(x)
print(out)

# writing the source of a remote DMA before its send completed (wait_send) races with the DMA
# engine still reading it, even when the data has already landed (wait_recv)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, buf, send_sem, recv_sem):
  buf[...] = x_ref[...]
  copy = pltpu.make_async_remote_copy(buf, o_ref, send_sem, recv_sem, device_id=(0,),
                                      device_id_type=pl.DeviceIdType.MESH)
  copy.start()
  copy.wait_recv()
  buf[...] = jnp.zeros_like(x_ref)  # error: DMA race: write to `buf` in grid step () while the DMA send of `buf` -> `o_ref` (4096 bytes)
  copy.wait_send()


out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
    out_specs=pl.BlockSpec(memory_space=pl.ANY),
    scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA,
                    pltpu.SemaphoreType.DMA],
)(jnp.ones((8, 128), jnp.float32))

# a remote DMA whose receive side is waited but whose send side is not: its send semaphore is
# non-zero when the kernel ends (a TPU crashes); wait() waits both, wait_recv() only one
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, send_sem, recv_sem):
  copy = pltpu.make_async_remote_copy(x_ref, o_ref, send_sem, recv_sem, device_id=0,
                                      device_id_type=pl.DeviceIdType.LOGICAL)
  copy.start()  # error: the DMA send of `x_ref` -> `o_ref` (4096 bytes) started here in grid step () was never waited
  copy.wait_recv()


out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    out_specs=pl.BlockSpec(memory_space=pl.ANY),
    scratch_shapes=[pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA],
)(jnp.ones((8, 128), jnp.float32))

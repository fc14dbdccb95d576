# a remote DMA aimed at a device the mesh does not have: the emulator runs one device, so every
# device id must be 0 (real JAX's interpret mode fails inside its callback instead)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, send_sem, recv_sem):
  right = pl.program_id(0) + 1  # not taken modulo the number of devices
  copy = pltpu.make_async_remote_copy(x_ref, o_ref, send_sem, recv_sem, device_id=(right,),
                                      device_id_type=pl.DeviceIdType.MESH)
  copy.start()  # error: this remote DMA targets device (1,), but the emulator runs one device
  copy.wait()


out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
    grid=(1,),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    out_specs=pl.BlockSpec(memory_space=pl.ANY),
    scratch_shapes=[pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA],
)(jnp.ones((8, 128), jnp.float32))

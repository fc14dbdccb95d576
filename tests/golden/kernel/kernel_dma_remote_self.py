# Remote DMAs and device-addressed semaphore signals on one device (JAX's TPU interpret mode on a
# CPU runs a mesh of one, where every neighbour is the device itself): a right-permute through
# pltpu.make_async_remote_copy inside shard_map, wait_send / wait_recv separately, a barrier on
# pltpu.get_barrier_semaphore signalled by device id, and pltpu.async_remote_copy
import functools
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

pltpu.set_tpu_interpret_mode()
P = jax.sharding.PartitionSpec
num_devices = jax.device_count()
mesh = jax.make_mesh((num_devices,), ("x",))


def permute_kernel(x_ref, o_ref, scratch_ref, send_sem, recv_sem):
  me = lax.axis_index("x")
  right = lax.rem(me + 1, num_devices)
  left = lax.rem(me - 1 + num_devices, num_devices)
  barrier = pltpu.get_barrier_semaphore()
  for neighbour in (left, right):
    pl.semaphore_signal(barrier, 1, device_id=(neighbour,), device_id_type=pl.DeviceIdType.MESH)
  pl.semaphore_wait(barrier, 2)
  copy = pltpu.make_async_remote_copy(
      src_ref=x_ref, dst_ref=scratch_ref, send_sem=send_sem, recv_sem=recv_sem,
      device_id=(right,), device_id_type=pl.DeviceIdType.MESH)
  copy.start()
  copy.wait_send()
  copy.wait_recv()
  back = pltpu.async_remote_copy(scratch_ref, o_ref, send_sem, recv_sem, device_id={"x": left},
                                 device_id_type=pl.DeviceIdType.MESH)
  back.wait()
  o_ref[...] = o_ref[...] * 2.0 + 1.0


def permute(x):
  return pl.pallas_call(
      permute_kernel,
      out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
      in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
      out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
      scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA,
                      pltpu.SemaphoreType.DMA],
      compiler_params=pltpu.CompilerParams(collective_id=0),
  )(x)


x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
x = jax.device_put(x, jax.sharding.NamedSharding(mesh, P(None, "x")))
out = jax.jit(jax.shard_map(permute, mesh=mesh, in_specs=P(None, "x"), out_specs=P(None, "x"),
                            check_vma=False))(x)
print(num_devices, out.shape, out[0, :4], out[7, -2:])
print(bool(jnp.array_equal(out, x * 2.0 + 1.0)))
# expect: 1 (8, 128) [1. 3. 5. 7.] [2045. 2047.]
# expect: True

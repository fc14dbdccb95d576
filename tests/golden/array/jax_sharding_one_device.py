# one CPU device: devices, meshes, PartitionSpec, NamedSharding, shard_map and collectives over a size-1 axis
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

print(jax.devices(), jax.devices()[0].platform, jax.devices()[0].device_kind)
print(jax.device_count(), jax.local_device_count(), jax.default_backend(), jax.process_index())
print(repr(P(None, "x")), P(None, "x")[1], len(P("x")), P() == P(), P("x") == P("y"))
mesh = jax.make_mesh((1,), ("x",))
print(mesh.axis_names, mesh.size, mesh.shape["x"])
s = jax.sharding.NamedSharding(mesh, P(None, "x"))
print(s.mesh is mesh, s.spec)
x = jax.device_put(jnp.arange(4.0), jax.sharding.NamedSharding(mesh, P("x")))
f = jax.shard_map(lambda v: lax.psum(v, "x") + lax.axis_index("x"), mesh=mesh,
                  in_specs=P("x"), out_specs=P("x"), check_vma=False)
print(f(x))
g = jax.shard_map(lambda v: lax.ppermute(v, "x", ((0, 0),)) * lax.psum(1, "x"), mesh=mesh,
                  in_specs=P("x"), out_specs=P("x"))
print(g(x), jax.block_until_ready(x).shape)
print(jax.shard_map(lambda v: lax.all_gather(v, "x"), mesh=mesh, in_specs=P("x"),
                    out_specs=P(), check_vma=False)(x).shape)
try:
  lax.axis_index("x")
except NameError as e:
  print(e)
# expect: [CpuDevice(id=0)] cpu cpu
# expect: 1 1 cpu 0
# expect: P(None, 'x') x 1 True False
# expect: ('x',) 1 1
# expect: True P(None, 'x')
# expect: [0. 1. 2. 3.]
# expect: [0. 1. 2. 3.] (4,)
# expect: (1, 4)
# expect: Found an unbound axis name: x. To fix this, please call axis_index under `jax.shard_map`.

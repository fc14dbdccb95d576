# pltpu.sync_copy in both directions: an HBM input into VMEM, and a VMEM result out to an HBM
# output (pl.ANY out_specs: the kernel writes the whole output itself)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_hbm, buf):
    pltpu.sync_copy(x_hbm.at[1], buf)
    buf[...] = buf[...] * 3
    pltpu.sync_copy(buf, o_hbm.at[0])
    pltpu.sync_copy(x_hbm.at[0], o_hbm.at[1])


x = jnp.arange(16, dtype=jnp.int32).reshape(2, 8)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((2, 8), jnp.int32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    out_specs=pl.BlockSpec(memory_space=pl.ANY),
    scratch_shapes=[pltpu.VMEM((8,), jnp.int32)],
    interpret=True,
)(x)
print(out)
# expect: [[24 27 30 33 36 39 42 45]
# expect:  [ 0  1  2  3  4  5  6  7]]

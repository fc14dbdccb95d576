# a DMA out of scratch that was never written copies garbage (NaN here): the warning names the
# copy's line, as for a load of uninitialised memory, and the output counts those elements as
# never written
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_hbm, buf):
    buf[pl.ds(0, 4)] = x_ref[pl.ds(0, 4)]
    pltpu.sync_copy(buf, o_hbm)  # warning: read of uninitialised memory from buf


x = jnp.arange(8, dtype=jnp.float32)
out = pl.pallas_call(  # warning: 4 of 8 elements of output o_hbm were never written
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
    out_specs=pl.BlockSpec(memory_space=pl.ANY),
    scratch_shapes=[pltpu.VMEM((8,), jnp.float32)],
    interpret=True,
)(x)
print(out)
# expect: [ 0.  1.  2.  3. nan nan nan nan]

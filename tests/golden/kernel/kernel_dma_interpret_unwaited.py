# args: --semantics interpret
# `--semantics interpret` copies at the start and checks no waits, as JAX's interpret=True does:
# this kernel reads the destination without ever waiting (an error in the default tpu semantics)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, buf, sem):
    pltpu.make_async_copy(x_hbm.at[pl.ds(2, 8)], buf, sem).start()
    o_ref[...] = buf[...] + 1.0


x = jnp.arange(10, dtype=jnp.float32)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA],
    interpret=True,
)(x)
print(out)
# expect: [ 3.  4.  5.  6.  7.  8.  9. 10.]

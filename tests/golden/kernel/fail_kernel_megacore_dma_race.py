# args: --cores 2
# megacore race through DMAs: every grid step copies into the same window of a pl.ANY output,
# and the "parallel" axis runs the two steps on two TensorCores (interpret=True does not notice)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def double_kernel(x_ref, o_hbm, buf, sem):
    buf[...] = x_ref[...] * 2.0
    copy = pltpu.make_async_copy(buf, o_hbm.at[pl.ds(0, 8)], sem)  # window should start at 8 * i
    copy.start()
    copy.wait()


x = jnp.arange(16, dtype=jnp.float32)
out = pl.pallas_call(  # error: megacore race: both TensorCores write element (0,) of `o_hbm`
    double_kernel,
    out_shape=jax.ShapeDtypeStruct((16,), jnp.float32),
    grid=(2,),
    in_specs=[pl.BlockSpec((8,), lambda i: (i,))],
    out_specs=pl.BlockSpec(memory_space=pl.ANY),
    scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
    interpret=True,
)(x)
print(out)

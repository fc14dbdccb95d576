# DMAs into an output in pl.ANY: each point of the "parallel" axis copies its rows into a window
# of its own in `spread_kernel`; in `header_kernel` every point also copies its first row into
# the output's first row, so that those copies race on the CUDA backend (each point a chain of
# its own, on its own CUDA block), while the emulated TPU runs them in order and keeps the last
# point's row. The backend warns at the copy.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def spread_kernel(x_ref, o_hbm, buf, sem):
    i = pl.program_id(0)
    buf[...] = x_ref[...] * 2.0
    copy = pltpu.make_async_copy(buf, o_hbm.at[pl.ds(i * 8, 8)], sem)
    copy.start()
    copy.wait()


def header_kernel(x_ref, o_hbm, buf, sem):
    i = pl.program_id(0)
    buf[...] = x_ref[...] * 2.0
    copy = pltpu.make_async_copy(buf, o_hbm.at[pl.ds(i * 8, 8)], sem)
    copy.start()
    copy.wait()
    header = pltpu.make_async_copy(buf.at[pl.ds(0, 1)], o_hbm.at[pl.ds(0, 1)], sem)
    header.start()  # cuda-warning: the DMAs of grid steps (0,) and (1,) both write element (0, 0) of `o_hbm`
    header.wait()


def run(kernel):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
        grid=(4,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
    )(x)


x = jnp.arange(32 * 128, dtype=jnp.float32).reshape(32, 128)
print(run(spread_kernel)[::8, 0])
print(run(header_kernel)[::8, 0].shape)

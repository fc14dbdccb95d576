# Scratch filled by a DMA only at the grid's first step and read at every step: on the emulated
# TPU the steps run in order, so every point sees the weights; the CUDA backend runs each point of
# the "parallel" axis as its own chain, whose scratch nothing filled, and warns at the read.
# `per_point_kernel` copies the weights in when each point starts (its "arbitrary" axis at 0),
# which it must not warn of.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def load_weights(w_hbm, w_vmem, sem):
    copy = pltpu.make_async_copy(w_hbm, w_vmem, sem)
    copy.start()
    copy.wait()


def once_kernel(w_hbm, x_ref, o_ref, w_vmem, sem):
    @pl.when((pl.program_id(0) == 0) & (pl.program_id(1) == 0))
    def _():
        load_weights(w_hbm, w_vmem, sem)

    o_ref[...] = x_ref[...] * w_vmem[...]  # cuda-warning: scratch `w_vmem` is read at the first step


def per_point_kernel(w_hbm, x_ref, o_ref, w_vmem, sem):
    @pl.when(pl.program_id(1) == 0)
    def _():
        load_weights(w_hbm, w_vmem, sem)

    o_ref[...] = x_ref[...] * w_vmem[...]


def run(kernel):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((32, 256), jnp.float32),
        grid=(4, 2),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec((8, 128), lambda i, j: (i, j))],
        out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
    )(w, x)


w = jnp.full((8, 128), 3.0, jnp.float32)
x = jnp.ones((32, 256), jnp.float32)
print(run(per_point_kernel)[::8, ::128])
print(run(once_kernel).shape)

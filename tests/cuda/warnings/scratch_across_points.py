# Scratch read before it is written at the first step of a point of a "parallel" axis carries a
# value from one point to the next on the emulated TPU (every step in order), but not on the CUDA
# backend, which runs each point as its own chain: the backend warns at the read. `summed_kernel`
# is the usual accumulator (zeroed when the "arbitrary" axis starts again), which it must not warn
# of; `scan_kernel`'s grid is all "parallel", so every step starts a chain.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def running_kernel(x_ref, o_ref, total_ref):
    @pl.when((pl.program_id(0) == 0) & (pl.program_id(1) == 0))
    def _():
        total_ref[...] = jnp.zeros_like(total_ref)

    total_ref[...] += x_ref[...]  # cuda-warning: scratch `total_ref` is read at the first step
    o_ref[...] = total_ref[...]


def summed_kernel(x_ref, o_ref, total_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        total_ref[...] = jnp.zeros_like(total_ref)

    total_ref[...] += x_ref[...]
    o_ref[...] = total_ref[...]


def scan_kernel(x_ref, o_ref, carry_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        carry_ref[...] = jnp.zeros_like(carry_ref)

    carry_ref[...] = carry_ref[...] * 0.5 + x_ref[...]  # cuda-warning: is read at every grid step
    o_ref[...] = carry_ref[...]


def run(kernel):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
        grid=(4, 2),
        in_specs=[pl.BlockSpec((8, 128), lambda i, k: (i, k))],
        out_specs=pl.BlockSpec((8, 128), lambda i, k: (i, 0)),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
    )(x)


x = jnp.ones((32, 256), jnp.float32)
print(run(summed_kernel)[::8, 0])
print(run(running_kernel)[::8, 0].shape)
scanned = pl.pallas_call(
    scan_kernel,
    out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
    grid=(4,),
    in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
)(x)
print(scanned.shape)

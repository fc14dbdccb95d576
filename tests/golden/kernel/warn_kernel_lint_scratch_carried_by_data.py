# args: --lint
# with --lint, the run also watches scratch that a store under a condition on loaded values fills
# at some points of a leading "parallel" axis only: no static check can tell which points write
# it, so the run reports the first read that sees what an earlier point stored (a second
# TensorCore, or a CUDA block of its own, would see something else). Scratch that one of two
# complementary conditions fills at every point is fine. Real JAX's interpret mode runs every
# step in order and prints the same values.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kept_max(x_ref, o_ref, best_ref):
    @pl.when(jnp.sum(x_ref[...]) > 0)
    def _():
        best_ref[...] = jnp.max(x_ref[...], axis=0, keepdims=True)

    o_ref[...] = best_ref[...]  # warning: scratch `best_ref` is read at grid step (2,) where it still holds


def either_way(x_ref, o_ref, best_ref):
    positive = jnp.sum(x_ref[...]) > 0

    @pl.when(positive)
    def _():
        best_ref[...] = jnp.max(x_ref[...], axis=0, keepdims=True)

    @pl.when(jnp.logical_not(positive))
    def _():
        best_ref[...] = jnp.min(x_ref[...], axis=0, keepdims=True)

    o_ref[...] = best_ref[...]


def call(kernel):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((4, 1, 128), jnp.float32),
        grid=(4,),
        in_specs=[pl.BlockSpec((None, 8, 128), lambda i: (i, 0, 0))],
        out_specs=pl.BlockSpec((None, 1, 128), lambda i: (i, 0, 0)),
        scratch_shapes=[pltpu.VMEM((1, 128), jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
        interpret=True,
    )(x)


x = jnp.ones((4, 8, 128), jnp.float32) * jnp.array([1.0, 2.0, -1.0, 3.0]).reshape(4, 1, 1)
print(call(kept_max)[:, 0, 0])  # expect: [1. 2. 2. 3.]
print(call(either_way)[:, 0, 0])  # expect: [ 1.  2. -1.  3.]

# args: --lint
# with --lint, an input block that the kernel stores into and that stays resident from one point
# of the leading "parallel" axes into the next is a megacore hazard: a TPU fetches a block again
# only when its index changes, so the first step of the next point reads what the point before
# stored there, on one core; on a v4 / v5p the core that starts at that point fetches the block
# afresh (JAX's TPU interpret mode with two cores prints [1. 1. 2. 2.] for `bumped` here). A
# block that changes with every point, a kernel that writes the block whole before it reads it,
# and an "arbitrary" axis are fine.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def bumped(x_ref, o_ref):
    x_ref[...] += 1.0  # warning: input `x_ref` is read at grid step (1,), where a point of the "parallel" axis 0 starts
    o_ref[...] = x_ref[...]


def overwritten(x_ref, o_ref):
    x_ref[...] = jnp.full(x_ref.shape, 3.0, x_ref.dtype)
    o_ref[...] = x_ref[...] + 1.0


def call(kernel, in_map, semantics):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
        grid=(4,),
        in_specs=[pl.BlockSpec((8, 128), in_map)],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=semantics),
        interpret=True,
    )(x)


x = jnp.zeros((32, 128), jnp.float32)
print(call(bumped, lambda i: (0, 0), ("parallel",))[::8, 0])
# expect: [1. 2. 3. 4.]
print(call(bumped, lambda i: (i, 0), ("parallel",))[::8, 0])
# expect: [1. 1. 1. 1.]
print(call(bumped, lambda i: (0, 0), ("arbitrary",))[::8, 0])
# expect: [1. 2. 3. 4.]
print(call(overwritten, lambda i: (0, 0), ("parallel",))[::8, 0])
# expect: [4. 4. 4. 4.]

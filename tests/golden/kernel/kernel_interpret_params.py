# pltpu's interpret-mode switches: InterpretParams, set_tpu_interpret_mode, the scoped mode, interpret=
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

params = pltpu.InterpretParams(dma_execution_mode="eager", uninitialized_memory="zero")
print(params.dma_execution_mode, params.uninitialized_memory, params.num_cores_or_threads)
print(params.detect_races, params.out_of_bounds_reads, params.random_seed)


def add_scratch_kernel(x_ref, o_ref, acc_ref):
  # acc_ref is never written: it holds what uninitialised memory holds.
  o_ref[...] = x_ref[...] + acc_ref[...]


def call(x, interpret=False):
  return pl.pallas_call(
      add_scratch_kernel,
      out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
      scratch_shapes=[pltpu.VMEM(x.shape, x.dtype)],
      interpret=interpret,
  )(x)


x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
print(call(x, interpret=pltpu.InterpretParams(uninitialized_memory="zero"))[0, :4])
with pltpu.force_tpu_interpret_mode(pltpu.InterpretParams(uninitialized_memory="zero")):
  print(call(x)[1, :3])
pltpu.set_tpu_interpret_mode(pltpu.InterpretParams(uninitialized_memory="zero"))
print(float(jnp.sum(call(x))))
pltpu.set_tpu_interpret_mode(pltpu.InterpretParams(random_seed=7, num_cores_or_threads=2))


def double_kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...] * 2


y = pl.pallas_call(
    double_kernel,
    out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
    grid=(4,),
    in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
)(jnp.arange(32 * 128, dtype=jnp.float32).reshape(32, 128))
print(y[::8, 0])
# expect: eager zero 1
# expect: False raise None
# expect: [0. 1. 2. 3.]
# expect: [128. 129. 130.]
# expect: 523776.0
# expect: [   0. 2048. 4096. 6144.]

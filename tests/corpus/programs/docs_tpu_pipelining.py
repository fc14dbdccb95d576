# Corpus program docs_tpu_pipelining: TPU pipelining (memory spaces, emit_pipeline, megacore).
# Source: https://github.com/jax-ml/jax/blob/jax-v0.10.2/docs/pallas/tpu/pipelining.md (jax 0.10.2),
#   its code cells in order, unchanged except:
#   two lines are added at the top: import pltpu and pltpu.set_tpu_interpret_mode(), which runs
#     every pallas_call in JAX's TPU interpret mode on a CPU;
#   a cell's last expression, which the notebook displays, is wrapped in print(repr(...));
#   the emit_pipeline cell is omitted (real JAX 0.10.2 cannot run it on a CPU);
#   a driver at the end prints a few elements of `out`.

# --- added for a CPU (JAX's TPU interpret mode) ---
from jax.experimental.pallas import tpu as pltpu
pltpu.set_tpu_interpret_mode()

# --- cell 1 (docs/pallas/tpu/pipelining.md line 30) ---
#@title Imports

import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
import jax.numpy as jnp
import numpy as np

# --- cell 2 (docs/pallas/tpu/pipelining.md line 114) ---
def hbm_vmem_kernel(x_hbm_ref, out_vmem_ref, scratch_vmem_ref):
  pltpu.sync_copy(x_hbm_ref.at[0:1], scratch_vmem_ref)
  out_vmem_ref[...] = scratch_vmem_ref[...] + 1

x = jax.random.uniform(jax.random.key(0), (8, 128), jnp.float32)
out = pl.pallas_call(hbm_vmem_kernel,
  in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
  out_shape=jax.ShapeDtypeStruct((1, 128), jnp.float32),
  scratch_shapes=(pltpu.VMEM(shape=(1, 128), dtype=jnp.float32),)
)(x)

np.testing.assert_allclose(out, x[0:1] + 1)

# --- cell 3 (docs/pallas/tpu/pipelining.md line 208) omitted: pltpu.emit_pipeline, which real JAX 0.10.2 cannot run on a CPU (ValueError: Unsupported TPU device kind: cpu) ---

# --- cell 4 (docs/pallas/tpu/pipelining.md line 267) ---
def add_matrices_kernel(x_vmem_ref, y_vmem_ref, z_vmem_ref):
  # Load x and y from VMEM into VREGs
  x_vregs = x_vmem_ref[:, :]
  y_vregs = y_vmem_ref[:, :]
  # Execute a vectorized add
  z_vregs = x_vregs + y_vregs
  # Store the output values in VREGs back into VMEM
  z_vmem_ref[:, :] = z_vregs

def add_matrices_pipelined_megacore(x: jax.Array, y: jax.Array) -> jax.Array:
  block_spec = pl.BlockSpec((256, 512), lambda i: (i, 0))
  return pl.pallas_call(
      add_matrices_kernel,
      out_shape=jax.ShapeDtypeStruct.like(x),
      in_specs=[block_spec, block_spec],
      out_specs=block_spec,
      grid=(2,),
      compiler_params=pltpu.CompilerParams(
          dimension_semantics=("parallel",))
  )(x, y)

x, y = jnp.ones((512, 512)), jnp.ones((512, 512))
print(repr(add_matrices_pipelined_megacore(x, y)))  # the notebook shows this value

# --- driver (written for this corpus) ---
print(out.shape, out[0, :4], out[0, -4:])

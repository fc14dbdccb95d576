# Corpus program docs_pipelining: software pipelining (grids and BlockSpecs).
# Source: https://github.com/jax-ml/jax/blob/jax-v0.10.2/docs/pallas/pipelining.md (jax 0.10.2),
#   its code cells in order, unchanged except:
#   two lines are added at the top: import pltpu and pltpu.set_tpu_interpret_mode(), which runs
#     every pallas_call in JAX's TPU interpret mode on a CPU;
#   a cell's last expression, which the notebook displays, is wrapped in print(repr(...));
#   the cell with the page's deliberately incorrect reduction is omitted (real JAX
#     rejects it on a CPU); a driver at the end prints a summary of the last result.

# --- added for a CPU (JAX's TPU interpret mode) ---
from jax.experimental.pallas import tpu as pltpu
pltpu.set_tpu_interpret_mode()

# --- cell 1 (docs/pallas/pipelining.md line 28) ---
import jax
from jax import numpy as jnp
from jax.experimental import pallas as pl
import numpy as np

# --- cell 2 (docs/pallas/pipelining.md line 67) ---
# Note: This is a TPU example.

def add_matrices_kernel(x_sram_ref, y_sram_ref, z_sram_ref):
  # Load x and y from SRAM into registers
  x_regs = x_sram_ref[:, :]
  y_regs = y_sram_ref[:, :]
  # Execute a vectorized add
  z_regs = x_regs + y_regs
  # Store the output values in registers back into SRAM
  z_sram_ref[:, :] = z_regs


def add_matrices(x: jax.Array, y: jax.Array) -> jax.Array:
  # pallas_call will first allocate scratch buffers for `x` and `y` in SRAM.
  # It will then copy `x` and `y` from HBM into SRAM.
  z = pl.pallas_call(
      add_matrices_kernel, out_shape=jax.ShapeDtypeStruct.like(x)
  )(x, y)
  # pallas_call will also copy the output from SRAM back into HBM.
  return z


x, y = jnp.ones((512, 512)), jnp.ones((512, 512))
print(repr(add_matrices(x, y)))  # the notebook shows this value

# --- cell 3 (docs/pallas/pipelining.md line 391) ---
# Note: This is a TPU example.

total_shape = (4096, 4096)
block_shape = (512, 512)

def add_matrices_pipelined_kernel(x_ref, y_ref, o_ref):
  o_ref[...] = x_ref[...] + y_ref[...]

def add_matrices_pipelined(x: jax.Array, y: jax.Array):
  return pl.pallas_call(
    add_matrices_pipelined_kernel,
    grid=tuple(total // block for (total, block) in zip(total_shape, block_shape)),
    in_specs=[
      pl.BlockSpec(block_shape, index_map=lambda i, j: (i, j)),
      pl.BlockSpec(block_shape, index_map=lambda i, j: (i, j))
    ],
    out_specs=pl.BlockSpec(block_shape, index_map=lambda i, j: (i, j)),
    out_shape=jax.ShapeDtypeStruct(total_shape, dtype=jnp.float32),
  )(x, y)

x = jax.random.uniform(jax.random.key(0), total_shape, dtype=jnp.float32)
y = jax.random.uniform(jax.random.key(1), total_shape, dtype=jnp.float32)
result = add_matrices_pipelined(x, y)
np.testing.assert_array_equal(
    result, x + y
)

# --- cell 4 (docs/pallas/pipelining.md line 430) ---
def add_matrices_pipelined_param(
    x: jax.Array, y: jax.Array, *, bm: int = 256, bn: int = 256
) -> jax.Array:
  m, n = x.shape
  block_spec = pl.BlockSpec((bm, bn), lambda i, j: (i, j))
  return pl.pallas_call(
      add_matrices_kernel,
      out_shape=x,
      in_specs=[block_spec, block_spec],
      out_specs=block_spec,
      grid=(m // bm, n // bn),
  )(x, y)

np.testing.assert_array_equal(
    add_matrices_pipelined_param(x, y, bm=256, bn=256), x + y
)
np.testing.assert_array_equal(
    add_matrices_pipelined_param(x, y, bm=128, bn=128), x + y
)
np.testing.assert_array_equal(
    add_matrices_pipelined_param(x, y, bm=512, bn=512), x + y
)

# --- cell 5 (docs/pallas/pipelining.md line 485) ---
x = jnp.ones((8, 1024, 1024))
print(repr(jnp.sum(x, axis=0)))  # the notebook shows this value

# --- cell 6 (docs/pallas/pipelining.md line 494) omitted: the page's deliberately incorrect reduction, which real JAX's TPU interpret mode rejects on a CPU (RuntimeError: Revisited block ... of output 0) ---

# --- cell 7 (docs/pallas/pipelining.md line 526) ---
# Note: This is a TPU example.

def correct_sum_kernel(x_ref, o_ref):
  @pl.when(pl.program_id(2) == 0)
  def _():
    o_ref[...] = jnp.zeros_like(o_ref)
  o_ref[...] += x_ref[...]

def correct_sum(x: jax.Array,
              block_size: tuple[int, ...] = (256, 256)) -> jax.Array:
  reduction_size, *out_shape = x.shape
  # We moved the reduction to the last axis of the grid.
  grid = (*(out // blk for out, blk in zip(out_shape, block_size)), reduction_size)
  return pl.pallas_call(
      correct_sum_kernel,
      grid=grid,
      # None in `block_shape` means we pick a size of 1 and squeeze it away
      in_specs=[pl.BlockSpec((None, *block_size), lambda i, j, k: (k, i, j))],
      out_specs=pl.BlockSpec(block_size, lambda i, j, k: (i, j)),
      out_shape=jax.ShapeDtypeStruct(out_shape, x.dtype),
  )(x)

result = correct_sum(x)
print(result)

# --- driver (written for this corpus) ---
print(result.shape, result.dtype, float(jnp.sum(result)))

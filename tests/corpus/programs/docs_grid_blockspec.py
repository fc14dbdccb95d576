# Corpus program docs_grid_blockspec: grids and BlockSpecs.
# Source: https://github.com/jax-ml/jax/blob/jax-v0.10.2/docs/pallas/grid_blockspec.md (jax 0.10.2),
#   its doctest examples in order, unchanged except:
#   the `>>> ` / `... ` prompts are removed (the expected outputs shown on the page are not part
#   of the program; expected/docs_grid_blockspec.out holds real JAX's);
#   an expression whose value the doctest shows is wrapped in print(repr(...));
#   `jnp` and `np`, which the page's doctests take from their globals, are imported at the top.

# --- added: the doctest globals ---
import jax.numpy as jnp
import numpy as np

# --- example 1 (docs/pallas/grid_blockspec.md line 108) ---
import jax
from jax.experimental import pallas as pl
def slices_for_invocation(x_shape: tuple[int, ...],
                          x_spec: pl.BlockSpec,
                          grid: tuple[int, ...],
                          invocation_indices: tuple[int, ...]) -> tuple[slice, ...]:
  assert len(invocation_indices) == len(grid)
  assert all(0 <= i < grid_size for i, grid_size in zip(invocation_indices, grid))
  block_indices = x_spec.index_map(*invocation_indices)
  assert len(x_shape) == len(x_spec.block_shape) == len(block_indices)
  elem_indices = []
  for x_size, block_size, block_idx in zip(x_shape, x_spec.block_shape, block_indices):
    start_idx = block_idx * block_size
    # At least one element of the block must be within bounds
    assert start_idx < x_size
    elem_indices.append(slice(start_idx, start_idx + block_size))
  return elem_indices

# --- example 2 (docs/pallas/grid_blockspec.md line 130) ---
print(repr(slices_for_invocation(x_shape=(100, 100),
                      x_spec = pl.BlockSpec((10, 20), lambda i, j: (i, j)),
                      grid = (10, 5),
                      invocation_indices = (2, 4))))
# Same shape of the array and blocks, but we iterate over each block 4 times
print(repr(slices_for_invocation(x_shape=(100, 100),
                      x_spec = pl.BlockSpec((10, 20), lambda i, j, k: (i, j)),
                      grid = (10, 5, 4),
                      invocation_indices = (2, 4, 0))))
# An example when the block is partially out-of-bounds in the 2nd axis.
print(repr(slices_for_invocation(x_shape=(100, 90),
                      x_spec = pl.BlockSpec((10, 20), lambda i, j: (i, j)),
                      grid = (10, 5),
                      invocation_indices = (2, 4))))

# --- example 3 (docs/pallas/grid_blockspec.md line 159) ---
def show_program_ids(x_shape, block_shape, grid,
                     index_map=lambda i, j: (i, j)):
  def program_ids_kernel(o_ref):  # Fill the output block with 10*program_id(1) + program_id(0)
    axes = 0
    for axis in range(len(grid)):
      axes += pl.program_id(axis) * 10**(len(grid) - 1 - axis)
    o_ref[...] = jnp.full(o_ref.shape, axes)
  res = pl.pallas_call(program_ids_kernel,
                       out_shape=jax.ShapeDtypeStruct(x_shape, dtype=np.int32),
                       grid=grid,
                       in_specs=[],
                       out_specs=pl.BlockSpec(block_shape, index_map),
                       interpret=True)()
  print(res)

# --- example 4 (docs/pallas/grid_blockspec.md line 178) ---
show_program_ids(x_shape=(8, 6), block_shape=(2, 3), grid=(4, 2),
                 index_map=lambda i, j: (i, j))
# An example with out-of-bounds accesses
show_program_ids(x_shape=(7, 5), block_shape=(2, 3), grid=(4, 2),
                 index_map=lambda i, j: (i, j))
# It is allowed for the shape to be smaller than block_shape
show_program_ids(x_shape=(1, 2), block_shape=(2, 3), grid=(1, 1),
                 index_map=lambda i, j: (i, j))

# --- example 5 (docs/pallas/grid_blockspec.md line 220) ---
show_program_ids(x_shape=(8, 6), block_shape=(2, 3), grid=(4, 2, 10),
                 index_map=lambda i, j, k: (i, j))

# --- example 6 (docs/pallas/grid_blockspec.md line 241) ---
def kernel(o_ref):
  assert o_ref.shape == (2,)
  o_ref[...] = jnp.full((2,), 10 * pl.program_id(1) + pl.program_id(0))
print(repr(pl.pallas_call(kernel,
               jax.ShapeDtypeStruct((3, 4), dtype=np.int32),
               out_specs=pl.BlockSpec((None, 2), lambda i, j: (i, j)),
               grid=(3, 2), interpret=True)()))

# --- example 7 (docs/pallas/grid_blockspec.md line 262) ---
show_program_ids(x_shape=(4, 4), block_shape=None, grid=(2, 3),
                 index_map=None)
show_program_ids(x_shape=(4, 4), block_shape=(4, 4), grid=(2, 3),
                 index_map=None)

# --- example 8 (docs/pallas/grid_blockspec.md line 300) ---
# element without padding
show_program_ids(x_shape=(8, 6), block_shape=(pl.Element(2), pl.Element(3)),
                 grid=(4, 2),
                 index_map=lambda i, j: (2*i, 3*j))
# element, first pad the array with 1 row and 2 columns.
show_program_ids(x_shape=(7, 7),
                 block_shape=(pl.Element(2, (1, 0)),
                              pl.Element(3, (2, 0))),
                 grid=(4, 3),
                 index_map=lambda i, j: (2*i, 3*j))

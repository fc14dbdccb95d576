# InterpretParams(out_of_bounds_reads="uninitialized"): a TPU does not bounds-check, and a kernel
# may read past the end of a ref where the value goes unused (here the next step's id, on the
# last step); with "raise" (the default) the same read is an error. A vector read past the end
# gets poison (NaN) there.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(ids_ref, x_ref, o_ref):
  i = pl.program_id(0)
  nxt = ids_ref[i + 1]  # past the end on the last step
  o_ref[...] = x_ref[...] + jnp.where(i + 1 < ids_ref.shape[0], nxt, -1).astype(jnp.float32)


def call(params):
  return pl.pallas_call(
      kernel,
      out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
      grid_spec=pltpu.PrefetchScalarGridSpec(
          num_scalar_prefetch=1, grid=(4,),
          in_specs=[pl.BlockSpec((8, 128), lambda i, ids: (i, 0))],
          out_specs=pl.BlockSpec((8, 128), lambda i, ids: (i, 0))),
      interpret=params,
  )(jnp.array([5, 6, 7, 8], jnp.int32), jnp.zeros((32, 128), jnp.float32))


out = call(pltpu.InterpretParams(out_of_bounds_reads="uninitialized"))
print(out[::8, 0])


def window_kernel(x_ref, o_ref):
  # Eight rows from row 4 of an 8-row ref: rows 8..11 are past the end.
  o_ref[...] = x_ref[pl.ds(pl.program_id(0) + 4, 8), :]


w = pl.pallas_call(
    window_kernel,
    out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
    grid=(1,),
    interpret=pltpu.InterpretParams(out_of_bounds_reads="uninitialized"),
)(jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128))
print(w[:, 0], bool(jnp.isnan(w[4:]).all()))
# expect: [ 6.  7.  8. -1.]
# expect: [512. 640. 768. 896.  nan  nan  nan  nan] True

# Corpus program docs_quickstart: the Pallas quickstart.
# Source: https://github.com/jax-ml/jax/blob/jax-v0.10.2/docs/pallas/quickstart.md (jax 0.10.2),
#   its code cells in order, unchanged except:
#   two lines are added at the top: import pltpu and pltpu.set_tpu_interpret_mode(), which runs
#     every pallas_call in JAX's TPU interpret mode on a CPU;
#   a cell's last expression, which the notebook displays, is wrapped in print(repr(...));
#   a driver at the end prints a few elements of the last results.

# --- added for a CPU (JAX's TPU interpret mode) ---
from jax.experimental.pallas import tpu as pltpu
pltpu.set_tpu_interpret_mode()

# --- cell 1 (docs/pallas/quickstart.md line 43) ---
from functools import partial

import jax
from jax.experimental import pallas as pl
import jax.numpy as jnp
import numpy as np

# --- cell 2 (docs/pallas/quickstart.md line 54) ---
def add_vectors_kernel(x_ref, y_ref, o_ref):
  x, y = x_ref[...], y_ref[...]
  o_ref[...] = x + y

# --- cell 3 (docs/pallas/quickstart.md line 94) ---
def add_sliced_kernel(x_ref, y_ref, o_ref):
  small_mid = x_ref.shape[0] // 2

  x_left = x_ref.at[:small_mid]
  x_right = x_ref.at[small_mid:]
  y_left = y_ref.at[:small_mid]
  y_right = y_ref.at[small_mid:]

  # The output shape is (4*small_mid).
  large_mid = 2*small_mid
  o_ref.at[:large_mid][:small_mid] = x_left[...] + y_left[...]
  o_ref.at[:large_mid][small_mid:] = x_left[...] + y_right[...]
  o_ref.at[large_mid:][:small_mid] = x_right[...] + y_left[...]
  o_ref.at[large_mid:][small_mid:] = x_right[...] + y_right[...]

# --- cell 4 (docs/pallas/quickstart.md line 124) ---
@jax.jit
def add_vectors(x: jax.Array, y: jax.Array) -> jax.Array:
  return pl.pallas_call(
      add_vectors_kernel,
      out_shape=jax.ShapeDtypeStruct.like(x)
  )(x, y)
print(repr(add_vectors(jnp.arange(8), jnp.arange(8))))  # the notebook shows this value

# --- cell 5 (docs/pallas/quickstart.md line 211) ---
def iota_kernel(o_ref):
  i = pl.program_id(0)
  o_ref[i] = i

# --- cell 6 (docs/pallas/quickstart.md line 220) ---
# GPU version
def iota(size: int):
  return pl.pallas_call(iota_kernel,
                        out_shape=jax.ShapeDtypeStruct((size,), jnp.int32),
                        grid=(size,))()
print(repr(iota(8)))  # the notebook shows this value

# --- cell 7 (docs/pallas/quickstart.md line 234) ---
# TPU version
from jax.experimental.pallas import tpu as pltpu

def iota(size: int):
  return pl.pallas_call(iota_kernel,
                        out_specs=pl.BlockSpec(memory_space=pltpu.SMEM),
                        out_shape=jax.ShapeDtypeStruct((size,), jnp.int32),
                        grid=(size,))()
print(repr(iota(8)))  # the notebook shows this value

# --- cell 8 (docs/pallas/quickstart.md line 362) ---
def matmul_kernel(x_ref, y_ref, z_ref):
  z_ref[...] = x_ref[...] @ y_ref[...]

def matmul(x: jax.Array, y: jax.Array):
  return pl.pallas_call(
    matmul_kernel,
    out_shape=jax.ShapeDtypeStruct((x.shape[0], y.shape[1]), x.dtype),
    grid=(2, 2),
    in_specs=[
        pl.BlockSpec((x.shape[0] // 2, x.shape[1]), lambda i, j: (i, 0)),
        pl.BlockSpec((y.shape[0], y.shape[1] // 2), lambda i, j: (0, j))
    ],
    out_specs=pl.BlockSpec(
        (x.shape[0] // 2, y.shape[1] // 2), lambda i, j: (i, j),
    )
  )(x, y)
k1, k2 = jax.random.split(jax.random.key(0))
x = jax.random.normal(k1, (1024, 1024))
y = jax.random.normal(k2, (1024, 1024))
z = matmul(x, y)
np.testing.assert_allclose(z, x @ y)

# --- cell 9 (docs/pallas/quickstart.md line 391) ---
def matmul_kernel(x_ref, y_ref, z_ref, *, activation):
  z_ref[...] = activation(x_ref[...] @ y_ref[...])

def matmul(x: jax.Array, y: jax.Array, *, activation):
  return pl.pallas_call(
    partial(matmul_kernel, activation=activation),
    out_shape=jax.ShapeDtypeStruct((x.shape[0], y.shape[1]), x.dtype),
    grid=(2, 2),
    in_specs=[
        pl.BlockSpec((x.shape[0] // 2, x.shape[1]), lambda i, j: (i, 0)),
        pl.BlockSpec((y.shape[0], y.shape[1] // 2), lambda i, j: (0, j))
    ],
    out_specs=pl.BlockSpec(
        (x.shape[0] // 2, y.shape[1] // 2), lambda i, j: (i, j)
    ),
  )(x, y)
k1, k2 = jax.random.split(jax.random.key(0))
x = jax.random.normal(k1, (1024, 1024))
y = jax.random.normal(k2, (1024, 1024))
z = matmul(x, y, activation=jax.nn.relu)
np.testing.assert_allclose(z, jax.nn.relu(x @ y))

# --- cell 10 (docs/pallas/quickstart.md line 418) ---
k1, k2 = jax.random.split(jax.random.key(0))
x = jax.random.normal(k1, (4, 1024, 1024))
y = jax.random.normal(k2, (4, 1024, 1024))
z = jax.vmap(partial(matmul, activation=jax.nn.relu))(x, y)
np.testing.assert_allclose(z, jax.nn.relu(jax.vmap(jnp.matmul)(x, y)))

# --- driver (written for this corpus) ---
print(z.shape, z.dtype)
print(z[0, 0, :4])
print(z[3, 1023, -4:])
print("mean", float(jnp.mean(z)))

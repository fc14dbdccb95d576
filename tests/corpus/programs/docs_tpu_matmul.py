# Corpus program docs_tpu_matmul: the TPU matmul tutorial's kernels.
# Source: https://github.com/jax-ml/jax/blob/jax-v0.10.2/docs/pallas/tpu/matmul.md (jax 0.10.2),
#   its code cells in order, unchanged except:
#   two lines are added at the top: import pltpu and pltpu.set_tpu_interpret_mode(), which runs
#     every pallas_call in JAX's TPU interpret mode on a CPU;
#   cells that cannot run on a CPU in reasonable time are omitted: 4096x4096x4096 products (with
#     unseeded numpy data and assert_array_equal of float32 products summed in another order)
#     and the benchmarks (100 timed 8192x8192x8192 products each; timings are not reproducible);
#   a driver after each matmul definition runs it on 512x512 products instead (square: the
#     page's transpose_rhs variant assumes it; like the page's own calls, y goes in unswapped, as
#     the function swaps it itself).

# --- added for a CPU (JAX's TPU interpret mode) ---
from jax.experimental.pallas import tpu as pltpu
pltpu.set_tpu_interpret_mode()

# --- cell 1 (docs/pallas/tpu/matmul.md line 21) ---
#@title Imports
import functools
from typing import Callable

import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax import random
import jax.numpy as jnp
import numpy as np

# --- cell 2 (docs/pallas/tpu/matmul.md line 72) ---
def matmul_small(x: np.ndarray, y: np.ndarray) -> np.ndarray:
  m, k, n = x.shape[0], x.shape[1], y.shape[0]
  assert m <= 256
  assert k <= 256
  assert n <= 256
  return np.matmul(x, y)

def block_matmul(
    x: np.ndarray,
    y: np.ndarray,
    *,
    bm: int = 256,
    bk: int = 256,
    bn: int = 256,
) -> np.ndarray:
  m, k = x.shape
  _, n = y.shape

  z = np.zeros((m, n), dtype=x.dtype)
  for m_i in range(m // bm):
    for n_i in range(n // bn):
      for k_i in range(k // bk):
        m_slice = slice(m_i * bm, (m_i + 1) * bm)
        k_slice = slice(k_i * bk, (k_i + 1) * bk)
        n_slice = slice(n_i * bn, (n_i + 1) * bn)
        x_block = x[m_slice, k_slice]
        y_block = y[k_slice, n_slice]
        z[m_slice, n_slice] += matmul_small(x_block, y_block)
  return z

# --- cell 3 (docs/pallas/tpu/matmul.md line 110) omitted: a 4096^3 numpy block matmul on unseeded random data ---

# --- cell 4 (docs/pallas/tpu/matmul.md line 143) ---
def matmul_kernel(x_ref, y_ref, z_ref):
  @pl.when(pl.program_id(2) == 0)
  def _():
    z_ref[...] = jnp.zeros_like(z_ref)

  z_ref[...] += x_ref[...] @ y_ref[...]

def matmul(
    x: jax.Array,
    y: jax.Array,
    *,
    bm: int = 128,
    bk: int = 128,
    bn: int = 128,
):
  m, k = x.shape
  _, n = y.shape
  return pl.pallas_call(
      matmul_kernel,
      out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
      in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
                pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))],
      out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
      grid=(m // bm, n // bn, k // bk),
      compiler_params=pltpu.CompilerParams(
          dimension_semantics=("parallel", "parallel", "arbitrary")),
  )(x, y)

# --- driver (written for this corpus) ---
def _check_matmul(**kwargs):
  k1, k2 = random.split(random.key(1), 2)
  x = random.normal(k1, (512, 512), dtype=jnp.float32)
  y = random.normal(k2, (512, 512), dtype=jnp.float32)
  z = matmul(x, y, **kwargs)
  ref = jnp.dot(x, y, precision=jax.lax.Precision.HIGHEST)
  print(kwargs, z.shape, z.dtype, z[0, :3], z[511, -3:])
  print("  close to x @ y", bool(jnp.allclose(z, ref, atol=1e-3, rtol=1e-4)))
_check_matmul()
_check_matmul(bm=256, bk=128, bn=128)

# --- cell 5 (docs/pallas/tpu/matmul.md line 175) omitted: a 4096^3 product through 32768 grid steps ---

# --- cell 6 (docs/pallas/tpu/matmul.md line 200) ---
def matmul_flops(m: int, k: int, n: int):
  return 2 * m * k * n

def matmul_membw(m: int, k: int, n: int, dtype: jnp.dtype):
  return (m * k + k * n + m * n) * np.dtype(dtype).itemsize

print(matmul_flops(1024, 1024, 1024))
print(matmul_membw(1024, 1024, 1024, jnp.float32))

# --- cell 7 (docs/pallas/tpu/matmul.md line 220) ---
v5e_flops = 197e12
v5e_membw = 819e9
v5e_op_intensity = v5e_flops / v5e_membw  # ~240.5

# --- cell 8 (docs/pallas/tpu/matmul.md line 232) ---
def matmul_flops_intensity(m: int, k: int, n: int, dtype: jnp.dtype):
  flops = matmul_flops(m, k, n)
  membw = matmul_membw(m, k, n, dtype)
  return flops / membw

# --- cell 9 (docs/pallas/tpu/matmul.md line 247) ---
print(f"{matmul_flops_intensity(1024, 1024, 1024, jnp.float32)} flops/byte")

# --- cell 10 (docs/pallas/tpu/matmul.md line 266) ---
print(f"{matmul_flops_intensity(1024, 1024, 1024, jnp.bfloat16)} flops/byte")

# --- cell 11 (docs/pallas/tpu/matmul.md line 283) ---
def matmul_kernel(x_ref, y_ref, z_ref, acc_ref, *, nsteps):
  @pl.when(pl.program_id(2) == 0)
  def _():
    acc_ref[...] = jnp.zeros_like(acc_ref)

  acc_ref[...] += jnp.dot(
      x_ref[...], y_ref[...], preferred_element_type=jnp.float32
  )

  @pl.when(pl.program_id(2) == nsteps - 1)
  def _():
    z_ref[...] = acc_ref[...].astype(z_ref.dtype)


@jax.jit(static_argnames=['bm', 'bk', 'bn'])
def matmul(
    x: jax.Array,
    y: jax.Array,
    *,
    bm: int = 128,
    bk: int = 128,
    bn: int = 128,
):
  m, k = x.shape
  _, n = y.shape
  return pl.pallas_call(
      functools.partial(matmul_kernel, nsteps=k // bk),
      grid_spec=pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=0,
        in_specs=[
            pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
            pl.BlockSpec((bk, bn), lambda i, j, k: (k, j)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        grid=(m // bm, n // bn, k // bk),
      ),
      out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
      compiler_params=pltpu.CompilerParams(
          dimension_semantics=("parallel", "parallel", "arbitrary")),
  )(x, y)

# --- driver (written for this corpus) ---
def _check_matmul(**kwargs):
  k1, k2 = random.split(random.key(1), 2)
  x = random.normal(k1, (512, 512), dtype=jnp.float32)
  y = random.normal(k2, (512, 512), dtype=jnp.float32)
  z = matmul(x, y, **kwargs)
  ref = jnp.dot(x, y, precision=jax.lax.Precision.HIGHEST)
  print(kwargs, z.shape, z.dtype, z[0, :3], z[511, -3:])
  print("  close to x @ y", bool(jnp.allclose(z, ref, atol=1e-3, rtol=1e-4)))
_check_matmul()
_check_matmul(bm=512, bk=256, bn=128)

# --- cell 12 (docs/pallas/tpu/matmul.md line 329) omitted: a 4096^3 product through 32768 grid steps ---

# --- cell 13 (docs/pallas/tpu/matmul.md line 363) omitted: benchmarks (timings) ---

# --- cell 14 (docs/pallas/tpu/matmul.md line 413) omitted: benchmarks (timings) ---

# --- cell 15 (docs/pallas/tpu/matmul.md line 442) ---
def matmul_kernel(x_ref, y_ref, z_ref, acc_ref, *, nsteps, transpose_rhs):
  @pl.when(pl.program_id(2) == 0)
  def _():
    acc_ref[...] = jnp.zeros_like(acc_ref)

  # dot_general expects a data structure (contraction_dims, batch_dims),
  # where contraction_dims are the set of dimensions for LHS and RHS that will
  # be contracted (reduced) in the matmul; batch_dims, on the other hand, are
  # looped over. The remaining dimensions will be the input and output dimension
  # of the matmul.
  if transpose_rhs:
    dims = ((1,), (1,)), ((), ())
  else:
    dims = ((1,), (0,)), ((), ())

  acc_ref[...] += jax.lax.dot_general(
      x_ref[...], y_ref[...], dims, preferred_element_type=jnp.float32,
  )

  @pl.when(pl.program_id(2) == nsteps - 1)
  def _():
    z_ref[...] = acc_ref[...].astype(z_ref.dtype)


@jax.jit(static_argnames=['bm', 'bk', 'bn', 'transpose_rhs'])
def matmul(
    x: jax.Array,
    y: jax.Array,
    *,
    bm: int = 128,
    bk: int = 128,
    bn: int = 128,
    transpose_rhs: bool = False,
):
  if transpose_rhs:
    y = y.swapaxes(0, 1)
    y_block_spec = pl.BlockSpec((bn, bk), lambda i, j, k: (j, k))
  else:
    y_block_spec = pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))
  m, k = x.shape
  _, n = y.shape
  return pl.pallas_call(
      functools.partial(matmul_kernel, nsteps=k // bk, transpose_rhs=transpose_rhs),
      grid_spec=pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=0,
        in_specs=[
            pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
            y_block_spec,
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        grid=(m // bm, n // bn, k // bk),
      ),
      out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
      compiler_params=pltpu.CompilerParams(
          dimension_semantics=("parallel", "parallel", "arbitrary")),
  )(x, y)

# --- driver (written for this corpus) ---
def _check_matmul(**kwargs):
  k1, k2 = random.split(random.key(1), 2)
  x = random.normal(k1, (512, 512), dtype=jnp.float32)
  y = random.normal(k2, (512, 512), dtype=jnp.float32)
  z = matmul(x, y, **kwargs)
  ref = jnp.dot(x, y, precision=jax.lax.Precision.HIGHEST)
  print(kwargs, z.shape, z.dtype, z[0, :3], z[511, -3:])
  print("  close to x @ y", bool(jnp.allclose(z, ref, atol=1e-3, rtol=1e-4)))
_check_matmul()
_check_matmul(transpose_rhs=True)

# --- cell 16 (docs/pallas/tpu/matmul.md line 513) omitted: benchmarks (timings) ---

# --- cell 17 (docs/pallas/tpu/matmul.md line 560) ---
def matmul_kernel(
    x_ref, y_ref, z_ref, acc_ref, *, nsteps, transpose_rhs, activation
):
  @pl.when(pl.program_id(2) == 0)
  def _():
    acc_ref[...] = jnp.zeros_like(acc_ref)

  if transpose_rhs:
    dims = ((1,), (1,)), ((), ())
  else:
    dims = ((1,), (0,)), ((), ())

  acc_ref[...] += jax.lax.dot_general(
      x_ref[...],
      y_ref[...],
      dims,
      preferred_element_type=jnp.float32,
  )

  @pl.when(pl.program_id(2) == nsteps - 1)
  def _():
    z_ref[...] = activation(acc_ref[...]).astype(z_ref.dtype)


@jax.jit(static_argnames=['bm', 'bk', 'bn', 'activation'])
def matmul(
    x: jax.Array,
    y: jax.Array,
    *,
    bm: int = 128,
    bk: int = 128,
    bn: int = 128,
    transpose_rhs: bool = False,
    activation: Callable[[jax.Array], jax.Array] = lambda x: x,
):
  if transpose_rhs:
    y = y.swapaxes(0, 1)
    y_block_spec = pl.BlockSpec((bn, bk), lambda i, j, k: (j, k))
  else:
    y_block_spec = pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))
  m, k = x.shape
  _, n = y.shape
  return pl.pallas_call(
      functools.partial(
          matmul_kernel,
          nsteps=k // bk,
          transpose_rhs=transpose_rhs,
          activation=activation,
      ),
      grid_spec=pltpu.PrefetchScalarGridSpec(
          num_scalar_prefetch=0,
          in_specs=[
              pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
              y_block_spec,
          ],
          out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
          scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
          grid=(m // bm, n // bn, k // bk),
      ),
      out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
      compiler_params=pltpu.CompilerParams(
          dimension_semantics=("parallel", "parallel", "arbitrary")),
  )(x, y)

# --- cell 18 (docs/pallas/tpu/matmul.md line 628) omitted: benchmarks (timings) ---

# --- driver (written for this corpus) ---
k1, k2 = random.split(random.key(1), 2)
x = random.normal(k1, (512, 512), dtype=jnp.float32)
y = random.normal(k2, (512, 512), dtype=jnp.float32)
z = matmul(x, y, activation=jax.nn.relu)
print("relu", z[0, :3], z[511, -3:], float(jnp.mean(z)))
print("  close", bool(jnp.allclose(z, jax.nn.relu(jnp.dot(x, y, precision=jax.lax.Precision.HIGHEST)), atol=1e-3, rtol=1e-4)))
xb, yb = x.astype(jnp.bfloat16), y.astype(jnp.bfloat16)
zb = matmul(xb, yb, bm=128, bk=256, bn=128)
print("bf16", zb.dtype, float(jnp.mean(jnp.abs(zb.astype(jnp.float32)))))
block = block_matmul(np.arange(512 * 512, dtype=np.float32).reshape(512, 512) % 7,
                     np.arange(512 * 256, dtype=np.float32).reshape(512, 256) % 5, bm=256, bk=256, bn=256)
print("block_matmul", block.shape, block[0, :4], block[511, -4:])

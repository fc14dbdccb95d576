# Corpus program ops_matmul: the tiled matmul kernel (float32, bfloat16, int8).
# Source: the installed jax 0.10.2 package, jax/experimental/pallas/ops/tpu/ (also at
#   https://github.com/jax-ml/jax/blob/jax-v0.10.2/jax/experimental/pallas/ops/tpu/matmul.py)
# Changes: none; the module is inlined unchanged (tests/corpus/inline_ops.py writes the part
#   below up to the driver).
# The driver at the end is written for this corpus.

# --- inlined source (tests/corpus/inline_ops.py writes this part) ---

# --- jax/experimental/pallas/ops/tpu/matmul.py (jax 0.10.2) ---
# Copyright 2023 The JAX Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     https://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Example matmul TPU kernel.

See discussion in https://docs.jax.dev/en/latest/pallas/tpu/matmul.html.
"""

import functools

import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
import jax.numpy as jnp


def matmul_kernel(x_tile_ref, y_tile_ref, o_tile_ref, acc_ref):
  @pl.when(pl.program_id(2) == 0)
  def init():
    acc_ref[...] = jnp.zeros_like(acc_ref)

  acc_ref[...] = acc_ref[...] + jnp.dot(
      x_tile_ref[...],
      y_tile_ref[...],
      preferred_element_type=acc_ref.dtype,
  )
  # It is possible to make this conditional but in general this bundle packs
  # quite well for a simple matmul kernel
  o_tile_ref[...] = acc_ref[...].astype(o_tile_ref.dtype)


@functools.partial(
    jax.jit, static_argnames=["block_shape", "block_k", "debug", "out_dtype"]
)
def matmul(
    x: jax.Array,
    y: jax.Array,
    *,
    block_shape,
    block_k: int = 256,
    out_dtype: jnp.dtype | None = None,
    debug: bool = False,
) -> jax.Array:
  if out_dtype is None:
    if x.dtype != y.dtype:
      # TODO(tlongeri): Maybe we could use a deduction similar to jnp.dot
      raise TypeError(
          f"Cannot deduce output dtype for different input dtypes: {x.dtype},"
          f" {y.dtype}"
      )
    out_dtype = x.dtype
  acc_dtype = jnp.float32
  if x.dtype in [jnp.int8, jnp.int4, jnp.uint8, jnp.uint4]:
    acc_dtype = jnp.int32

  l, r = block_shape
  return pl.pallas_call(
      matmul_kernel,
      out_shape=jax.ShapeDtypeStruct((x.shape[0], y.shape[1]), out_dtype),
      grid_spec=pltpu.PrefetchScalarGridSpec(
          num_scalar_prefetch=0,
          in_specs=[
              pl.BlockSpec((l, block_k), lambda i, _, k: (i, k)),
              pl.BlockSpec((block_k, r), lambda _, j, k: (k, j)),
          ],
          out_specs=pl.BlockSpec((l, r), lambda i, j, k: (i, j)),
          grid=(x.shape[0] // l, y.shape[1] // r, x.shape[1] // block_k),
          scratch_shapes=[pltpu.VMEM((l, r), acc_dtype)],
      ),
      compiler_params=pltpu.CompilerParams(
          dimension_semantics=("parallel", "parallel", "arbitrary")),
      debug=debug,
  )(x, y)


# --- driver (written for this corpus) ---
# Runs `matmul` in JAX's TPU interpret mode (what a CPU user adds) on small fixed inputs:
# float32, bfloat16 with a float32 result, and int8 with an int32 result, each against jnp.dot.
from jax.experimental.pallas import tpu as pltpu

pltpu.set_tpu_interpret_mode()

kx, ky = jax.random.split(jax.random.key(42))
x = jax.random.normal(kx, (256, 512), jnp.float32)
y = jax.random.normal(ky, (512, 384), jnp.float32)
z = matmul(x, y, block_shape=(128, 128), block_k=256)
ref = jnp.dot(x, y, precision=jax.lax.Precision.HIGHEST)
print("f32", z.shape, z.dtype)
print(z[0, :4])
print(z[255, -4:])
print("mean |z|", float(jnp.mean(jnp.abs(z))))
print("close to jnp.dot", bool(jnp.allclose(z, ref, atol=1e-3, rtol=1e-4)))

xb, yb = x.astype(jnp.bfloat16), y.astype(jnp.bfloat16)
zb = matmul(xb, yb, block_shape=(128, 128), block_k=128, out_dtype=jnp.float32)
refb = jnp.dot(xb, yb, preferred_element_type=jnp.float32)
print("bf16", zb.shape, zb.dtype)
print(zb[1, :4])
print("close to jnp.dot", bool(jnp.allclose(zb, refb, atol=1e-2, rtol=1e-3)))

xi = (jnp.arange(128 * 256, dtype=jnp.int32).reshape(128, 256) % 7 - 3).astype(jnp.int8)
yi = (jnp.arange(256 * 128, dtype=jnp.int32).reshape(256, 128) % 5 - 2).astype(jnp.int8)
zi = matmul(xi, yi, block_shape=(128, 128), block_k=128, out_dtype=jnp.int32)
refi = jnp.dot(xi.astype(jnp.int32), yi.astype(jnp.int32))
print("int8", zi.shape, zi.dtype)
print(zi[0, :8])
print("sum", int(jnp.sum(zi)), "equal to jnp.dot", bool(jnp.array_equal(zi, refi)))

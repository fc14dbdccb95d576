# Corpus program ops_example_kernel: the `double` example kernel.
# Source: the installed jax 0.10.2 package, jax/experimental/pallas/ops/tpu/ (also at
#   https://github.com/jax-ml/jax/blob/jax-v0.10.2/jax/experimental/pallas/ops/tpu/example_kernel.py)
# Changes: none; the module is inlined unchanged (tests/corpus/inline_ops.py writes the part
#   below up to the driver).
# The driver at the end is written for this corpus.

# --- inlined source (tests/corpus/inline_ops.py writes this part) ---

# --- jax/experimental/pallas/ops/tpu/example_kernel.py (jax 0.10.2) ---
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

"""Kernels used for testing pallas_call."""

from jax.experimental import pallas as pl


def double_kernel(x_ref, y_ref):
  y_ref[:] = x_ref[:] * 2


def double(x):
  return pl.pallas_call(double_kernel, out_shape=x)(x)


# --- driver (written for this corpus) ---
# Runs the kernel in JAX's TPU interpret mode (what a CPU user adds) on small fixed inputs.
import jax
import jax.numpy as jnp
from jax.experimental.pallas import tpu as pltpu

pltpu.set_tpu_interpret_mode()

x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 7.0
y = double(x)
print(y.shape, y.dtype)
print(y[0, :6])
print(y[7, -3:])
print(float(jnp.sum(y)), bool(jnp.array_equal(y, x * 2)))

xi = jnp.arange(16, dtype=jnp.int32).reshape(2, 8) - 5
print(double(xi))

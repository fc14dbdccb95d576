# The Pallas programs the kernel benchmarks time, in one place for both runners:
# pz_bench_kernel (kernel_bench.cpp) runs them in the engine, jax_comparable.py under real JAX.
# Each maker returns the pallas_call and its operands; `interpret` is for real JAX on a CPU.
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def matmul_kernel(x_ref, y_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)

    @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = acc_ref[...]


# n x n matmul in b x b blocks, grid (n/b, n/b, n/b) with the output axes "parallel", an f32
# VMEM accumulator; the operands in `dtype` (float32, or bfloat16 for the MXU's native products),
# the result in float32.
def matmul_program(n, b, interpret=False, dtype=jnp.float32):
    x = jnp.sin(jnp.arange(n * n, dtype=jnp.float32).reshape(n, n) * 0.37).astype(dtype)
    y = jnp.cos(jnp.arange(n * n, dtype=jnp.float32).reshape(n, n) * 0.11).astype(dtype)
    call = pl.pallas_call(
        matmul_kernel, out_shape=jax.ShapeDtypeStruct((n, n), jnp.float32),
        grid=(n // b, n // b, n // b),
        in_specs=[pl.BlockSpec((b, b), lambda i, j, k: (i, k)),
                  pl.BlockSpec((b, b), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((b, b), lambda i, j, k: (i, j)),
        scratch_shapes=[pltpu.VMEM((b, b), jnp.float32)],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary")),
        interpret=interpret)
    return call, (x, y)


def flash_kernel(q_ref, k_ref, v_ref, o_ref, m_ref, l_ref, acc_ref):
    j = pl.program_id(2)

    @pl.when(j == 0)
    def _():
        m_ref[...] = jnp.full(m_ref.shape, -jnp.inf, jnp.float32)
        l_ref[...] = jnp.zeros(l_ref.shape, jnp.float32)
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    s = lax.dot_general(q_ref[...], k_ref[...], (((1,), (1,)), ((), ())),
                        preferred_element_type=jnp.float32)
    m_prev = m_ref[...]
    m_new = jnp.maximum(m_prev, jnp.max(s, axis=1, keepdims=True))
    p = jnp.exp(s - m_new)
    alpha = jnp.exp(m_prev - m_new)
    l_ref[...] = alpha * l_ref[...] + jnp.sum(p, axis=1, keepdims=True)
    acc_ref[...] = alpha * acc_ref[...] + jnp.dot(p, v_ref[...],
                                                  preferred_element_type=jnp.float32)
    m_ref[...] = m_new

    @pl.when(j == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = acc_ref[...] / l_ref[...]


# Flash attention forward: grid (heads, t / b, s / b), m, l and acc in VMEM scratch, the kv axis
# the reduction; `parallel_heads` marks the head axis "parallel" (for megacore).
def flash_program(heads, t, s, d, b, parallel_heads=False, interpret=False):
    scale = 1.0 / d ** 0.5
    q = jnp.sin(jnp.arange(heads * t * d, dtype=jnp.float32).reshape(heads, t, d) * 0.37) * scale
    k = jnp.cos(jnp.arange(heads * s * d, dtype=jnp.float32).reshape(heads, s, d) * 0.23)
    v = jnp.sin(jnp.arange(heads * s * d, dtype=jnp.float32).reshape(heads, s, d) * 0.11 + 1.0)
    semantics = ("parallel" if parallel_heads else "arbitrary", "arbitrary", "arbitrary")
    call = pl.pallas_call(
        flash_kernel, out_shape=jax.ShapeDtypeStruct((heads, t, d), jnp.float32),
        grid=(heads, t // b, s // b),
        in_specs=[pl.BlockSpec((None, b, d), lambda h, i, j: (h, i, 0)),
                  pl.BlockSpec((None, b, d), lambda h, i, j: (h, j, 0)),
                  pl.BlockSpec((None, b, d), lambda h, i, j: (h, j, 0))],
        out_specs=pl.BlockSpec((None, b, d), lambda h, i, j: (h, i, 0)),
        scratch_shapes=[pltpu.VMEM((b, 1), jnp.float32), pltpu.VMEM((b, 1), jnp.float32),
                        pltpu.VMEM((b, d), jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=semantics),
        interpret=interpret)
    return call, (q, k, v)


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


# A vector add of (rows, 128) f32 in (block_rows, 128) blocks: rows / block_rows grid steps.
def add_program(rows, interpret=False, block_rows=8):
    x = jnp.arange(rows * 128, dtype=jnp.float32).reshape(rows, 128)
    y = jnp.ones((rows, 128), jnp.float32)
    spec = pl.BlockSpec((block_rows, 128), lambda i: (i, 0))
    call = pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct((rows, 128), jnp.float32),
                          grid=(rows // block_rows,), in_specs=[spec, spec], out_specs=spec,
                          interpret=interpret)
    return call, (x, y)

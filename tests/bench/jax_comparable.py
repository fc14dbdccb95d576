#!/usr/bin/env python3
"""Times, under real JAX, the three programs of `BM_JaxComparable` (kernel_bench.cpp).

Each is the same Pallas kernel, shapes and operands as the benchmark, run with
`pl.pallas_call(..., interpret=True)` inside `jax.jit` (JAX's CPU interpret mode). The first call
compiles; the figure is the median of the calls after it (steady state), in milliseconds. Compare
it with `pz_bench_kernel --benchmark_filter=JaxComparable`, whose iterations trace and run the
call every time. Needs `pip install jax`.

Usage: tests/bench/jax_comparable.py [--repeats N]
"""
import argparse
import statistics
import time

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


def matmul_program(n=1024, b=256):
    x = jnp.sin(jnp.arange(n * n, dtype=jnp.float32).reshape(n, n) * 0.37)
    y = jnp.cos(jnp.arange(n * n, dtype=jnp.float32).reshape(n, n) * 0.11)
    call = pl.pallas_call(
        matmul_kernel, out_shape=jax.ShapeDtypeStruct((n, n), jnp.float32),
        grid=(n // b, n // b, n // b),
        in_specs=[pl.BlockSpec((b, b), lambda i, j, k: (i, k)),
                  pl.BlockSpec((b, b), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((b, b), lambda i, j, k: (i, j)),
        scratch_shapes=[pltpu.VMEM((b, b), jnp.float32)], interpret=True)
    return jax.jit(call), (x, y)


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


def flash_program(heads=2, t=1024, s=1024, d=128, b=128):
    scale = 1.0 / d ** 0.5
    q = jnp.sin(jnp.arange(heads * t * d, dtype=jnp.float32).reshape(heads, t, d) * 0.37) * scale
    k = jnp.cos(jnp.arange(heads * s * d, dtype=jnp.float32).reshape(heads, s, d) * 0.23)
    v = jnp.sin(jnp.arange(heads * s * d, dtype=jnp.float32).reshape(heads, s, d) * 0.11 + 1.0)
    call = pl.pallas_call(
        flash_kernel, out_shape=jax.ShapeDtypeStruct((heads, t, d), jnp.float32),
        grid=(heads, t // b, s // b),
        in_specs=[pl.BlockSpec((None, b, d), lambda h, i, j: (h, i, 0)),
                  pl.BlockSpec((None, b, d), lambda h, i, j: (h, j, 0)),
                  pl.BlockSpec((None, b, d), lambda h, i, j: (h, j, 0))],
        out_specs=pl.BlockSpec((None, b, d), lambda h, i, j: (h, i, 0)),
        scratch_shapes=[pltpu.VMEM((b, 1), jnp.float32), pltpu.VMEM((b, 1), jnp.float32),
                        pltpu.VMEM((b, d), jnp.float32)], interpret=True)
    return jax.jit(call), (q, k, v)


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def add_program():
    x = jnp.arange(4096 * 128, dtype=jnp.float32).reshape(4096, 128)
    y = jnp.ones((4096, 128), jnp.float32)
    spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
    call = pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct((4096, 128), jnp.float32),
                          grid=(512,), in_specs=[spec, spec], out_specs=spec, interpret=True)
    return jax.jit(call), (x, y)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    programs = [("BM_JaxComparable/0 matmul", matmul_program),
                ("BM_JaxComparable/1 flash", flash_program),
                ("BM_JaxComparable/2 vector add", add_program)]
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}")
    for name, make in programs:
        fn, operands = make()
        fn(*operands).block_until_ready()  # compile
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            fn(*operands).block_until_ready()
            times.append((time.perf_counter() - start) * 1000)
        print(f"{name}: {statistics.median(times):.1f} ms (median of {args.repeats})")


if __name__ == "__main__":
    main()

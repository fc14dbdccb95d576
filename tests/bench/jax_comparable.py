#!/usr/bin/env python3
"""Times, under real JAX, the three programs of `BM_JaxComparable` (kernel_bench.cpp).

Both run the makers of programs.py (this directory): the same kernels, shapes and operands. Here
each pallas_call runs with `interpret=True` inside `jax.jit` (JAX's CPU interpret mode). The
first call compiles; the figure is the median of the calls after it (steady state), in
milliseconds. Compare it with `pz_bench_kernel --benchmark_filter=JaxComparable`, whose
iterations trace and run the call every time. Needs `pip install jax`.

Usage: tests/bench/jax_comparable.py [--repeats N]
"""
import argparse
import pathlib
import statistics
import sys
import time

import jax

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import programs  # noqa: E402  (the shared programs, found next to this script)

# The makers BM_JaxComparable/0, /1 and /2 call, in that order.
PROGRAMS = [
    ("BM_JaxComparable/0 matmul", lambda: programs.matmul_program(1024, 256, interpret=True)),
    ("BM_JaxComparable/1 flash",
     lambda: programs.flash_program(2, 1024, 1024, 128, 128, interpret=True)),
    ("BM_JaxComparable/2 vector add", lambda: programs.add_program(4096, interpret=True)),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}")
    for name, make in PROGRAMS:
        call, operands = make()
        fn = jax.jit(call)
        fn(*operands).block_until_ready()  # compile
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            fn(*operands).block_until_ready()
            times.append((time.perf_counter() - start) * 1000)
        print(f"{name}: {statistics.median(times):.1f} ms (median of {args.repeats})")


if __name__ == "__main__":
    main()

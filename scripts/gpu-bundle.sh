#!/usr/bin/env bash
# Puts the release CLI, pz_bench_cuda, pz_unit_cuda (whose WarpForms tests check the sm_80 forms
# on the GPU against their PTX definitions), pz_cuda_diff (generated programs on the GPU and on
# the emulated TPU, tests/fuzz/README.md) and pz_corpus_test (JAX's own programs against real
# JAX's output, tests/corpus/README.md), with the shared libraries they need beyond the C
# library, into gpu_run/ (git-ignored), for a GPU machine that cannot install packages:
#   bash scripts/gpu-bundle.sh
#   # there: LD_LIBRARY_PATH=gpu_run gpu_run/pallas-puzzles run --backend cuda FILE.py
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build --preset release -j2 --target pallas-puzzles pz_bench_cuda pz_unit_cuda pz_cuda_diff \
  pz_corpus_test
rm -rf gpu_run && mkdir -p gpu_run
cp build/release/engine/cli/pallas-puzzles build/release/tests/bench/pz_bench_cuda \
  build/release/tests/unit/pz_unit_cuda build/release/tests/fuzz/pz_cuda_diff \
  build/release/tests/corpus/pz_corpus_test gpu_run/
for binary in gpu_run/pallas-puzzles gpu_run/pz_bench_cuda gpu_run/pz_unit_cuda \
              gpu_run/pz_cuda_diff gpu_run/pz_corpus_test; do
  ldd "$binary" | awk '/=> \// { print $3 }' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux*) ;;
      *) cp -n "$lib" gpu_run/ ;;
    esac
  done
done
ls gpu_run

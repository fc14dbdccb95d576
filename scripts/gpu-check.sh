#!/usr/bin/env bash
# Every GPU check of the CUDA backend in one unattended run, for a GPU machine that installs
# nothing (tests/cuda/README.md):
#   bash scripts/gpu-bundle.sh              # here: builds, fills gpu_run/ (git-ignored)
#   bash scripts/gpu-check.sh OUTDIR [SECONDS]   # there, from the repository root, gpu_run carried
# Stages, each writing its logs under OUTDIR and a line to OUTDIR/summary.txt:
#   env        the GPU, the driver, NVRTC, cuBLAS and compute-sanitizer found
#   forms      pz_unit_cuda's WarpForms tests: mma, ldmatrix and cp.async on the GPU as the host
#              device's sm_80 forms carry them out (their PTX definitions)
#   gpu        every course solution and golden program, `run --backend cuda --stats`, all checks pass
#   staged     the same with operands in global memory and product tiles staged in shared memory
#   wide       the solutions with 16-bit products staged again with warps of 64 x 64
#              (PZ_CUDA_WARP_TILE, emit.h), the tile the benchmark compares with 32 x 32
#   same       every kernel golden prints the same on the GPU as on the emulated TPU
#   diff       pz_cuda_diff --device gpu: generated programs, every pallas_call on the GPU and on
#              the emulated TPU, outputs compared (tests/fuzz/README.md); findings in diff.log
#   bench      pz_bench_cuda, alone on the GPU
#   memcheck   compute-sanitizer --tool memcheck on every solution and golden program
#   racecheck  compute-sanitizer --tool racecheck on the same
#   corpus     JAX's own programs (tests/corpus) on the GPU, judged against real JAX's output
# SECONDS (default 480) bounds the whole run: a stage that would start too late is skipped, and
# says so, so that what ran comes back. OUTDIR ends with three files: summary.txt, bench.txt and
# logs.tgz (every log, each stage's exit codes, env.txt, smoke.log), few enough for a machine
# that hands back a handful of files.
set -u
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-gpu_out}")
budget=${2:-480}
mkdir -p "$out/logs"
start=$SECONDS
root=$PWD
export LD_LIBRARY_PATH=$root/gpu_run:${CUDA_HOME:-/usr/local/cuda}/lib64:${LD_LIBRARY_PATH:-}
export PATH=$PATH:${CUDA_HOME:-/usr/local/cuda}/bin
export PZ_BENCH_DIR=$root/tests/bench
cli=$root/gpu_run/pallas-puzzles
jobs=${PZ_GPU_JOBS:-$(nproc)}
[ "$jobs" -gt 12 ] && jobs=12
summary=$out/summary.txt
: >"$summary"

say() { echo "$*" | tee -a "$summary"; }
left() { echo $((budget - (SECONDS - start))); }

# The programs: every course solution and the golden units' programs.
programs=$(ls solutions/*/*.py)
programs="$programs tests/golden/ir/ir_tiled_matmul.py tests/golden/ir/ir_flash_causal.py
tests/golden/ir/ir_splash_prefetch.py tests/golden/ir/ir_ragged_dot.py
tests/golden/ir/ir_dma_double_buffer.py"
# The kernel goldens CUDA also runs (tests/cuda/CMakeLists.txt leaves out the emulator-only ones).
# (and, on one line, those that print bits of the host C library's results: pz_host_libm)
emulator_only=$( (sed -n '/^set(pz_emulator_only/,/)/p' tests/cuda/CMakeLists.txt
                  grep -o '^set(pz_host_libm[^)]*)' tests/cuda/CMakeLists.txt) |
                tr ' ()' '\n\n\n' | grep -v '^set$\|^pz_emulator_only$\|^pz_host_libm$\|^$')
same=""
for f in tests/golden/kernel/*.py tests/cuda/programs/*.py; do
  [ -e "$f" ] || continue
  name=$(basename "$f" .py)
  echo "$emulator_only" | grep -qx "$name" || same="$same $f"
done

# Runs `MODE FILE` for every file on $jobs processes; one log per file, one rc line per file.
parallel_stage() {
  local stage=$1 per_file=$2 files=$3
  if [ "$(left)" -le 60 ]; then
    say "$stage: skipped, out of time"
    return
  fi
  mkdir -p "$out/logs/$stage"
  printf '%s\n' $files | xargs -P "$jobs" -I{} bash -c '
    f={}; log="'"$out/logs/$stage"'/$(echo "$f" | tr / _).log"
    timeout '"$per_file"' '"$4"' >"$log" 2>&1; echo "$? $f"' _ >"$out/logs/$stage.rc"
  local total passed skipped
  total=$(wc -l <"$out/logs/$stage.rc")
  passed=$(grep -c '^0 ' "$out/logs/$stage.rc")
  skipped=$(grep -c '^77 ' "$out/logs/$stage.rc")
  say "$stage: $passed of $total passed, $skipped skipped ($((SECONDS - start)) s so far)"
  grep -v '^0 \|^77 ' "$out/logs/$stage.rc" | sed 's/^/  FAILED (exit) /' | tee -a "$summary"
}

# --- env
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv 2>&1
  command -v nvcc && nvcc --version | tail -2
  command -v compute-sanitizer
  ls "${CUDA_HOME:-/usr/local/cuda}/lib64" 2>&1 | grep -E 'nvrtc|cublas' | head
  ldd "$cli"
} >"$out/logs/env.txt" 2>&1
say "env: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
timeout 120 "$cli" run --backend cuda --stats solutions/01_basics/02_vector_add.py \
  >"$out/logs/smoke.log" 2>&1
say "smoke (02_vector_add): exit $?"

# --- forms: the sm_80 forms the host device emulates, on the GPU itself
if [ -x gpu_run/pz_unit_cuda ]; then
  timeout 120 gpu_run/pz_unit_cuda --gtest_filter='WarpForms/*/Gpu' >"$out/logs/forms.log" 2>&1
  rc=$?
  say "forms: exit $rc ($(grep -c '^\[       OK \]' "$out/logs/forms.log") of 3 passed)"
else
  say "forms: skipped, gpu_run/pz_unit_cuda missing"
fi

# --- gpu: every program passes its checks on the GPU
parallel_stage gpu 150 "$programs" "tests/cuda/cuda_test.sh gpu $cli \$f"

# --- staged: the same with 40 KiB of shared memory to plan for, so that operands live in global
# memory and 16-bit products stage their tiles in shared memory (emit.h)
export PZ_CUDA_SHARED_BUDGET=40960
parallel_stage staged 150 "$programs" "tests/cuda/cuda_test.sh gpu $cli \$f"

# --- wide: the staged tensor-core products with warps of 64 x 64 (128 threads a block)
halves=$(grep -lE 'bfloat16|float16' $(grep -lE 'jnp\.dot|dot_general|jnp\.matmul|einsum| @ ' \
         solutions/*/*.py))
export PZ_CUDA_WARP_TILE=64x64
parallel_stage wide 150 "$halves" "tests/cuda/cuda_test.sh gpu $cli \$f"
unset PZ_CUDA_SHARED_BUDGET PZ_CUDA_WARP_TILE

# --- same: kernel goldens print the same on the GPU as on the emulated TPU
parallel_stage same 120 "$same" "tests/cuda/cuda_test.sh gpusame $cli \$f"

# --- diff: generated programs on the GPU against the emulated TPU (a minute at most)
if [ ! -x gpu_run/pz_cuda_diff ]; then
  say "diff: skipped, gpu_run/pz_cuda_diff missing"
elif [ "$(left)" -gt 150 ]; then
  timeout 75 gpu_run/pz_cuda_diff --device gpu --first 1 --count 400 --jobs "$jobs" \
    --save "$out/logs/diff" >"$out/logs/diff.log" 2>&1
  say "diff: exit $? ($(grep -m1 -o '[0-9]* programs, [0-9]* s' "$out/logs/diff.log"))"
  grep -E '^  [a-z-]+ +[0-9]+$|finding' "$out/logs/diff.log" | tee -a "$summary"
else
  say "diff: skipped, out of time"
fi

# --- bench: alone on the GPU
if [ "$(left)" -gt 90 ]; then
  timeout $(($(left) - 30)) gpu_run/pz_bench_cuda >"$out/bench.txt" 2>&1
  say "bench: exit $?"
  sed 's/^/  /' "$out/bench.txt" | tee -a "$summary"
else
  say "bench: skipped, out of time"
fi

# --- sanitizers: every program, no error
for tool in memcheck racecheck; do
  if command -v compute-sanitizer >/dev/null; then
    per_file=$(($(left) - 15)); [ $per_file -gt 240 ] && per_file=240
    parallel_stage "$tool" $per_file "$programs" \
      "compute-sanitizer --tool $tool --error-exitcode 99 $cli run --backend cuda \$f"
  else
    say "$tool: skipped, compute-sanitizer not found"
  fi
done
# --- corpus: JAX's documentation examples and TPU kernels against real JAX's output (last: the
# issue's own checks come first)
if [ ! -x gpu_run/pz_corpus_test ]; then
  say "corpus: skipped, gpu_run/pz_corpus_test missing"
elif [ "$(left)" -gt 60 ]; then
  limit=$(($(left) - 20)); [ $limit -gt 120 ] && limit=120
  PZ_CORPUS_CLI=$cli PZ_CORPUS_ROOT=$root/tests/corpus timeout $limit gpu_run/pz_corpus_test \
    --gtest_filter='corpus_gpu.*' >"$out/logs/corpus.log" 2>&1
  rc=$?
  count() { grep -o "^\[  $1 *\] [0-9]* test" "$out/logs/corpus.log" | grep -o '[0-9]*' || echo 0; }
  say "corpus: exit $rc ($(count PASSED) passed, $(count SKIPPED) skipped, $(count FAILED) failed)"
  grep '^\[  FAILED  \] corpus_gpu\.[a-z_]* ' "$out/logs/corpus.log" | sed 's/^/  /' |
    tee -a "$summary"
else
  say "corpus: skipped, out of time"
fi

say "total: $((SECONDS - start)) s"
# One archive of the logs (a machine that hands back files may limit how many).
tar czf "$out/logs.tgz" -C "$out" logs && rm -rf "$out/logs"

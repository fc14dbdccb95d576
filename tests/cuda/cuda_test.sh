#!/usr/bin/env bash
# One test of the CUDA backend on one program (see README.md here):
#   cuda_test.sh host CLI FILE      the program runs with --backend cuda on the host device
#                                   (the generated CUDA compiled by the C++ compiler, run on
#                                   threads); every check must pass
#   cuda_test.sh host_sm80 CLI FILE the same with the host device running the forms of sm_80
#                                   GPUs (tensor cores, ldmatrix, asynchronous copies) lane by
#                                   lane, with the thread counts a GPU launches
#   cuda_test.sh gpu CLI FILE       the same on a GPU; skipped (77) where there is none
#   cuda_test.sh nvcc CLI FILE      the generated unit compiles with `nvcc -cubin` for sm_80 and
#                                   sm_90 (or the archs PZ_NVCC_ARCHS lists) without a warning;
#                                   skipped (77) without nvcc
#   cuda_test.sh golden CLI FILE GOLDEN   --emit-cuda prints GOLDEN exactly (PZ_UPDATE_GOLDEN=1
#                                   rewrites it)
#   cuda_test.sh error CLI FILE     fails on the host device at the line marked `# cuda-error: TEXT`
#                                   (or `# cuda-fault: TEXT`: as the kernel runs; --emit-cuda
#                                   warns there)
#   cuda_test.sh warning CLI FILE   runs on the host device (exit 0) with one warning per line
#                                   marked `# cuda-warning: TEXT`, there, and no other; the
#                                   emulated TPU runs it without a warning; --emit-cuda warns
#                                   as the host device does
#   cuda_test.sh nogpu CLI FILE     without a CUDA driver: exit 70 and the backend's message
#   cuda_test.sh same CLI FILE      stdout is the same on the emulated TPU and on the host device;
#                                   a program the emulator rejects fails at the same place
#   cuda_test.sh same_stats CLI FILE the same with --stats on the host device (its timed launches
#                                   must not change what the program prints)
#   cuda_test.sh same_sm80 CLI FILE the same with the host device running the forms of sm_80
#   cuda_test.sh gpusame CLI FILE   the same on a GPU; skipped (77) where there is none
set -u
mode=$1 cli=$2 file=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A run that passed: exit 0, no FAILED line, at least one PASSED line when it checks anything.
expect_pass() {
  local rc=$1 out=$2
  if [ "$rc" -ne 0 ] || grep -q '^FAILED' "$out"; then
    echo "--- $file failed (exit $rc) with --backend cuda:"
    cat "$out"
    exit 1
  fi
}

case $mode in
  host|host_sm80)
    device=host
    [ "$mode" = host_sm80 ] && device=host-sm80
    PZ_CUDA_DEVICE=$device "$cli" run --backend cuda "$file" >"$tmp/out" 2>&1
    expect_pass $? "$tmp/out"
    ;;
  gpu)
    "$cli" run --backend cuda --stats "$file" >"$tmp/out" 2>&1
    rc=$?
    if [ $rc -eq 70 ] && grep -q 'needs an NVIDIA GPU\|needs NVRTC\|no CUDA' "$tmp/out"; then
      echo "skipped: $(head -1 "$tmp/out")"
      exit 77
    fi
    expect_pass $rc "$tmp/out"
    cat "$tmp/out"
    ;;
  nvcc)
    if ! command -v nvcc >/dev/null; then
      echo "skipped: nvcc is not on the PATH, so the generated CUDA is not compile-checked"
      exit 77
    fi
    "$cli" run --emit-cuda "$file" >"$tmp/unit.cu" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
    for arch in ${PZ_NVCC_ARCHS:-sm_80 sm_90}; do
      if ! nvcc -cubin -arch=$arch -o "$tmp/unit.$arch.cubin" "$tmp/unit.cu" >"$tmp/nvcc" 2>&1 ||
         grep -q 'warning' "$tmp/nvcc"; then
        echo "--- nvcc -arch=$arch on the unit of $file:"
        cat "$tmp/nvcc"
        exit 1
      fi
    done
    ;;
  golden)
    golden=$4
    "$cli" run --emit-cuda "$file" >"$tmp/unit.cu" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
    if [ "${PZ_UPDATE_GOLDEN:-}" = 1 ]; then
      cp "$tmp/unit.cu" "$golden"
      echo "updated $golden"
    elif ! diff -u "$golden" "$tmp/unit.cu"; then
      echo "--- the CUDA emitted for $file differs from $golden (PZ_UPDATE_GOLDEN=1 rewrites it)"
      exit 1
    fi
    ;;
  same|same_stats|same_sm80|gpusame)
    if [ "$mode" = gpusame ] && [ ! -e /dev/nvidia0 ] &&
       ! ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1'; then
      echo "skipped: no CUDA driver on this machine"
      exit 77
    fi
    "$cli" run "$file" >"$tmp/tpu" 2>"$tmp/tpu.err"
    rc_tpu=$?
    if [ "$mode" = same ]; then
      PZ_CUDA_DEVICE=host "$cli" run --backend cuda "$file" >"$tmp/cuda" 2>"$tmp/cuda.err"
    elif [ "$mode" = same_stats ]; then
      # Timed: the timing launches run after the outputs are down.
      PZ_CUDA_DEVICE=host "$cli" run --backend cuda --stats "$file" >"$tmp/cuda" 2>"$tmp/cuda.err"
    elif [ "$mode" = same_sm80 ]; then
      PZ_CUDA_DEVICE=host-sm80 "$cli" run --backend cuda "$file" >"$tmp/cuda" 2>"$tmp/cuda.err"
    else
      "$cli" run --backend cuda "$file" >"$tmp/cuda" 2>"$tmp/cuda.err"
    fi
    rc_cuda=$?
    if [ "$mode" = gpusame ] && [ $rc_cuda -eq 70 ] &&
       grep -q 'needs an NVIDIA GPU\|needs NVRTC\|no CUDA' "$tmp/cuda.err"; then
      echo "skipped: $(head -1 "$tmp/cuda.err")"
      exit 77
    fi
    if [ $rc_tpu -ne 0 ]; then
      # A program the emulator rejects: the CUDA backend must reject it at the same place.
      where_tpu=$(grep -m1 -o '^[^ ]*:[0-9]*:[0-9]*: error' "$tmp/tpu.err")
      where_cuda=$(grep -m1 -o '^[^ ]*:[0-9]*:[0-9]*: error' "$tmp/cuda.err")
      if [ $rc_cuda -ne $rc_tpu ] || [ -z "$where_tpu" ] || [ "$where_tpu" != "$where_cuda" ]; then
        echo "--- $file: the emulated TPU fails (exit $rc_tpu), the CUDA backend exits $rc_cuda:"
        cat "$tmp/tpu.err" "$tmp/cuda.err"
        exit 1
      fi
      exit 0
    fi
    if [ $rc_cuda -ne 0 ] || ! diff -u "$tmp/tpu" "$tmp/cuda"; then
      echo "--- $file: the CUDA backend (exit $rc_cuda) differs from the emulated TPU"
      cat "$tmp/cuda.err"
      exit 1
    fi
    ;;
  error)
    # The program fails on the CUDA backend (exit 70) at the line marked `# cuda-error: TEXT`,
    # with TEXT in the message. `# cuda-fault: TEXT` marks a failure of the kernel as it runs
    # on the device instead: --emit-cuda then writes the unit and warns at that line.
    marker='# cuda-error: '
    grep -q '# cuda-fault: ' "$file" && marker='# cuda-fault: '
    line=$(grep -n "$marker" "$file" | head -1 | cut -d: -f1)
    text=$(grep -m1 -o "$marker.*" "$file" | sed "s/$marker//")
    PZ_CUDA_DEVICE=host "$cli" run --backend cuda "$file" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 70 ] || ! grep -q "^$file:$line:[0-9]*: error: .*$text" "$tmp/err"; then
      echo "--- $file: expected exit 70 and an error at line $line with: $text; got exit $rc:"
      cat "$tmp/err"
      exit 1
    fi
    # --emit-cuda (no device) stops at the same error: no unit can be written for the call; or,
    # for a fault, writes it and the emulated run warns there of what the device will do.
    "$cli" run --emit-cuda "$file" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$marker" = '# cuda-fault: ' ]; then
      if [ $rc -ne 0 ] || ! grep -q "^$file:$line:[0-9]*: warning: " "$tmp/err"; then
        echo "--- $file: --emit-cuda should exit 0 with a warning at line $line; got exit $rc:"
        cat "$tmp/err"
        exit 1
      fi
    elif [ $rc -ne 70 ] || ! grep -q "^$file:$line:[0-9]*: error: .*$text" "$tmp/err"; then
      echo "--- $file: --emit-cuda should exit 70 at line $line with: $text; got exit $rc:"
      cat "$tmp/err"
      exit 1
    fi
    ;;
  warning)
    "$cli" run "$file" >"$tmp/out" 2>"$tmp/tpu.err"
    rc=$?
    if [ $rc -ne 0 ] || grep -q 'warning:' "$tmp/tpu.err"; then
      echo "--- $file: the emulated TPU should run it without a warning; got exit $rc:"
      cat "$tmp/tpu.err"
      exit 1
    fi
    PZ_CUDA_DEVICE=host "$cli" run --backend cuda "$file" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    expected=$(grep -c '# cuda-warning: ' "$file")
    got=$(grep -c '^[^ ]*:[0-9]*:[0-9]*: warning: ' "$tmp/err")
    if [ $rc -ne 0 ] || [ "$got" -ne "$expected" ]; then
      echo "--- $file: expected exit 0 and $expected warnings on CUDA; got exit $rc, $got:"
      cat "$tmp/err"
      exit 1
    fi
    grep -n '# cuda-warning: ' "$file" | while IFS= read -r marked; do
      line=${marked%%:*}
      text=${marked#*# cuda-warning: }
      if ! grep -qF "$file:$line:" "$tmp/err" ||
         ! grep "^$file:$line:[0-9]*: warning: " "$tmp/err" | grep -qF "$text"; then
        echo "--- $file: no warning at line $line with: $text"
        cat "$tmp/err"
        exit 1
      fi
    done || exit 1
    # --emit-cuda (the calls run on the emulator) warns of the same, at the same lines.
    "$cli" run --emit-cuda "$file" >"$tmp/unit.cu" 2>"$tmp/emit.err"
    rc=$?
    grep '^[^ ]*:[0-9]*:[0-9]*: warning: ' "$tmp/err" >"$tmp/warned"
    grep '^[^ ]*:[0-9]*:[0-9]*: warning: ' "$tmp/emit.err" >"$tmp/emit.warned"
    if [ $rc -ne 0 ] || ! diff -u "$tmp/warned" "$tmp/emit.warned"; then
      echo "--- $file: --emit-cuda (exit $rc) should warn as --backend cuda does:"
      cat "$tmp/emit.err"
      exit 1
    fi
    ;;
  nogpu)
    # Where the machine has no CUDA driver, --backend cuda says so and exits 70.
    if [ -e /dev/nvidia0 ] || ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1'; then
      echo "skipped: this machine has a CUDA driver"
      exit 77
    fi
    "$cli" run --backend cuda "$file" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    expected="pallas-puzzles run: the CUDA backend needs an NVIDIA GPU and its driver (libcuda.so.1 was not found)"
    if [ $rc -ne 70 ] || [ "$(cat "$tmp/err")" != "$expected" ]; then
      echo "--- expected exit 70 and: $expected; got exit $rc:"
      cat "$tmp/err"
      exit 1
    fi
    ;;
  *)
    echo "unknown mode $mode"; exit 2 ;;
esac

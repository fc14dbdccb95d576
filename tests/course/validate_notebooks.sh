#!/usr/bin/env bash
# Exports the course's notebooks (starters and solutions) with the built binary into a scratch
# directory and validates them against the nbformat schema (tests/tools/validate_notebooks.py).
# Exits 77, which ctest reports as skipped, when python3 or its nbformat module is missing.
# usage: validate_notebooks.sh PALLAS_PUZZLES COURSE_ROOT SCRATCH_DIR
set -euo pipefail
bin="$1" root="$2" out="$3"
if ! command -v python3 >/dev/null || ! python3 -c "import nbformat" 2>/dev/null; then
  echo "SKIPPED: python3 with the nbformat module is needed (pip install nbformat);" \
    "the exported notebooks were not validated"
  exit 77
fi
rm -rf "$out"
export PALLAS_PUZZLES_COURSE="$root"
"$bin" export-notebooks "$out"
"$bin" export-notebooks --solutions "$out/solutions"
python3 "$root/tests/tools/validate_notebooks.py" "$out"

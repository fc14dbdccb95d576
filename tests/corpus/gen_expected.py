#!/usr/bin/env python3
"""Regenerates tests/corpus/expected/NAME.out: the stdout of each corpus program under real JAX.

Every tests/corpus/programs/NAME.py is run with the python3 this script runs under (it needs the
jax version the programs' headers name; 0.10.2) on the CPU: cwd is programs/, JAX_PLATFORMS=cpu,
no arguments. A program that fails under real JAX is an error here: the corpus holds only
programs real JAX runs. Usage:

  python3 tests/corpus/gen_expected.py            # all programs
  python3 tests/corpus/gen_expected.py NAME ...   # some (NAME without .py)
"""

import os
import pathlib
import subprocess
import sys
import time

import jax

HERE = pathlib.Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
EXPECTED = HERE / "expected"
JAX_VERSION = "0.10.2"


def main():
  if jax.__version__ != JAX_VERSION:
    sys.exit(f"gen_expected.py: needs jax {JAX_VERSION}, this python has {jax.__version__}")
  names = sys.argv[1:] or sorted(p.stem for p in PROGRAMS.glob("*.py"))
  env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONHASHSEED="0")
  env.pop("PYTHONPATH", None)
  EXPECTED.mkdir(exist_ok=True)
  failed = []
  for name in names:
    start = time.monotonic()
    run = subprocess.run([sys.executable, f"{name}.py"], cwd=PROGRAMS, env=env,
                         capture_output=True, text=True, timeout=600)
    seconds = time.monotonic() - start
    if run.returncode != 0:
      failed.append(name)
      print(f"FAILED {name} (exit {run.returncode}, {seconds:.1f} s):\n{run.stderr[-3000:]}")
      continue
    (EXPECTED / f"{name}.out").write_text(run.stdout)
    lines = run.stdout.count("\n")
    print(f"wrote expected/{name}.out ({lines} lines, {seconds:.1f} s)")
  if failed:
    sys.exit(f"{len(failed)} program(s) failed under real JAX: {' '.join(failed)}")


if __name__ == "__main__":
  main()

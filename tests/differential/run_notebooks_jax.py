#!/usr/bin/env python3
"""Runs the exported solution notebooks under real JAX (CPU), the way Colab would.

Each notebook (default: every `notebooks/solutions/*.ipynb`) runs in a fresh Python process in a
fresh temporary directory: every code cell in order, in one namespace, as a notebook kernel
would (its first cell writes `pallas_check.py` there). A notebook passes when every cell runs,
at least one `PASSED` line is printed and no `FAILED` line.

Usage, from the repository root:
    python3 tests/differential/run_notebooks_jax.py [NOTEBOOK...] [--timeout S]
Exit status: 0 when every notebook passes, 1 otherwise.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_cells(path):
    """In the child process: execute the notebook's code cells in the working directory."""
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    sys.path.insert(0, os.getcwd())  # a notebook kernel imports from its directory
    namespace = {"__name__": "__main__"}
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    for i, cell in enumerate(cells):
        source = "".join(cell["source"])
        print(f"--- cell {cell['id']}", flush=True)
        exec(compile(source, f"<{os.path.basename(path)} cell {cell['id']}>", "exec"), namespace)
    print(f"--- ran {len(cells)} code cells", flush=True)


def run_notebook(path, timeout):
    env = dict(os.environ)
    env.setdefault("JAX_PLATFORMS", "cpu")
    env.pop("PYTHONPATH", None)  # only what the notebook itself writes
    start = time.time()
    with tempfile.TemporaryDirectory() as work:
        try:
            proc = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--child", os.path.abspath(path)],
                cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
            out, rc = proc.stdout + proc.stderr, proc.returncode
        except subprocess.TimeoutExpired:
            out, rc = f"timed out after {timeout} s", -1
    lines = out.splitlines()
    passed = sum(1 for line in lines if line.startswith("PASSED"))
    failed = sum(1 for line in lines if line.startswith("FAILED"))
    cells = sum(1 for line in lines if line.startswith("--- cell "))
    return passed, failed, cells, rc, time.time() - start, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_cells(args.child)
        return 0
    paths = args.notebooks or sorted(glob.glob(os.path.join(ROOT, "notebooks", "solutions",
                                                           "*.ipynb")))
    if not paths:
        print("no notebooks; run ./update_notebooks.sh first")
        return 1
    bad = 0
    total_passed = 0
    for path in paths:
        passed, failed, cells, rc, seconds, out = run_notebook(path, args.timeout)
        ok = rc == 0 and passed > 0 and failed == 0
        bad += not ok
        total_passed += passed
        print(f"{'ok  ' if ok else 'FAIL'}  {os.path.relpath(path, ROOT)}: {cells} code cells, "
              f"{passed} PASSED, {failed} FAILED, exit {rc}, {seconds:.1f} s", flush=True)
        if not ok:
            for line in out.splitlines()[-25:]:
                print("      " + line)
    print(f"{len(paths) - bad} notebooks passed, {bad} failed ({total_passed} checks passed)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

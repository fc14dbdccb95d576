#!/usr/bin/env python3
"""Runs every course solution under real JAX (CPU, interpret=True) and counts its checks.

Real JAX is the judge of the course's kernels: each `solutions/<chapter>/<puzzle>.py` must run to
the end under `python3` with `PYTHONPATH=puzzles` (for the `pallas_check` module) and print only
PASSED lines. With `--starters`, the starters under `puzzles/` are run instead, and each must
print at least one FAILED line or exit with an error.

Usage, from the repository root:
    python3 tests/differential/run_solutions_jax.py [--starters] [--only PREFIX] [--jobs N]
                                                    [--timeout S]
Exit status: 0 when every file behaves, 1 otherwise.
"""
import argparse
import concurrent.futures
import glob
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_file(path, timeout):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "puzzles") + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("JAX_PLATFORMS", "cpu")
    start = time.time()
    try:
        proc = subprocess.run([sys.executable, path], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=timeout)
        out, rc = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired:
        out, rc = f"timed out after {timeout} s", -1
    lines = out.splitlines()
    passed = sum(1 for line in lines if line.startswith("PASSED"))
    failed = sum(1 for line in lines if line.startswith("FAILED"))
    return passed, failed, rc, time.time() - start, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starters", action="store_true",
                        help="run the starters and require each to fail")
    parser.add_argument("--only", default="", help="only files whose chapter/name starts with this")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per file")
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2),
                        help="files run at once (default: half the CPUs)")
    args = parser.parse_args()

    folder = "puzzles" if args.starters else "solutions"
    files = sorted(glob.glob(os.path.join(ROOT, folder, "*", "*.py")))
    files = [f for f in files if os.path.relpath(f, os.path.join(ROOT, folder)).startswith(args.only)]
    if not files:
        print(f"no files under {folder}/ match {args.only!r}")
        return 1

    import jax  # only to report the version the results belong to

    print(f"JAX {jax.__version__}, {folder}/, {len(files)} files")
    print(f"{'file':<52} {'PASSED':>6} {'FAILED':>6} {'exit':>5} {'time':>7}  verdict")
    good = bad = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda path: run_file(path, args.timeout), files))
    for path, (passed, failed, rc, seconds, out) in zip(files, results):
        name = os.path.relpath(path, os.path.join(ROOT, folder))
        if args.starters:
            ok = failed > 0 or rc != 0
        else:
            ok = rc == 0 and failed == 0 and passed > 0
        good += ok
        bad += not ok
        verdict = "ok" if ok else "WRONG"
        print(f"{name:<52} {passed:>6} {failed:>6} {rc:>5} {seconds:>6.1f}s  {verdict}")
        if not ok:
            tail = "\n".join(out.strip().splitlines()[-15:])
            print("    " + tail.replace("\n", "\n    "))
    what = "starters fail" if args.starters else "solutions pass"
    print(f"{good} passed, {bad} failed ({what} under real JAX)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Checks that CPython agrees with the golden corpus.

Runs every non-`fail_` program under tests/golden/ with `python3` (`warn_` programs too) and
compares its stdout with the program's `# expect:` comments (format: tests/golden/README.md; this
parser mirrors the one in tests/golden/golden_test.cpp). A program run with `--dump-ir` (the
`ir/` goldens) expects the engine's IR dump first, which Python does not print: there Python's
output must be the end of the expected output. Prints each mismatch and
`N passed, N failed` at the end; exits 1 on any mismatch. Standard library only.

Usage: tests/tools/python_agrees.py [--python PYTHON] [FILE_OR_DIR ...]
"""
import argparse
import pathlib
import subprocess
import sys

EXPECT = "# expect:"
ERROR = "# error:"
WARNING = "# warning:"
ARGS = "# args:"
TIMEOUT_S = 30  # the golden runner's limit too


def expected_stdout(text):
    """The stdout a golden program promises: its `# expect:` texts, one line each."""
    out = []
    for number, line in enumerate(text.split("\n")):
        if number == 0 and line.startswith(ARGS):
            continue
        expect_at = line.find(EXPECT)
        others = [at for at in (line.find(ERROR), line.find(WARNING)) if at >= 0]
        if expect_at < 0 or any(at < expect_at for at in others):
            continue
        rest = line[expect_at + len(EXPECT):]
        out.append(rest[1:] if rest.startswith(" ") else rest)
    return "".join(t + "\n" for t in out)


def programs(paths):
    """The golden programs among `paths`: not the modules they import (`_` names, see README)."""
    for path in paths:
        if not path.is_dir():
            yield path
            continue
        for program in sorted(path.rglob("*.py")):
            if not any(part.startswith("_") for part in program.relative_to(path).parts):
                yield program


def run(python, path):
    """(stdout, stderr, problem) of one program; problem is "" when it exited normally."""
    try:
        done = subprocess.run([python, "-B", path.name], cwd=path.parent, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "", "", f"still running after {TIMEOUT_S} s"
    return done.stdout, done.stderr, f"exit code {done.returncode}" if done.returncode else ""


def main():
    golden = pathlib.Path(__file__).resolve().parent.parent / "golden"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default="python3", help="interpreter to run (default python3)")
    parser.add_argument("paths", nargs="*", type=pathlib.Path, default=[golden],
                        help="golden files or folders (default: all of tests/golden)")
    args = parser.parse_args()

    passed = failed = 0
    for path in programs(args.paths):
        if path.name.startswith("fail_"):
            continue
        text = path.read_text(encoding="utf-8")
        want = expected_stdout(text)
        got, stderr, problem = run(args.python, path)
        first = text.split("\n", 1)[0]
        if first.startswith(ARGS) and "--dump-ir" in first.split() and got and want.endswith(got):
            want = got  # the dump is the engine's own; the results must agree
        if got == want and not problem:
            passed += 1
            continue
        failed += 1
        print(f"FAIL {path}: {problem or 'stdout differs'}")
        want_lines, got_lines = want.splitlines(), got.splitlines()
        for i in range(max(len(want_lines), len(got_lines))):
            w = want_lines[i] if i < len(want_lines) else "(end)"
            g = got_lines[i] if i < len(got_lines) else "(end)"
            if w != g:
                print(f"  output line {i + 1}: expected {w!r}, python printed {g!r}")
                break
        if stderr:
            print("  " + stderr.strip().replace("\n", "\n  "))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

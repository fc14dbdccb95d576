#!/usr/bin/env python3
"""Fills the `# expect:` comments of golden programs from what CPython prints.

Runs every given non-`fail_` program (folders: every `*.py` below them) under `python3` and
rewrites its `# expect:` comments from the real stdout, with the rule of the C++ runner's update
mode (tests/golden/README.md): if the program printed as many lines as there are `# expect:`
comments, their texts are replaced in place; otherwise every `# expect:` comment is removed and
the whole output is appended as standalone `# expect:` lines at the end of the file. `# error:`
and `# warning:` comments are left alone. A program that exits with an error or runs too long is
reported and its file is not touched. Prints `updated PATH` for each file it changes; exits 1 if
any program failed. Standard library only.

This is how golden programs whose expectations come from real JAX (e.g. tests/golden/kernel/,
which the engine cannot run yet) are filled. Review the diff: it records what python3 printed.

Usage: tests/tools/fill_expect_from_python.py [--python PYTHON] FILE_OR_DIR...
"""
import argparse
import pathlib
import subprocess
import sys

EXPECT = "# expect:"
MARKERS = ("# expect:", "# error:", "# warning:")
ARGS = "# args:"
TIMEOUT_S = 120  # JAX start-up plus interpret-mode kernels; the golden runner's 30 s is per engine


def expect_markers(lines):
    """(line index, column, standalone) of each `# expect:` comment, in file order.

    A line holds at most one marker: whichever of expect/error/warning comes first (as in
    golden_test.cpp's parser)."""
    found = []
    for number, line in enumerate(lines):
        if number == 0 and line.startswith(ARGS):
            continue
        positions = [(line.find(m), m) for m in MARKERS if line.find(m) >= 0]
        if not positions:
            continue
        column, marker = min(positions)
        if marker != EXPECT:
            continue
        standalone = line[:column].strip(" \t") == ""
        found.append((number, column, standalone))
    return found


def with_text(text):
    return EXPECT + (" " + text if text else "")


def rewrite(text, out_lines):
    """The file's text with its `# expect:` comments taken from `out_lines`."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the text ended with a newline
    markers = expect_markers(lines)
    in_place = len(markers) == len(out_lines)
    drop = set()
    for i, (number, column, standalone) in enumerate(markers):
        line = lines[number]
        if in_place:
            lines[number] = line[:column] + with_text(out_lines[i])
        elif standalone:
            drop.add(number)
        else:
            lines[number] = line[:column].rstrip(" \t")
    kept = [line for number, line in enumerate(lines) if number not in drop]
    if not in_place:
        kept += [with_text(out) for out in out_lines]
    return "".join(line + "\n" for line in kept)


def programs(paths):
    for path in paths:
        yield from sorted(path.rglob("*.py")) if path.is_dir() else [path]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default="python3", help="interpreter to run (default python3)")
    parser.add_argument("paths", nargs="+", type=pathlib.Path, help="golden files or folders")
    args = parser.parse_args()

    failed = 0
    for path in programs(args.paths):
        if path.name.startswith("fail_"):
            continue
        try:
            done = subprocess.run([args.python, path.name], cwd=path.parent,
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            failed += 1
            print(f"FAIL {path}: still running after {TIMEOUT_S} s (file not changed)")
            continue
        if done.returncode != 0:
            failed += 1
            print(f"FAIL {path}: exit code {done.returncode} (file not changed)")
            if done.stderr:
                print("  " + done.stderr.strip().replace("\n", "\n  "))
            continue
        text = path.read_text(encoding="utf-8")
        out_lines = done.stdout.split("\n")
        if out_lines[-1] == "":
            out_lines.pop()  # the output ended with a newline (or was empty)
        updated = rewrite(text, out_lines)
        if updated != text:
            path.write_text(updated, encoding="utf-8")
            print(f"updated {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Validates Jupyter notebooks against the nbformat schema (the exported course notebooks).

Usage: validate_notebooks.py NOTEBOOK_OR_DIR...
Every `.ipynb` given (or found under a directory given) must be nbformat 4.5 and pass
`nbformat.validate`. Exit status: 0 when all are valid, 1 when one is not, 77 (ctest's skip code)
when the `nbformat` module is not installed (`pip install nbformat`).
"""
import glob
import os
import sys

try:
    import nbformat
except ImportError:
    print("SKIPPED: the nbformat module is not installed (pip install nbformat); "
          "exported notebooks were not validated")
    sys.exit(77)


def notebooks(paths):
    for path in paths:
        if os.path.isdir(path):
            yield from sorted(glob.glob(os.path.join(path, "**", "*.ipynb"), recursive=True))
        else:
            yield path


def main():
    bad = 0
    count = 0
    for path in notebooks(sys.argv[1:]):
        count += 1
        try:
            nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
            if (nb.nbformat, nb.nbformat_minor) != (4, 5):
                raise ValueError(f"nbformat {nb.nbformat}.{nb.nbformat_minor}, expected 4.5")
            nbformat.validate(nb)
            attachments = sum(len(c.get("attachments", {})) for c in nb.cells)
            print(f"valid  {path}: {len(nb.cells)} cells, {attachments} attachments")
        except Exception as e:  # any schema or read problem fails the file
            bad += 1
            print(f"INVALID {path}: {e}")
    if count == 0:
        print("no notebooks found")
        return 1
    print(f"{count - bad} valid, {bad} invalid (nbformat {nbformat.__version__})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

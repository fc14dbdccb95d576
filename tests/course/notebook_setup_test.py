#!/usr/bin/env python3
"""Runs the setup cell of an exported notebook as Colab and plain Jupyter would, without the network.

pip is replaced by a recorder and the installed JAX release is faked, so that every branch of the
cell runs: the pinned release already there, another release (Colab replaces it, Jupyter gets a
note), no JAX at all, and JAX already imported (Colab must restart). Each run happens in a
temporary directory of its own, removed afterwards.

Usage: notebook_setup_test.py NOTEBOOK.ipynb
Exit status: 0 when every case behaves, 1 otherwise, 77 (skipped) when the notebook pins no JAX.
"""
import contextlib
import importlib.metadata
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import types


def setup_source(path):
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    return "".join(cells[0]["source"])


def run_setup(source, *, installed, colab, jax_imported):
    """The pip commands the cell ran, what it printed, and whether it wrote pallas_check.py."""
    calls = []
    real_version, real_run = importlib.metadata.version, subprocess.run
    saved_modules = {name: sys.modules.get(name) for name in ("google.colab", "jax")}

    def version(name):
        if name != "jax":
            return real_version(name)
        if installed is None:
            raise importlib.metadata.PackageNotFoundError(name)
        return installed

    def fake_run(args, **kwargs):
        calls.append(list(args[1:]))
        return subprocess.CompletedProcess(args, 0)

    importlib.metadata.version = version
    subprocess.run = fake_run
    for name, wanted in (("google.colab", colab), ("jax", jax_imported)):
        if wanted:
            sys.modules[name] = types.ModuleType(name)
        else:
            sys.modules.pop(name, None)
    out = io.StringIO()
    cwd = os.getcwd()
    try:
        with tempfile.TemporaryDirectory() as work:
            os.chdir(work)
            try:
                with contextlib.redirect_stdout(out):
                    exec(compile(source, "<setup cell>", "exec"), {"__name__": "__main__"})
                wrote = os.path.isfile("pallas_check.py")
            finally:
                os.chdir(cwd)
    finally:
        importlib.metadata.version, subprocess.run = real_version, real_run
        for name, module in saved_modules.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return calls, out.getvalue(), wrote


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 64
    source = setup_source(sys.argv[1])
    pinned = re.search(r'^JAX_VERSION = "([^"]+)"$', source, re.M)
    if not pinned:
        print("skipped: the notebook's setup cell pins no JAX release")
        return 77
    v = pinned.group(1)
    install = [["-m", "pip", "install", "-q", f"jax=={v}"]]
    cases = [
        # (what, installed, colab, jax imported, pip calls, printed text or None for nothing)
        ("Jupyter with the pinned release", v, False, False, [], None),
        ("Jupyter with another release", "0.4.1", False, False, [],
         f"verified against JAX {v} and this kernel has 0.4.1"),
        ("Jupyter without JAX", None, False, False, install, None),
        ("Colab with its own release", "0.4.1", True, False, install, None),
        ("Colab with its release already imported", "0.4.1", True, True, install,
         "restart the runtime"),
        ("Colab with the pinned release", v, True, False, [], None),
    ]
    failed = 0
    for what, installed, colab, imported, want_calls, want_text in cases:
        calls, printed, wrote = run_setup(source, installed=installed, colab=colab,
                                          jax_imported=imported)
        problems = []
        if calls != want_calls:
            problems.append(f"pip calls {calls}, expected {want_calls}")
        if want_text is None and printed:
            problems.append(f"printed {printed!r}, expected nothing")
        if want_text is not None and want_text not in printed:
            problems.append(f"printed {printed!r}, expected {want_text!r} in it")
        if not wrote:
            problems.append("pallas_check.py was not written")
        failed += bool(problems)
        print(f"{'FAIL' if problems else 'ok  '}  {what}" + "".join(f"\n      {p}" for p in problems))
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

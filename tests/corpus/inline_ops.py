#!/usr/bin/env python3
"""Refreshes the inlined kernel sources of the corpus programs built from JAX's Pallas TPU ops.

Each `programs/ops_*.py` file is three parts: a header comment (written by hand), the source of
one or more modules of the installed package jax/experimental/pallas/ops/tpu/ (written here), and
a driver section from the line `# --- driver (written for this corpus) ---` on (written by hand).
This script rewrites the middle part from the installed jax package and keeps the other two.

The modules are concatenated in dependency order, unchanged except for what makes one file out
of several modules:
  * an import of a sibling module (`from jax.experimental.pallas.ops.tpu.X import Y as Z`) is
    dropped, and the qualified references to it (`Z.name`) become plain names (`name`);
  * `from __future__ import annotations` appears once, at the top of the inlined part.

Usage: python3 tests/corpus/inline_ops.py [NAME ...]    (default: every ops_* program)
"""

import os
import pathlib
import re
import sys

import jax

HERE = pathlib.Path(__file__).resolve().parent
OPS = pathlib.Path(jax.__file__).parent / "experimental" / "pallas" / "ops" / "tpu"
DRIVER_MARK = "# --- driver (written for this corpus) ---"
BEGIN_MARK = "# --- inlined source (tests/corpus/inline_ops.py writes this part) ---"

# program name -> modules under ops/tpu, dependencies first
PROGRAMS = {
    "ops_example_kernel": ["example_kernel.py"],
    "ops_matmul": ["matmul.py"],
    "ops_flash_attention_fwd": ["flash_attention.py"],
    "ops_flash_attention_bwd": ["flash_attention.py"],
    "ops_megablox_gmm": ["megablox/common.py", "megablox/gmm.py"],
    "ops_megablox_tgmm": ["megablox/common.py", "megablox/gmm.py"],
    "ops_paged_attention": ["paged_attention/quantization_utils.py",
                            "paged_attention/paged_attention_kernel.py"],
    "ops_splash_attention_fwd": ["splash_attention/splash_attention_mask.py",
                                 "splash_attention/splash_attention_mask_info.py",
                                 "splash_attention/splash_attention_kernel.py"],
    "ops_splash_attention_bwd": ["splash_attention/splash_attention_mask.py",
                                 "splash_attention/splash_attention_mask_info.py",
                                 "splash_attention/splash_attention_kernel.py"],
    "ops_random_philox": ["random/prng_utils.py", "random/philox.py"],
}

SIBLING_IMPORT = re.compile(
    r"^from jax\.experimental\.pallas\.ops\.tpu\.[\w.]+ import (\w+)(?: as (\w+))?\n", re.M)
FUTURE = "from __future__ import annotations\n"


def inlined(modules):
  texts = [(m, (OPS / m).read_text()) for m in modules]
  aliases = set()
  for _, text in texts:
    for match in SIBLING_IMPORT.finditer(text):
      aliases.add(match.group(2) or match.group(1))
  future = any(FUTURE in text for _, text in texts)
  parts = [BEGIN_MARK + "\n"]
  if future:
    parts.append(FUTURE)
  for module, text in texts:
    text = SIBLING_IMPORT.sub("", text).replace(FUTURE, "")
    for alias in sorted(aliases):
      text = re.sub(rf"(?<![\w.]){alias}\.(?=[A-Za-z_])", "", text)
    parts.append(f"\n# --- jax/experimental/pallas/ops/tpu/{module} (jax {jax.__version__}) ---\n")
    parts.append(text)
  return "".join(parts)


def refresh(name):
  path = HERE / "programs" / f"{name}.py"
  old = path.read_text() if path.exists() else ""
  header = old.split(BEGIN_MARK)[0] if BEGIN_MARK in old else f"# Corpus program {name}.\n"
  driver = old[old.index(DRIVER_MARK):] if DRIVER_MARK in old else DRIVER_MARK + "\n"
  body = inlined(PROGRAMS[name])
  path.write_text(header + body.rstrip("\n") + "\n\n\n" + driver)


def main():
  names = sys.argv[1:] or sorted(PROGRAMS)
  for name in names:
    refresh(name)
    print("wrote", os.path.relpath(HERE / "programs" / f"{name}.py"))


if __name__ == "__main__":
  main()

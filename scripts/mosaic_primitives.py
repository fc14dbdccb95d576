#!/usr/bin/env python3
"""Prints the primitives the installed jax's Mosaic TPU lowering accepts in a TensorCore kernel,
one per line, to compare with docs/mosaic-primitives.md and engine/array/prims.def."""
import jax
from jax.experimental.pallas import tpu  # noqa: F401  (registers the TPU-only rules)
from jax._src.pallas.mosaic import core, lowering

print(f"# jax {jax.__version__}")
for name in sorted(str(p) for p in lowering.lowering_rules[core.CoreType.TC]):
    print(name)

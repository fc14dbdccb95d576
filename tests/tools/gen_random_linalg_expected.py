#!/usr/bin/env python3
"""Writes tests/unit/array/random_linalg_expected.inc from real JAX (the oracle).

Run from the repository root:  python3 tests/tools/gen_random_linalg_expected.py
Random cases store the raw bit patterns of JAX's outputs; linalg cases store inputs as formulas
(MakeInput in linalg_test.cpp mirrors make_input below) and outputs as exact doubles.
"""
import math
import os

import jax
import jax.numpy as jnp
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "unit", "array", "random_linalg_expected.inc")


def make_input(shape, dtype, salt, kind):
    n = math.prod(shape)
    i = np.arange(n, dtype=np.int64)
    dt = jnp.dtype(dtype)
    if dt == jnp.bool_:
        v = ((i * 37 + salt) % 3) == 0
    elif jnp.issubdtype(dt, jnp.integer):
        v = (i * 37 + salt * 11) % 101 - (0 if jnp.issubdtype(dt, jnp.unsignedinteger) else 50)
    elif kind == 0:
        v = (((i * 37 + salt * 11) % 101) - 50) / 16.0
    else:
        v = np.sin(i * 0.37 + salt).astype(np.float32)
    return jnp.asarray(np.asarray(v).reshape(shape).astype(dt))


def bits_of(x):
    x = np.asarray(x)
    if x.dtype == np.float32:
        return x.view(np.uint32).ravel().tolist()
    if x.dtype.itemsize == 2 and not np.issubdtype(x.dtype, np.integer):
        return x.view(np.uint16).ravel().tolist()
    return [int(v) & 0xFFFFFFFF for v in x.ravel().tolist()]


def shape_text(shape):
    return "{" + ", ".join(str(d) for d in shape) + "}"


def random_cases():
    cases = []  # (fn, seed, shape, dtype, a, b, bits)

    def add(fn, seed, shape, dtype, a, b, out):
        cases.append((fn, seed, shape, dtype, a, b, bits_of(out)))

    for seed in [0, 1, 42, -1, 2**31 + 5, -(2**40) - 3, 2**33 + 5]:
        add("key", seed, (2,), "uint32", 0, 0, jax.random.PRNGKey(seed))
    add("split", 42, (4, 2), "uint32", 4, 0, jax.random.split(jax.random.PRNGKey(42), 4))
    add("split", 0, (3, 2), "uint32", 3, 0, jax.random.split(jax.random.PRNGKey(0), 3))
    for data in [7, 0, 2**31 + 3]:
        add("fold_in", 42, (2,), "uint32", data, 0,
            jax.random.fold_in(jax.random.PRNGKey(42), data))
    for dtype, shape in [("uint32", (2, 3)), ("uint16", (5,)), ("uint8", (5,))]:
        add("bits", 1, shape, dtype, 0, 0, jax.random.bits(jax.random.PRNGKey(1), shape, dtype))
    for seed, shape, dtype, lo, hi in [(0, (1000,), "float32", 0.0, 1.0),
                                       (3, (7, 3), "float32", -3.0, 5.5),
                                       (5, (64,), "bfloat16", 0.0, 1.0),
                                       (5, (64,), "bfloat16", 2.0, 10.0),
                                       (6, (64,), "float16", -1.0, 1.0)]:
        out = jax.random.uniform(jax.random.PRNGKey(seed), shape, dtype, lo, hi)
        add("uniform", seed, shape, dtype, lo, hi, out)
    for seed, shape, dtype in [(0, (1000,), "float32"), (7, (64,), "bfloat16"),
                               (8, (64,), "float16")]:
        add("normal", seed, shape, dtype, 0, 0,
            jax.random.normal(jax.random.PRNGKey(seed), shape, dtype))
    for seed, shape, dtype, lo, hi in [(0, (50,), "int32", 0, 10),
                                       (1, (50,), "int32", -100, 1000),
                                       (2, (5,), "int32", 5, 5),
                                       (3, (20,), "int32", -2**31, 2**31 - 1),
                                       (4, (30,), "uint8", 0, 256),
                                       (5, (30,), "int8", -128, 127),
                                       (6, (30,), "uint32", 0, 2**31 - 1)]:
        out = jax.random.randint(jax.random.PRNGKey(seed), shape, lo, hi, dtype)
        add("randint", seed, shape, dtype, lo, hi, out)
    add("bernoulli", 9, (100,), "bool", 0.3, 0,
        jax.random.bernoulli(jax.random.PRNGKey(9), 0.3, (100,)))
    for n in [10, 2000]:
        add("permutation", 11, (n,), "int32", n, 0, jax.random.permutation(jax.random.PRNGKey(11), n))
    rows = jnp.arange(15, dtype=jnp.float32).reshape(5, 3)
    add("permutation_rows", 12, (5, 3), "float32", 0, 0,
        jax.random.permutation(jax.random.PRNGKey(12), rows))
    return cases


def linalg_cases():
    f32, bf16, f16, i32, i8, u8 = "float32", "bfloat16", "float16", "int32", "int8", "uint8"
    specs = [
        ("dot", "", [(8, 16), (16, 4)], [f32, f32], "", 0),
        ("dot", "", [(8, 16), (16, 4)], [f32, f32], "", 1),
        ("dot", "", [(16,), (16,)], [f32, f32], "", 1),
        ("dot", "", [(3, 5, 16), (16,)], [f32, f32], "", 1),
        ("dot", "", [(2, 3, 16), (4, 16, 5)], [f32, f32], "", 1),
        ("dot", "", [(), (3, 4)], [f32, f32], "", 0),
        ("dot", "", [(8, 32), (32, 8)], [bf16, bf16], "", 0),
        ("dot", "", [(8, 32), (32, 8)], [bf16, bf16], "", 1),
        ("dot", "", [(8, 32), (32, 8)], [bf16, bf16], f32, 1),
        ("dot", "", [(4, 256), (256, 3)], [bf16, bf16], "", 1),
        ("dot", "", [(8, 32), (32, 8)], [f16, f16], "", 1),
        ("dot", "", [(4, 8), (8, 3)], [bf16, f32], "", 1),
        ("dot", "", [(4, 8), (8, 3)], [i32, i32], "", 0),
        ("dot", "", [(4, 8), (8, 3)], [i8, i8], "", 0),
        ("dot", "", [(4, 8), (8, 3)], [i8, i8], i32, 0),
        ("dot", "", [(4, 8), (8, 3)], [u8, u8], "", 0),
        ("dot", "", [(4, 8), (8, 3)], [i32, f32], "", 0),
        ("dot", "", [(3, 4), (4, 2)], ["bool", "bool"], "", 0),
        ("matmul", "", [(2, 3, 4, 5), (5, 6)], [f32, f32], "", 1),
        ("matmul", "", [(5,), (2, 5, 3)], [f32, f32], "", 1),
        ("matmul", "", [(2, 1, 3, 4), (5, 4, 2)], [f32, f32], "", 1),
        ("matmul", "", [(4,), (4,)], [f32, f32], "", 1),
        ("matmul", "", [(3, 4), (4,)], [f32, f32], "", 1),
        ("matmul", "", [(2, 16, 64), (2, 64, 8)], [bf16, bf16], "", 1),
        ("einsum", "ij,jk->ik", [(5, 6), (6, 7)], [f32, f32], "", 1),
        ("einsum", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)], [f32, f32], "", 1),
        ("einsum", "ij,kj->ik", [(3, 4), (5, 4)], [f32, f32], "", 1),
        ("einsum", "i,j->ij", [(3,), (4,)], [f32, f32], "", 1),
        ("einsum", "ij,ij->", [(3, 4), (3, 4)], [f32, f32], "", 1),
        ("einsum", "ij,jk", [(3, 4), (4, 2)], [f32, f32], "", 1),
        ("einsum", "ii,i->i", [(4, 4), (4,)], [f32, f32], "", 1),
        ("einsum", "ijk,j->i", [(2, 3, 4), (3,)], [f32, f32], "", 1),
        ("einsum", "bhqd,bhkd->bhqk", [(2, 3, 4, 8), (2, 3, 5, 8)], [f32, f32], "", 1),
        ("einsum", "qd,kd->qk", [(8, 64), (16, 64)], [bf16, bf16], f32, 1),
        ("einsum", "ij,jk->ki", [(3, 4), (4, 2)], [i32, i32], "", 0),
        ("einsum", "...ij,...jk", [(5, 1, 2, 3), (4, 3, 6)], [f32, f32], "", 1),
        ("einsum", "...ij,jk->...ik", [(5, 2, 3), (3, 6)], [f32, f32], "", 1),
        ("einsum", "ij...,jk...->ik...", [(2, 3, 5), (3, 6, 5)], [f32, f32], "", 1),
        ("einsum", "ij,jk->ik", [(2, 1), (3, 4)], [f32, f32], "", 1),
        ("einsum1", "i...->...", [(5, 2, 3)], [f32], "", 1),
        ("einsum1", "ij->ji", [(3, 4)], [f32], "", 1),
        ("einsum1", "ij->i", [(3, 4)], [f32], "", 1),
        ("einsum1", "ii->", [(4, 4)], [f32], "", 1),
        ("einsum1", "ii->i", [(4, 4)], [f32], "", 1),
        ("einsum1", "ijk->kij", [(2, 3, 4)], [f32], "", 1),
        ("dot_general", "2|1|0|0", [(2, 3, 4), (2, 4, 5)], [f32, f32], "", 1),
        ("dot_general", "0,2|2,1|1|3", [(4, 2, 3), (5, 3, 4, 2)], [f32, f32], "", 1),
        ("dot_general", "1|0||", [(3, 4), (4, 5)], [bf16, bf16], f32, 1),
    ]
    cases = []
    for op, spec, shapes, dtypes, pref, kind in specs:
        xs = [make_input(s, d, salt, kind) for salt, (s, d) in enumerate(zip(shapes, dtypes))]
        p = jnp.dtype(pref) if pref else None
        if op == "dot":
            out = jnp.dot(xs[0], xs[1], preferred_element_type=p)
        elif op == "matmul":
            out = jnp.matmul(xs[0], xs[1], preferred_element_type=p)
        elif op == "einsum" or op == "einsum1":
            out = jnp.einsum(spec, *xs, preferred_element_type=p)
        else:
            lc, rc, lb, rb = [tuple(int(v) for v in part.split(",") if v) for part in spec.split("|")]
            out = jax.lax.dot_general(xs[0], xs[1], ((lc, rc), (lb, rb)), preferred_element_type=p)
        values = np.asarray(out).astype(np.float64).ravel().tolist()
        cases.append((op, spec, shapes, dtypes, pref, kind, out.shape, str(out.dtype), values))
    return cases


def main():
    lines = [
        "// Generated by tests/tools/gen_random_linalg_expected.py with JAX "
        f"{jax.__version__} (threefry_partitionable={jax.config.jax_threefry_partitionable}).",
        "// Do not edit; rerun the script instead.",
        "",
        "inline const std::vector<RandomCase> kRandomCases = {",
    ]
    for fn, seed, shape, dtype, a, b, bits in random_cases():
        lines.append(f'    {{"{fn}", {seed}LL, {shape_text(shape)}, "{dtype}", {a!r}, {b!r},')
        lines.append("     {" + ", ".join(f"{v}u" for v in bits) + "}},")
    lines.append("};")
    lines.append("")
    lines.append("inline const std::vector<LinalgCase> kLinalgCases = {")
    for op, spec, shapes, dtypes, pref, kind, out_shape, out_dtype, values in linalg_cases():
        shapes_text = "{" + ", ".join("Shape" + shape_text(s) for s in shapes) + "}"
        dtypes_text = "{" + ", ".join(f'"{d}"' for d in dtypes) + "}"
        lines.append(f'    {{"{op}", "{spec}", {shapes_text}, {dtypes_text}, "{pref}", {kind}, '
                     f'{shape_text(out_shape)}, "{out_dtype}",')
        lines.append("     {" + ", ".join(repr(float(v)) for v in values) + "}},")
    lines.append("};")
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

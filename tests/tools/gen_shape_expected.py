#!/usr/bin/env python3
"""Generates tests/unit/array/shape_expected.inc: creation and shape ops against JAX.

Run from the repository root with JAX installed: python3 tests/tools/gen_shape_expected.py
Each case pairs a C++ expression (engine/array/creation.h, shape_ops.h) with the equivalent JAX
expression; the generator records JAX's result (dtype, shape, exact values, weak type) or the
error it raises. F(...) / I(...) are float32 / int32 arange inputs reshaped to the given shape.
"""
import math
import re
import pathlib

import jax.numpy as jnp
import numpy as np
from jax import lax

OUT = pathlib.Path(__file__).resolve().parents[1] / "unit" / "array" / "shape_expected.inc"
DTYPES = {"float32": "kFloat32", "float16": "kFloat16", "bfloat16": "kBFloat16",
          "int32": "kInt32", "int8": "kInt8", "uint8": "kUInt8", "int16": "kInt16",
          "uint32": "kUInt32", "bool": "kBool"}
f32, i32, bf16, f16 = "DType::kFloat32", "DType::kInt32", "DType::kBFloat16", "DType::kFloat16"


def F(*shape):
    return jnp.arange(math.prod(shape), dtype=jnp.float32).reshape(shape)


def I(*shape):
    return jnp.arange(math.prod(shape), dtype=jnp.int32).reshape(shape)


# (name, C++ expression returning Array or std::vector<Array>, Python expression)
CASES = [
    ("zeros", "Zeros({2, 3})", "jnp.zeros((2, 3))"),
    ("zeros_int", f"Zeros({{4}}, {i32})", "jnp.zeros(4, jnp.int32)"),
    ("ones_bf16", f"Ones({{2, 2}}, {bf16})", "jnp.ones((2, 2), jnp.bfloat16)"),
    ("empty", "Empty({3})", "jnp.empty(3)"),
    ("full_int", f"Full({{2}}, ScalarArg{{1, {i32}}})", "jnp.full((2,), 1)"),
    ("full_float", f"Full({{2, 2}}, ScalarArg{{1.5, {f32}}})", "jnp.full((2, 2), 1.5)"),
    ("full_bool", "Full({3}, ScalarArg{1, DType::kBool})", "jnp.full((3,), True)"),
    ("full_dtype", f"Full({{2}}, ScalarArg{{7, {i32}}}, {f32})", "jnp.full((2,), 7, jnp.float32)"),
    ("full_trunc", f"Full({{2}}, ScalarArg{{2.7, {f32}}}, {i32})", "jnp.full((2,), 2.7, jnp.int32)"),
    ("arange_stop", f"Arange(ScalarArg{{5, {i32}}})", "jnp.arange(5)"),
    ("arange_float_stop", f"Arange(ScalarArg{{3.5, {f32}}})", "jnp.arange(3.5)"),
    ("arange_start_stop", f"Arange(ScalarArg{{1, {i32}}}, ScalarArg{{2.5, {f32}}})",
     "jnp.arange(1, 2.5)"),
    ("arange_step", f"Arange(ScalarArg{{0, {i32}}}, ScalarArg{{1, {i32}}}, ScalarArg{{0.1, {f32}}})",
     "jnp.arange(0, 1, 0.1)"),
    ("arange_neg_step",
     f"Arange(ScalarArg{{10, {i32}}}, ScalarArg{{-3, {i32}}}, ScalarArg{{-3, {i32}}})",
     "jnp.arange(10, -3, -3)"),
    ("arange_third",
     f"Arange(ScalarArg{{-1, {i32}}}, ScalarArg{{2, {i32}}}, ScalarArg{{1.0 / 3, {f32}}})",
     "jnp.arange(-1, 2, 1 / 3)"),
    ("arange_bf16",
     f"Arange(ScalarArg{{0, {i32}}}, ScalarArg{{1, {i32}}}, ScalarArg{{0.07, {f32}}}, {bf16})",
     "jnp.arange(0, 1, 0.07, dtype=jnp.bfloat16)"),
    ("arange_bf16_nostep", f"Arange(ScalarArg{{250, {i32}}}, ScalarArg{{270, {i32}}}, std::nullopt, {bf16})",
     "jnp.arange(250, 270, dtype=jnp.bfloat16)"),
    ("arange_bf16_fraction",
     f"Arange(ScalarArg{{0.3, {f32}}}, ScalarArg{{40, {i32}}}, std::nullopt, {bf16})",
     "jnp.arange(0.3, 40, dtype=jnp.bfloat16)"),
    ("arange_f16_step",
     f"Arange(ScalarArg{{-2, {i32}}}, ScalarArg{{9, {i32}}}, ScalarArg{{0.37, {f32}}}, {f16})",
     "jnp.arange(-2, 9, 0.37, dtype=jnp.float16)"),
    ("arange_int_dtype",
     f"Arange(ScalarArg{{0.5, {f32}}}, ScalarArg{{5, {i32}}}, std::nullopt, {i32})",
     "jnp.arange(0.5, 5, dtype=jnp.int32)"),
    ("arange_empty", f"Arange(ScalarArg{{5, {i32}}}, ScalarArg{{2, {i32}}})", "jnp.arange(5, 2)"),
    ("linspace", "Linspace(0, 1, 7)", "jnp.linspace(0, 1, 7)"),
    ("linspace_default", "Linspace(-3.3, 17.9)", "jnp.linspace(-3.3, 17.9)"),
    ("linspace_no_endpoint", "Linspace(2, 3, 5, false)", "jnp.linspace(2, 3, 5, endpoint=False)"),
    ("linspace_int", f"Linspace(0, 10, 4, true, {i32})", "jnp.linspace(0, 10, 4, dtype=jnp.int32)"),
    ("linspace_bf16", f"Linspace(0, 1, 7, true, {bf16})",
     "jnp.linspace(0, 1, 7, dtype=jnp.bfloat16)"),
    ("linspace_f16", f"Linspace(-1, 3, 9, true, {f16})",
     "jnp.linspace(-1, 3, 9, dtype=jnp.float16)"),
    ("linspace_negative", "Linspace(5, -100.7, 33)", "jnp.linspace(5, -100.7, 33)"),
    ("linspace_long", "Linspace(1e-3, 7, 1000)", "jnp.linspace(1e-3, 7, 1000)"),
    ("linspace_long_open", "Linspace(-2.5, 9.1, 300, false)",
     "jnp.linspace(-2.5, 9.1, 300, endpoint=False)"),
    ("linspace_bf16_long", f"Linspace(-3, 11, 45, true, {bf16})",
     "jnp.linspace(-3, 11, 45, dtype=jnp.bfloat16)"),
    ("linspace_int_negative", f"Linspace(-7, 20, 11, true, {i32})",
     "jnp.linspace(-7, 20, 11, dtype=jnp.int32)"),
    ("linspace_one", "Linspace(4, 5, 1)", "jnp.linspace(4, 5, 1)"),
    ("linspace_zero", "Linspace(4, 5, 0)", "jnp.linspace(4, 5, 0)"),
    ("eye", "Eye(3)", "jnp.eye(3)"),
    ("eye_rect_k", f"Eye(3, 5, 2, {i32})", "jnp.eye(3, 5, k=2, dtype=jnp.int32)"),
    ("eye_neg_k", "Eye(4, 3, -1)", "jnp.eye(4, 3, k=-1)"),
    ("iota", f"Iota({i32}, 5)", "lax.iota(jnp.int32, 5)"),
    ("broadcasted_iota", f"BroadcastedIota({f32}, {{2, 3, 4}}, 1)",
     "lax.broadcasted_iota(jnp.float32, (2, 3, 4), 1)"),
    ("tril", "Tril(F(3, 4))", "jnp.tril(F(3, 4))"),
    ("tril_k", "Tril(I(2, 3, 3), -1)", "jnp.tril(I(2, 3, 3), -1)"),
    ("triu_k", "Triu(F(4, 3), 1)", "jnp.triu(F(4, 3), 1)"),
    ("reshape", "Reshape(F(2, 3), {3, 2})", "F(2, 3).reshape(3, 2)"),
    ("reshape_infer", "Reshape(I(2, 3, 4), {-1, 6})", "I(2, 3, 4).reshape(-1, 6)"),
    ("reshape_view", "Reshape(Transpose(F(2, 3)), {6})", "F(2, 3).T.reshape(6)"),
    ("transpose", "Transpose(F(2, 3))", "F(2, 3).T"),
    ("transpose_axes", "Transpose(I(2, 3, 4), Axes{1, -1, 0})", "jnp.transpose(I(2, 3, 4), (1, -1, 0))"),
    ("swapaxes", "SwapAxes(I(2, 3, 4), 0, -1)", "jnp.swapaxes(I(2, 3, 4), 0, -1)"),
    ("moveaxis", "MoveAxis(I(2, 3, 4), {0}, {-1})", "jnp.moveaxis(I(2, 3, 4), 0, -1)"),
    ("moveaxis_many", "MoveAxis(I(2, 3, 4, 5), {0, 1}, {3, 0})",
     "jnp.moveaxis(I(2, 3, 4, 5), (0, 1), (3, 0))"),
    ("expand_dims", "ExpandDims(F(2, 3), {0, -1})", "jnp.expand_dims(F(2, 3), (0, -1))"),
    ("squeeze_all", "Squeeze(F(1, 3, 1))", "jnp.squeeze(F(1, 3, 1))"),
    ("squeeze_axis", "Squeeze(F(1, 3, 1), Axes{-1})", "jnp.squeeze(F(1, 3, 1), -1)"),
    ("broadcast_to", "BroadcastTo(F(3, 1), {2, 3, 4})", "jnp.broadcast_to(F(3, 1), (2, 3, 4))"),
    ("concatenate", "Concatenate({F(2, 3), F(1, 3)})", "jnp.concatenate([F(2, 3), F(1, 3)])"),
    ("concatenate_axis", "Concatenate({I(2, 1), I(2, 3), I(2, 2)}, -1)",
     "jnp.concatenate([I(2, 1), I(2, 3), I(2, 2)], axis=-1)"),
    ("concatenate_promote", "Concatenate({I(2), F(3)})", "jnp.concatenate([I(2), F(3)])"),
    ("concatenate_transposed", "Concatenate({Transpose(F(2, 3)), F(3, 2)}, 1)",
     "jnp.concatenate([F(2, 3).T, F(3, 2)], axis=1)"),
    ("stack", "Stack({F(2), F(2)})", "jnp.stack([F(2), F(2)])"),
    ("stack_last", "Stack({I(2, 3), I(2, 3)}, -1)", "jnp.stack([I(2, 3), I(2, 3)], axis=-1)"),
    ("split_sections", "Split(I(6, 2), 3)", "jnp.split(I(6, 2), 3)"),
    ("split_indices", "Split(I(2, 7), std::vector<int64_t>{2, 5}, 1)",
     "jnp.split(I(2, 7), [2, 5], axis=1)"),
    ("tile", "Tile(I(2, 3), {2})", "jnp.tile(I(2, 3), 2)"),
    ("tile_more_reps", "Tile(F(3), {2, 1, 2})", "jnp.tile(F(3), (2, 1, 2))"),
    ("repeat_flat", "Repeat(I(2, 2), {2}, std::nullopt)", "jnp.repeat(I(2, 2), 2)"),
    ("repeat_axis", "Repeat(I(2, 3), {1, 0, 2}, 1)", "jnp.repeat(I(2, 3), jnp.array([1, 0, 2]), axis=1)"),
    ("repeat_total_pad", "Repeat(I(3), {1, 2, 1}, 0, 6)",
     "jnp.repeat(I(3), jnp.array([1, 2, 1]), axis=0, total_repeat_length=6)"),
    ("repeat_total_cut", "Repeat(I(3), {2}, 0, 4)",
     "jnp.repeat(I(3), 2, axis=0, total_repeat_length=4)"),
    ("flip_all", "Flip(I(2, 3))", "jnp.flip(I(2, 3))"),
    ("flip_axis", "Flip(I(2, 3, 2), Axes{1})", "jnp.flip(I(2, 3, 2), 1)"),
    ("roll_flat", "Roll(I(2, 3), {2})", "jnp.roll(I(2, 3), 2)"),
    ("roll_axis", "Roll(I(3, 4), {-1}, Axes{1})", "jnp.roll(I(3, 4), -1, axis=1)"),
    ("roll_many", "Roll(I(3, 4), {1, 5}, Axes{0, 1})", "jnp.roll(I(3, 4), (1, 5), axis=(0, 1))"),
    ("pad_scalar", "Pad(Array::Scalar(DType::kFloat32, 5), {{1, 1}})", "jnp.pad(jnp.float32(5), 1)"),
    ("repeat_scalar", "Repeat(Array::Scalar(DType::kFloat32, 5), {3}, std::nullopt)",
     "jnp.repeat(jnp.float32(5), 3)"),
    ("tile_scalar", "Tile(Array::Scalar(DType::kInt32, 4), {2, 2})", "jnp.tile(jnp.int32(4), (2, 2))"),
    ("stack_scalars", "Stack({Array::Scalar(DType::kFloat32, 1), Array::Scalar(DType::kFloat32, 2)})",
     "jnp.stack([jnp.float32(1), jnp.float32(2)])"),
    ("roll_repeated_axis", "Roll(I(5), {2}, Axes{0, 0})", "jnp.roll(I(5), 2, axis=(0, 0))"),
    ("flip_negative_axis", "Flip(I(2, 3), Axes{-1})", "jnp.flip(I(2, 3), -1)"),
    ("broadcast_scalar", "BroadcastTo(Array::Scalar(DType::kInt32, 3), {2, 2})",
     "jnp.broadcast_to(jnp.int32(3), (2, 2))"),
    ("reshape_empty", "Reshape(F(0, 3), {3, -1})", "F(0, 3).reshape(3, -1)"),
    ("concatenate_bool_int", "Concatenate({Full({2}, ScalarArg{1, DType::kBool}), I(2)})",
     "jnp.concatenate([jnp.full((2,), True), I(2)])"),
    ("pad_int", "Pad(F(2, 3), {{1, 1}})", "jnp.pad(F(2, 3), 1)"),
    ("pad_pair", "Pad(I(3), {{2, 1}}, 9)", "jnp.pad(I(3), (2, 1), constant_values=9)"),
    ("pad_per_axis", "Pad(F(2, 2), {{0, 1}, {2, 0}}, -1.5)",
     "jnp.pad(F(2, 2), ((0, 1), (2, 0)), constant_values=-1.5)"),
]

# (name, C++ statement, Python statement expected to raise)
ERRORS = [
    ("reshape_size", "Reshape(F(2, 3), {4})", "F(2, 3).reshape((4,))"),
    ("reshape_two_unknown", "Reshape(F(2, 3), {-1, -1})", "F(2, 3).reshape(-1, -1)"),
    ("reshape_not_divisible", "Reshape(F(2, 3), {4, -1})", "F(2, 3).reshape(4, -1)"),
    ("transpose_repeated", "Transpose(F(2, 3), Axes{0, 0})", "jnp.transpose(F(2, 3), (0, 0))"),
    ("transpose_short", "Transpose(F(2, 3), Axes{0})", "jnp.transpose(F(2, 3), (0,))"),
    ("transpose_bounds", "Transpose(F(2, 3), Axes{0, 2})", "jnp.transpose(F(2, 3), (0, 2))"),
    ("swapaxes_bounds", "SwapAxes(F(2, 3), 0, 2)", "jnp.swapaxes(F(2, 3), 0, 2)"),
    ("squeeze_not_one", "Squeeze(F(2, 3), Axes{0})", "jnp.squeeze(F(2, 3), 0)"),
    ("squeeze_bounds", "Squeeze(F(2, 3), Axes{3})", "jnp.squeeze(F(2, 3), 3)"),
    ("expand_dims_bounds", "ExpandDims(F(2, 3), {4})", "jnp.expand_dims(F(2, 3), 4)"),
    ("expand_dims_repeated", "ExpandDims(F(2, 3), {0, 0})", "jnp.expand_dims(F(2, 3), (0, 0))"),
    ("broadcast_incompatible", "BroadcastTo(F(2, 3), {3, 3})", "jnp.broadcast_to(F(2, 3), (3, 3))"),
    ("broadcast_fewer", "BroadcastTo(F(2, 3), {3})", "jnp.broadcast_to(F(2, 3), (3,))"),
    ("concatenate_shapes", "Concatenate({F(2, 3), F(2, 4)})",
     "jnp.concatenate([F(2, 3), F(2, 4)])"),
    ("concatenate_ranks", "Concatenate({F(2, 3), F(2)})", "jnp.concatenate([F(2, 3), F(2)])"),
    ("concatenate_empty", "Concatenate({})", "jnp.concatenate([])"),
    ("stack_shapes", "Stack({F(2, 3), F(3, 2), F(2, 3)})",
     "jnp.stack([F(2, 3), F(3, 2), F(2, 3)])"),
    ("split_unequal", "Split(F(2, 3), 4, 1)", "jnp.split(F(2, 3), 4, axis=1)"),
    ("split_unsorted", "Split(F(2, 3), std::vector<int64_t>{2, 1}, 1)",
     "jnp.split(F(2, 3), [2, 1], axis=1)"),
    ("moveaxis_bounds", "MoveAxis(F(2, 3), {0}, {5})", "jnp.moveaxis(F(2, 3), 0, 5)"),
    ("repeat_mismatch", "Repeat(F(2, 3), {1, 2}, 1)", "jnp.repeat(F(2, 3), jnp.array([1, 2]), axis=1)"),
    ("flip_bounds", "Flip(F(2, 3), Axes{2})", "jnp.flip(F(2, 3), 2)"),
    ("pad_shape", "Pad(F(2, 3), {{1, 2}, {3, 4}, {5, 6}})", "jnp.pad(F(2, 3), ((1, 2), (3, 4), (5, 6)))"),
    ("pad_negative", "Pad(F(2, 3), {{-1, -1}})", "jnp.pad(F(2, 3), -1)"),
    ("squeeze_negative", "Squeeze(F(2, 3), Axes{-1})", "jnp.squeeze(F(2, 3), -1)"),
    ("split_negative", "Split(I(6), std::vector<int64_t>{-2})", "jnp.split(I(6), [-2])"),
    ("concatenate_scalars", "Concatenate({Array::Scalar(DType::kFloat32, 1)})",
     "jnp.concatenate([jnp.float32(1)])"),
    ("reshape_negative", "Reshape(F(2, 3), {-2, 3})", "F(2, 3).reshape(-2, 3)"),
    ("tril_rank", "Tril(F(3))", "jnp.tril(F(3))"),
]


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def c_double(v):
    return repr(float(v))


def c_array(x):
    values = [c_double(v) for v in np.asarray(x).astype(np.float64).reshape(-1)]
    shape = ", ".join(str(d) for d in x.shape)
    return (f"{{DType::{DTYPES[x.dtype.name]}, {{{shape}}}, {{{', '.join(values)}}}, "
            f"{'true' if x.weak_type else 'false'}}}")


def main():
    env = {"jnp": jnp, "lax": lax, "F": F, "I": I}
    lines = ["// Generated by tests/tools/gen_shape_expected.py; do not edit.",
             "#ifdef PZ_SHAPE_CASES"]
    for name, cpp, py in CASES:
        result = eval(py, env)
        results = result if isinstance(result, list) else [result]
        body = f"return {cpp};" if isinstance(result, list) else f"return {{{cpp}}};"
        expected = ",\n  ".join(c_array(r) for r in results)
        lines.append(f'{{"{name}", []() -> std::vector<Array> {{ {body} }},\n {{{expected}}}}},')
    lines += ["#endif", "#ifdef PZ_SHAPE_ERRORS"]
    for name, cpp, py in ERRORS:
        try:
            eval(py, env)
        except Exception as e:  # noqa: BLE001 - the message is the expectation
            # JAX formats some integer lists with numpy reprs ("np.int64(2)"); we print "2".
            message = re.sub(r"np\.int64\((-?\d+)\)", r"\1", str(e).split("\n")[0])
            kind = {"TypeError": "kTypeError", "ValueError": "kValueError",
                    "IndexError": "kIndexError"}[type(e).__name__]
            lines.append(f'{{"{name}", [] {{ {cpp}; }}, ArrayError::Kind::{kind},\n '
                         f'{c_string(message)}}},')
        else:
            raise SystemExit(f"{name}: JAX raised no error")
    lines.append("#endif")
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

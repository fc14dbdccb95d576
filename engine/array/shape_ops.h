// Shape manipulation of jax.numpy: reshape, transposes, axis insertion/removal, broadcasting,
// joining, splitting, tiling, repeating, flipping, rolling and constant padding. Layout-only ops
// (reshape of contiguous data, transpose, swapaxes, moveaxis, expand_dims, squeeze, broadcast_to,
// flip) return views sharing storage; the others return new contiguous arrays. User mistakes
// throw ArrayError with JAX's wording. Axes may be negative, as in Python.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "array/array.h"

namespace pz::array {

using Axes = std::vector<int>;

// jnp.reshape: one dimension may be -1 (inferred). A TypeError when the sizes differ.
Array Reshape(const Array& a, const Shape& shape);
// jnp.transpose: reverses the axes when `axes` is nullopt.
Array Transpose(const Array& a, const std::optional<Axes>& axes = std::nullopt);
Array SwapAxes(const Array& a, int axis1, int axis2);
// jnp.moveaxis with equally long source/destination lists.
Array MoveAxis(const Array& a, const Axes& source, const Axes& destination);
// jnp.expand_dims: `axes` index the result's dimensions.
Array ExpandDims(const Array& a, const Axes& axes);
// jnp.squeeze: removes the size-1 `axes`, or every size-1 axis when nullopt.
Array Squeeze(const Array& a, const std::optional<Axes>& axes = std::nullopt);
// jnp.broadcast_to with numpy's trailing-dimension alignment.
Array BroadcastTo(const Array& a, const Shape& shape);

// jnp.concatenate / jnp.stack; the result dtype is the JAX promotion of the inputs' dtypes.
Array Concatenate(const std::vector<Array>& arrays, int axis = 0);
Array Stack(const std::vector<Array>& arrays, int axis = 0);
// jnp.split into `sections` equal parts, or at the sorted `indices` along `axis`.
std::vector<Array> Split(const Array& a, int64_t sections, int axis = 0);
std::vector<Array> Split(const Array& a, const std::vector<int64_t>& indices, int axis = 0);

// jnp.tile: `reps` aligned to the trailing dimensions.
Array Tile(const Array& a, const std::vector<int64_t>& reps);
// jnp.repeat: `repeats` is one count or one per element along `axis` (the flattened array when
// nullopt). With total_repeat_length the result is cut, or padded with the last element.
Array Repeat(const Array& a, const std::vector<int64_t>& repeats, std::optional<int> axis,
             std::optional<int64_t> total_repeat_length = std::nullopt);
// jnp.flip: reverses `axes`, or all axes when nullopt.
Array Flip(const Array& a, const std::optional<Axes>& axes = std::nullopt);
// jnp.roll: `shifts` and `axes` broadcast against each other; nullopt axes roll the flattened
// array and restore the shape.
Array Roll(const Array& a, const std::vector<int64_t>& shifts,
           const std::optional<Axes>& axes = std::nullopt);

// pad_width as jnp.pad accepts it: one (before, after) pair for every axis, or one pair for all
// axes. `n` is {{n, n}}, `(a, b)` is {{a, b}}.
using PadWidth = std::vector<std::pair<int64_t, int64_t>>;
// jnp.pad(a, pad_width, mode="constant", constant_values=value).
Array Pad(const Array& a, const PadWidth& pad_width, double constant_value = 0);

// jnp.pad's other modes (pad.cpp). Each axis is padded in turn, later axes seeing the padding of
// earlier ones, as JAX does.
enum class PadMode {
  kConstant,   // `values[axis]` (before, after)
  kEdge,       // repeat the edge element
  kWrap,       // continue periodically
  kReflect,    // mirror without repeating the edge
  kSymmetric,  // mirror repeating the edge
  kMaximum,    // a statistic of the first/last `stat_length` elements (all when absent)
  kMinimum,
  kMean,
  kMedian,
  kLinearRamp,  // ramps from `values[axis]` (the end values) to the edge element
  kEmpty,       // zeros (JAX's empty is zeros)
};
struct PadOptions {
  PadMode mode = PadMode::kConstant;
  std::vector<std::pair<double, double>> values;  // one pair per axis; constant or end values
  std::optional<PadWidth> stat_length;            // one pair per axis
  bool reflect_odd = false;                       // reflect_type="odd"
};
// `pad_width` has one pair per axis.
Array PadWithMode(const Array& a, const PadWidth& pad_width, const PadOptions& options);

// The axis in [0, rank) for a Python axis in [-rank, rank); a ValueError
// "axis 3 is out of bounds for array of dimension 2" otherwise.
int NormalizeAxis(int axis, int rank);

}  // namespace pz::array

// jnp.pad's modes other than a scalar constant (PadWithMode in shape_ops.h), following JAX's
// jax/_src/numpy/lax_numpy.py: each axis in turn is padded by concatenating slices, flips and
// repeats of the array padded so far, so corners and long pads come out as in JAX.
#include <fmt/format.h>

#include <algorithm>

#include "array/creation.h"
#include "array/elementwise.h"
#include "array/reduce.h"
#include "array/shape_ops.h"
#include "array/stats.h"

namespace pz::array {

namespace {

// a[start:stop] along `axis` (0 <= start <= stop <= extent), as a view.
Array SliceAxis(const Array& a, int axis, int64_t start, int64_t stop) {
  Shape shape = a.shape();
  shape[static_cast<size_t>(axis)] = stop - start;
  int64_t offset = a.offset() + (stop > start ? start * a.strides()[static_cast<size_t>(axis)] : 0);
  return a.View(shape, a.strides(), offset);
}

int64_t Extent(const Array& a, int axis) { return a.shape()[static_cast<size_t>(axis)]; }

Array Join(const Array& before, const Array& a, const Array& after, int axis) {
  return Concatenate({before, a, after}, axis);
}

void CheckNoPadding(const std::pair<int64_t, int64_t>& width, std::string_view mode) {
  if (width.first > 0 || width.second > 0) {
    ThrowValueError(fmt::format("Cannot apply '{}' padding to empty axis", mode));
  }
}

std::string_view ModeName(PadMode mode) {
  switch (mode) {
    case PadMode::kEdge:
      return "edge";
    case PadMode::kWrap:
      return "wrap";
    case PadMode::kReflect:
      return "reflect";
    case PadMode::kSymmetric:
      return "symmetric";
    default:
      return "constant";
  }
}

Array PadWrap(Array a, int axis, std::pair<int64_t, int64_t> width) {
  int64_t size = Extent(a, axis);
  std::vector<Array> parts;
  int64_t left_repeats = width.first / size, left_rest = width.first % size;
  int64_t right_repeats = width.second / size, right_rest = width.second % size;
  if (left_rest > 0) parts.push_back(SliceAxis(a, axis, size - left_rest, size));
  for (int64_t i = 0; i < left_repeats + right_repeats + 1; ++i) parts.push_back(a);
  if (right_rest > 0) parts.push_back(SliceAxis(a, axis, 0, right_rest));
  return Concatenate(parts, axis);
}

// JAX's _pad_symmetric_or_reflect for one side of one axis: reflect at most size - offset
// elements at a time, each round mirroring the array padded so far.
Array PadMirror(Array a, int axis, int64_t padding, bool before, bool symmetric, bool odd,
                int64_t axis_size) {
  Array edge =
      before ? SliceAxis(a, axis, 0, 1) : SliceAxis(a, axis, Extent(a, axis) - 1, Extent(a, axis));
  int64_t offset = !symmetric && axis_size > 1 ? 1 : 0;
  while (padding > 0) {
    int64_t current = std::min(padding, axis_size - offset);
    padding -= current;
    int64_t n = Extent(a, axis);
    Array x;
    if (before) {
      x = SliceAxis(a, axis, offset, offset + current);
    } else {
      int64_t start = n - (current + offset);
      int64_t stop = symmetric || axis_size == 1 ? n : n - 1;
      x = SliceAxis(a, axis, start, stop);
    }
    x = Flip(x, Axes{axis});
    if (odd) {
      Array two = Array::Scalar(DType::kInt32, 2);
      two.set_weak_type(true);
      x = Binary(BinaryOp::kSub, Binary(BinaryOp::kMul, two, edge), x);
      if (axis_size > 1) {
        int64_t m = Extent(x, axis);
        edge = before ? SliceAxis(x, axis, 0, 1) : SliceAxis(x, axis, m - 1, m);
      }
    }
    a = before ? Concatenate({x, a}, axis) : Concatenate({a, x}, axis);
  }
  return a;
}

// One side's statistic over the first (last) `length` elements, rounded for integers and cast
// back to the array's dtype.
Array SideStatistic(const Array& a, int axis, PadMode mode, const Array& slice) {
  std::vector<int> axes{axis};
  Array stat;
  switch (mode) {
    case PadMode::kMaximum:
      stat = Reduce(ReduceOp::kMax, slice, axes, true);
      break;
    case PadMode::kMinimum:
      stat = Reduce(ReduceOp::kMin, slice, axes, true);
      break;
    case PadMode::kMean:
      stat = Reduce(ReduceOp::kMean, slice, axes, true);
      break;
    default:
      stat = Median(slice, axes, true);
      break;
  }
  if (IsInteger(a.dtype())) stat = Unary(UnaryOp::kRound, stat);
  Array out = stat.AsType(a.dtype());
  out.set_weak_type(a.weak_type());
  return out;
}

Array PadStats(const Array& a, int axis, std::pair<int64_t, int64_t> width, PadMode mode,
               const std::optional<std::pair<int64_t, int64_t>>& stat_length) {
  int64_t n = Extent(a, axis);
  Array before_slice = a, after_slice = a;
  if (stat_length) {
    if (stat_length->first == 0 || stat_length->second == 0) {
      ThrowValueError("stat_length of 0 yields no value for padding");
    }
    int64_t lb = std::min(stat_length->first, n), la = std::min(stat_length->second, n);
    before_slice = SliceAxis(a, axis, 0, lb);
    after_slice = SliceAxis(a, axis, n - la, n);
  }
  Array stat_before = SideStatistic(a, axis, mode, before_slice);
  Array stat_after = stat_length ? SideStatistic(a, axis, mode, after_slice) : stat_before;
  return Join(Repeat(stat_before, {width.first}, axis), a, Repeat(stat_after, {width.second}, axis),
              axis);
}

// linspace(end_value, edge, num, endpoint=False) along `axis`: end * (1 - t) + edge * t with
// t = i / num, floored for integer dtypes.
Array Ramp(const Array& a, int axis, const Array& edge, double end_value, int64_t num) {
  DType dtype = a.dtype();
  DType work = IsFloating(dtype) ? dtype : DType::kFloat32;
  Shape t_shape(static_cast<size_t>(a.rank()), 1);
  t_shape[static_cast<size_t>(axis)] = num;
  Array t = Binary(BinaryOp::kDiv, BroadcastedIota(DType::kFloat32, t_shape, axis),
                   Array::Scalar(DType::kFloat32, static_cast<double>(num)))
                .AsType(work);
  Array start = Array::Scalar(work, end_value);
  Array one = Array::Scalar(work, 1);
  Array out = Binary(BinaryOp::kAdd, Binary(BinaryOp::kMul, start, Binary(BinaryOp::kSub, one, t)),
                     Binary(BinaryOp::kMul, edge.AsType(work), t));
  if (!IsFloating(dtype)) out = Unary(UnaryOp::kFloor, out);
  Array result = out.AsType(dtype);
  result.set_weak_type(a.weak_type());
  return result;
}

Array PadLinearRamp(const Array& a, int axis, std::pair<int64_t, int64_t> width,
                    std::pair<double, double> end_values) {
  int64_t n = Extent(a, axis);
  Array before = Ramp(a, axis, SliceAxis(a, axis, 0, 1), end_values.first, width.first);
  Array after = Ramp(a, axis, SliceAxis(a, axis, n - 1, n), end_values.second, width.second);
  return Join(before, a, Flip(after, Axes{axis}), axis);
}

}  // namespace

Array PadWithMode(const Array& input, const PadWidth& pad_width, const PadOptions& options) {
  Array a = input.Contiguous();
  if (a.rank() == 0) return a;
  if (static_cast<int>(pad_width.size()) != a.rank()) {
    ThrowValueError(fmt::format("Expected pad_width to have shape ({}, 2); got ({}, 2).", a.rank(),
                                pad_width.size()));
  }
  for (const auto& [before, after] : pad_width) {
    if (before < 0 || after < 0) ThrowValueError("index can't contain negative values");
  }
  if (options.mode == PadMode::kEmpty ||
      (options.mode == PadMode::kConstant &&
       std::all_of(options.values.begin(), options.values.end(), [&](const auto& v) {
         return v.first == options.values[0].first && v.second == options.values[0].first;
       }))) {
    // One constant everywhere: a single lax.pad, as JAX does for a scalar constant.
    double value = options.mode == PadMode::kEmpty ? 0 : options.values[0].first;
    Array out = Pad(a, pad_width, value);
    out.set_weak_type(input.weak_type());
    return out;
  }
  for (int axis = 0; axis < a.rank(); ++axis) {
    std::pair<int64_t, int64_t> width = pad_width[static_cast<size_t>(axis)];
    int64_t n = Extent(a, axis);
    switch (options.mode) {
      case PadMode::kEmpty:  // handled above
      case PadMode::kConstant: {
        // Constants that differ by axis or side: one lax.pad per side, as JAX does.
        std::pair<double, double> v = options.values[static_cast<size_t>(axis)];
        PadWidth widths(static_cast<size_t>(a.rank()), {0, 0});
        widths[static_cast<size_t>(axis)] = {width.first, 0};
        if (width.first != 0) a = Pad(a, widths, v.first);
        widths[static_cast<size_t>(axis)] = {0, width.second};
        if (width.second != 0) a = Pad(a, widths, v.second);
        break;
      }
      case PadMode::kEdge:
        if (n == 0) {
          CheckNoPadding(width, ModeName(options.mode));
          break;
        }
        a = Join(Repeat(SliceAxis(a, axis, 0, 1), {width.first}, axis), a,
                 Repeat(SliceAxis(a, axis, n - 1, n), {width.second}, axis), axis);
        break;
      case PadMode::kWrap:
        if (n == 0) {
          CheckNoPadding(width, ModeName(options.mode));
          break;
        }
        a = PadWrap(a, axis, width);
        break;
      case PadMode::kReflect:
      case PadMode::kSymmetric: {
        if (n == 0) {
          CheckNoPadding(width, ModeName(options.mode));
          break;
        }
        bool symmetric = options.mode == PadMode::kSymmetric;
        a = PadMirror(a, axis, width.first, true, symmetric, options.reflect_odd, n);
        a = PadMirror(a, axis, width.second, false, symmetric, options.reflect_odd, n);
        break;
      }
      case PadMode::kMaximum:
      case PadMode::kMinimum:
      case PadMode::kMean:
      case PadMode::kMedian: {
        std::optional<std::pair<int64_t, int64_t>> length;
        if (options.stat_length) length = (*options.stat_length)[static_cast<size_t>(axis)];
        a = PadStats(a, axis, width, options.mode, length);
        break;
      }
      case PadMode::kLinearRamp:
        a = PadLinearRamp(a, axis, width, options.values[static_cast<size_t>(axis)]);
        break;
    }
    a = a.Contiguous();
  }
  Array out = a.Contiguous();
  out.set_weak_type(input.weak_type());
  return out;
}

}  // namespace pz::array

// Shape manipulation. View ops rewrite shape/strides/offset only; copying ops go through
// GatherCopy, which fills a new array element by element from a source index map.
#include "array/shape_ops.h"
#include "array/prims.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "array/element.h"

namespace pz::array {
namespace {

std::string AxesToString(const Axes& axes) {
  if (axes.size() == 1) return fmt::format("({},)", axes[0]);
  return fmt::format("({})", fmt::join(axes, ", "));
}

// "float32[2,3]", as JAX prints an abstract array type.
std::string TypeString(DType dtype, const Shape& shape) {
  return fmt::format("{}[{}]", DTypeName(dtype), fmt::join(shape, ","));
}

Axes NormalizeAxes(const Axes& axes, int rank) {
  Axes out;
  for (int axis : axes) out.push_back(NormalizeAxis(axis, rank));
  return out;
}

bool HasDuplicates(Axes axes) {
  std::sort(axes.begin(), axes.end());
  return std::adjacent_find(axes.begin(), axes.end()) != axes.end();
}

// A new contiguous array of `out_shape` with out[i] = a[source(i)]; `source` maps the output
// multi-index to the input multi-index it fills, or returns false to leave `fill` there.
template <typename F>
Array GatherCopy(const Array& a, const Shape& out_shape, F&& source, double fill = 0) {
  Array src = a.Contiguous();
  Array out = Array::Zeros(a.dtype(), out_shape);
  out.set_weak_type(a.weak_type());
  int64_t n = out.size();
  if (n == 0) return out;
  size_t item = ItemSize(a.dtype());
  std::vector<std::byte> fill_bytes(item);
  if (fill != 0) std::memcpy(fill_bytes.data(), Array::Scalar(a.dtype(), fill).raw(), item);
  std::vector<int64_t> src_strides = ContiguousStrides(a.shape());
  std::vector<int64_t> out_index(out_shape.size(), 0), in_index(a.shape().size(), 0);
  const std::byte* in = src.raw();
  std::byte* dst = out.raw();
  for (int64_t flat = 0; flat < n; ++flat) {
    if (source(out_index, in_index)) {
      int64_t position = 0;
      for (size_t axis = 0; axis < in_index.size(); ++axis) {
        position += in_index[axis] * src_strides[axis];
      }
      std::memcpy(dst + flat * item, in + position * item, item);
    } else {
      std::memcpy(dst + flat * item, fill_bytes.data(), item);
    }
    for (size_t axis = out_shape.size(); axis-- > 0;) {
      if (++out_index[axis] < out_shape[axis]) break;
      out_index[axis] = 0;
    }
  }
  return out;
}

// Python's modulo (the result has the divisor's sign).
int64_t FloorMod(int64_t a, int64_t b) { return ((a % b) + b) % b; }

}  // namespace

int NormalizeAxis(int axis, int rank) {
  if (axis < -rank || axis >= rank) {
    ThrowValueError(fmt::format("axis {} is out of bounds for array of dimension {}", axis, rank));
  }
  return axis < 0 ? axis + rank : axis;
}

Array Reshape(const Array& a, const Shape& shape) {
  if (Recording()) {
    return RecordPrimitive({Prim::kReshape, ShapeAttrs{shape}}, {a},
                           [&] { return Reshape(a, shape); });
  }
  Shape resolved = shape;
  auto unknown = std::count(shape.begin(), shape.end(), -1);
  if (unknown > 1) {
    ThrowTypeError(fmt::format("can only specify one unknown axis size with a `-1` value, got {}",
                               ShapeToString(shape)));
  }
  int64_t known = 1;
  for (int64_t d : shape) known *= d == -1 ? 1 : d;
  if (unknown == 1) {
    if (known == 0 || a.size() % known != 0) {
      ThrowTypeError(fmt::format(
          "cannot reshape array of shape {} (size {}) into shape {} because the product of "
          "specified axis sizes ({}) does not evenly divide {}",
          ShapeToString(a.shape()), a.size(), ShapeToString(shape), known, a.size()));
    }
    *std::find(resolved.begin(), resolved.end(), -1) = a.size() / known;
  } else if (known != a.size() ||
             std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; })) {
    ThrowTypeError(fmt::format("cannot reshape array of shape {} (size {}) into shape {} (size {})",
                               ShapeToString(a.shape()), a.size(), ShapeToString(shape), known));
  }
  Array c = a.Contiguous();
  std::vector<int64_t> strides = ContiguousStrides(resolved);
  return c.View(std::move(resolved), std::move(strides), c.offset());
}

Array Transpose(const Array& a, const std::optional<Axes>& axes) {
  if (Recording()) {
    return RecordPrimitive({Prim::kTranspose, AxesAttrs{axes}}, {a},
                           [&] { return Transpose(a, axes); });
  }
  Axes perm(a.rank());
  if (axes) {
    if (static_cast<int>(axes->size()) == a.rank()) perm = NormalizeAxes(*axes, a.rank());
    if (static_cast<int>(axes->size()) != a.rank() || HasDuplicates(perm)) {
      ThrowTypeError(fmt::format(
          "transpose permutation isn't a permutation of operand dimensions, got permutation {} "
          "for operand shape {}.",
          AxesToString(*axes), ShapeToString(a.shape())));
    }
  } else {
    for (int i = 0; i < a.rank(); ++i) perm[i] = a.rank() - 1 - i;
  }
  Shape shape;
  std::vector<int64_t> strides;
  for (int axis : perm) {
    shape.push_back(a.shape()[axis]);
    strides.push_back(a.strides()[axis]);
  }
  return a.View(std::move(shape), std::move(strides), a.offset());
}

Array SwapAxes(const Array& a, int axis1, int axis2) {
  for (int axis : {axis1, axis2}) {
    if (axis < -a.rank() || axis >= a.rank()) {
      ThrowIndexError(
          fmt::format("index {} is out of bounds for axis 0 with size {}", axis, a.rank()));
    }
  }
  Axes perm(a.rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[NormalizeAxis(axis1, a.rank())], perm[NormalizeAxis(axis2, a.rank())]);
  return Transpose(a, perm);
}

Array MoveAxis(const Array& a, const Axes& source, const Axes& destination) {
  if (source.size() != destination.size()) {
    ThrowValueError(fmt::format("Inconsistent number of elements: {} vs {}", source.size(),
                                destination.size()));
  }
  Axes src = NormalizeAxes(source, a.rank()), dst = NormalizeAxes(destination, a.rank());
  Axes order;
  for (int axis = 0; axis < a.rank(); ++axis) {
    if (std::find(src.begin(), src.end(), axis) == src.end()) order.push_back(axis);
  }
  std::vector<std::pair<int, int>> moves;
  for (size_t i = 0; i < src.size(); ++i) moves.emplace_back(dst[i], src[i]);
  std::sort(moves.begin(), moves.end());
  for (auto [to, from] : moves) {
    order.insert(order.begin() + std::min<size_t>(to, order.size()), from);
  }
  return Transpose(a, order);
}

Array ExpandDims(const Array& a, const Axes& axes) {
  if (Recording()) {
    return RecordPrimitive({Prim::kExpandDims, AxesAttrs{axes}}, {a},
                           [&] { return ExpandDims(a, axes); });
  }
  int out_rank = a.rank() + static_cast<int>(axes.size());
  Axes normalized = NormalizeAxes(axes, out_rank);
  if (HasDuplicates(normalized)) {
    ThrowValueError(fmt::format("repeated axis in lax.expand_dims: {}", AxesToString(axes)));
  }
  Shape shape;
  std::vector<int64_t> strides;
  int next = 0;
  for (int axis = 0; axis < out_rank; ++axis) {
    if (std::find(normalized.begin(), normalized.end(), axis) != normalized.end()) {
      shape.push_back(1);
      strides.push_back(0);
    } else {
      shape.push_back(a.shape()[next]);
      strides.push_back(a.strides()[next++]);
    }
  }
  return a.View(std::move(shape), std::move(strides), a.offset());
}

Array Squeeze(const Array& a, const std::optional<Axes>& axes) {
  if (Recording()) {
    return RecordPrimitive({Prim::kSqueeze, AxesAttrs{axes}}, {a},
                           [&] { return Squeeze(a, axes); });
  }
  Axes drop;
  if (axes) {
    drop = NormalizeAxes(*axes, a.rank());
    if (HasDuplicates(drop)) {
      ThrowValueError(fmt::format("dimensions are not unique: {}", AxesToString(*axes)));
    }
    for (int axis : drop) {
      if (a.shape()[axis] != 1) {
        ThrowValueError(
            fmt::format("cannot select an axis to squeeze out which has size not equal to one, got "
                        "shape={} and dimensions={}",
                        ShapeToString(a.shape()), AxesToString(drop)));
      }
    }
  } else {
    for (int axis = 0; axis < a.rank(); ++axis) {
      if (a.shape()[axis] == 1) drop.push_back(axis);
    }
  }
  Shape shape;
  std::vector<int64_t> strides;
  for (int axis = 0; axis < a.rank(); ++axis) {
    if (std::find(drop.begin(), drop.end(), axis) != drop.end()) continue;
    shape.push_back(a.shape()[axis]);
    strides.push_back(a.strides()[axis]);
  }
  return a.View(std::move(shape), std::move(strides), a.offset());
}

Array BroadcastTo(const Array& a, const Shape& shape) {
  if (Recording()) {
    return RecordPrimitive({Prim::kBroadcastInDim, ShapeAttrs{shape}}, {a},
                           [&] { return BroadcastTo(a, shape); });
  }
  if (shape.size() < a.shape().size()) {
    ThrowValueError(
        fmt::format("Cannot broadcast to shape with fewer dimensions: arr_shape={} shape={}",
                    ShapeToString(a.shape()), ShapeToString(shape)));
  }
  NumElements(shape);
  size_t lead = shape.size() - a.shape().size();
  std::vector<int64_t> strides(shape.size(), 0);
  for (size_t axis = 0; axis < a.shape().size(); ++axis) {
    int64_t from = a.shape()[axis], to = shape[lead + axis];
    if (from == to) {
      strides[lead + axis] = a.strides()[axis];
    } else if (from != 1) {
      ThrowValueError(
          fmt::format("Incompatible types for broadcasting: input type={} and requested type={}",
                      TypeString(a.dtype(), a.shape()), TypeString(a.dtype(), shape)));
    }
  }
  return a.View(shape, std::move(strides), a.offset());
}

Array Concatenate(const std::vector<Array>& arrays, int axis) {
  if (Recording()) {
    return RecordPrimitive({Prim::kConcatenate, ConcatAttrs{axis}}, arrays,
                           [&] { return Concatenate(arrays, axis); });
  }
  if (arrays.empty()) ThrowValueError("Need at least one array to concatenate.");
  const Array& first = arrays[0];
  if (first.rank() == 0) ThrowValueError("Zero-dimensional arrays cannot be concatenated.");
  axis = NormalizeAxis(axis, first.rank());
  std::vector<std::string> shapes;
  for (const Array& a : arrays) shapes.push_back(ShapeToString(a.shape()));
  TypeInfo type{first.dtype(), first.weak_type()};
  Shape out_shape = first.shape();
  out_shape[axis] = 0;
  for (const Array& a : arrays) {
    if (a.rank() != first.rank()) {
      ThrowTypeError(
          fmt::format("Cannot concatenate arrays with different numbers of dimensions: got {}.",
                      fmt::join(shapes, ", ")));
    }
    for (int d = 0; d < a.rank(); ++d) {
      if (d != axis && a.shape()[d] != first.shape()[d]) {
        ThrowTypeError(fmt::format(
            "Cannot concatenate arrays with shapes that differ in dimensions other than the one "
            "being concatenated: concatenating along dimension {} for shapes {}.",
            axis, fmt::join(shapes, ", ")));
      }
    }
    type = Promote(type, TypeInfo{a.dtype(), a.weak_type()});
    out_shape[axis] += a.shape()[axis];
  }
  Array out = Array::Zeros(type.dtype, out_shape);
  out.set_weak_type(type.weak);
  int64_t start = 0;
  for (const Array& a : arrays) {
    out.View(a.shape(), out.strides(), start * out.strides()[axis]).Assign(a);
    start += a.shape()[axis];
  }
  return out;
}

Array Stack(const std::vector<Array>& arrays, int axis) {
  if (arrays.empty()) ThrowValueError("Need at least one array to stack.");
  std::vector<std::string> shapes;
  for (const Array& a : arrays) shapes.push_back(ShapeToString(a.shape()));
  std::vector<Array> expanded;
  for (const Array& a : arrays) {
    if (a.shape() != arrays[0].shape()) {
      ThrowValueError(fmt::format("All input arrays must have the same shape. Got {}.",
                                  fmt::join(shapes, ", ")));
    }
    expanded.push_back(ExpandDims(a, {NormalizeAxis(axis, a.rank() + 1)}));
  }
  return Concatenate(expanded, NormalizeAxis(axis, arrays[0].rank() + 1));
}

std::vector<Array> Split(const Array& a, int64_t sections, int axis) {
  if (Recording()) {
    return RecordPrimitive({Prim::kSplit, SplitAttrs{.axis = axis, .sections = sections}}, {a},
                           [&] { return Split(a, sections, axis); });
  }
  axis = NormalizeAxis(axis, a.rank());
  int64_t n = a.shape()[axis];
  if (sections <= 0) ThrowValueError("number sections must be larger than 0.");
  if (n % sections != 0) {
    ThrowValueError(
        fmt::format("array split does not result in an equal division: rest is {}", n % sections));
  }
  std::vector<int64_t> indices;
  for (int64_t i = 1; i < sections; ++i) indices.push_back(i * (n / sections));
  return Split(a, indices, axis);
}

std::vector<Array> Split(const Array& a, const std::vector<int64_t>& indices, int axis) {
  if (Recording()) {
    return RecordPrimitive({Prim::kSplit, SplitAttrs{.axis = axis, .indices = indices}}, {a},
                           [&] { return Split(a, indices, axis); });
  }
  axis = NormalizeAxis(axis, a.rank());
  std::vector<int64_t> bounds = {0};
  // As in JAX (unlike numpy), indices are used as given: negative ones are not wrapped.
  bounds.insert(bounds.end(), indices.begin(), indices.end());
  bounds.push_back(a.shape()[axis]);
  std::vector<int64_t> sizes;
  for (size_t i = 1; i < bounds.size(); ++i) sizes.push_back(bounds[i] - bounds[i - 1]);
  if (std::any_of(sizes.begin(), sizes.end(), [](int64_t s) { return s < 0; })) {
    ThrowValueError(
        fmt::format("Sizes passed to split must be nonnegative, got [{}]", fmt::join(sizes, ", ")));
  }
  std::vector<Array> parts;
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape shape = a.shape();
    shape[axis] = sizes[i];
    parts.push_back(
        a.View(shape, a.strides(), a.offset() + bounds[i] * a.strides()[axis]).Contiguous());
  }
  return parts;
}

Array Tile(const Array& a, const std::vector<int64_t>& reps) {
  if (Recording()) {
    return RecordPrimitive({Prim::kTile, TileAttrs{reps}}, {a}, [&] { return Tile(a, reps); });
  }
  for (int64_t r : reps) {
    if (r < 0) ThrowValueError(fmt::format("tile repetitions must be nonnegative, got {}", r));
  }
  size_t rank = std::max(reps.size(), a.shape().size());
  Shape in_shape(rank - a.shape().size(), 1), all_reps(rank - reps.size(), 1);
  in_shape.insert(in_shape.end(), a.shape().begin(), a.shape().end());
  all_reps.insert(all_reps.end(), reps.begin(), reps.end());
  Array source = Reshape(a, in_shape);
  Shape out_shape(rank);
  for (size_t d = 0; d < rank; ++d) out_shape[d] = in_shape[d] * all_reps[d];
  return GatherCopy(source, out_shape, [&](const Shape& out, Shape& in) {
    for (size_t d = 0; d < rank; ++d) in[d] = out[d] % in_shape[d];
    return true;
  });
}

Array Repeat(const Array& a, const std::vector<int64_t>& repeats, std::optional<int> axis,
             std::optional<int64_t> total_repeat_length) {
  if (Recording()) {
    return RecordPrimitive({Prim::kRepeat, RepeatAttrs{repeats, axis, total_repeat_length}}, {a},
                           [&] { return Repeat(a, repeats, axis, total_repeat_length); });
  }
  Array source = axis ? a : Reshape(a, {a.size()});
  int ax = NormalizeAxis(axis.value_or(0), source.rank());
  int64_t n = source.shape()[ax];
  if (repeats.size() != 1 && static_cast<int64_t>(repeats.size()) != n) {
    ThrowValueError(fmt::format(
        "operands could not be broadcast together with remapped shapes [original->remapped]: "
        "({},)  and requested shape ({},)",
        repeats.size(), n));
  }
  std::vector<int64_t> from;  // the source index of every output position along the axis
  for (int64_t i = 0; i < n; ++i) {
    int64_t count = repeats.size() == 1 ? repeats[0] : repeats[i];
    if (count < 0) ThrowValueError("repeats may not contain negative values");
    from.insert(from.end(), static_cast<size_t>(count), i);
  }
  if (total_repeat_length) {
    // Like JAX, pad with the last element along the axis, even when its own count is 0.
    from.resize(static_cast<size_t>(*total_repeat_length), std::max<int64_t>(n - 1, 0));
  }
  Shape out_shape = source.shape();
  out_shape[ax] = static_cast<int64_t>(from.size());
  return GatherCopy(source, out_shape, [&](const Shape& out, Shape& in) {
    in = out;
    in[ax] = from[out[ax]];
    return true;
  });
}

Array Flip(const Array& a, const std::optional<Axes>& axes) {
  if (Recording()) {
    return RecordPrimitive({Prim::kRev, AxesAttrs{axes}}, {a}, [&] { return Flip(a, axes); });
  }
  Axes flip;
  if (axes) {
    flip = NormalizeAxes(*axes, a.rank());
  } else {
    flip.resize(a.rank());
    std::iota(flip.begin(), flip.end(), 0);
  }
  std::vector<int64_t> strides = a.strides();
  int64_t offset = a.offset();
  for (int axis : flip) {
    if (a.shape()[axis] == 0) continue;
    offset += (a.shape()[axis] - 1) * strides[axis];
    strides[axis] = -strides[axis];
  }
  return a.View(a.shape(), std::move(strides), offset);
}

Array Roll(const Array& a, const std::vector<int64_t>& shifts, const std::optional<Axes>& axes) {
  if (Recording()) {
    return RecordPrimitive({Prim::kRoll, RollAttrs{shifts, axes}}, {a},
                           [&] { return Roll(a, shifts, axes); });
  }
  if (!axes) return Reshape(Roll(Reshape(a, {a.size()}), shifts, Axes{0}), a.shape());
  size_t count = std::max(shifts.size(), axes->size());
  if ((shifts.size() != 1 && shifts.size() != count) ||
      (axes->size() != 1 && axes->size() != count)) {
    ThrowValueError("'shift' and 'axis' must have the same length or be broadcastable");
  }
  std::vector<int64_t> total(a.rank(), 0);
  for (size_t i = 0; i < count; ++i) {
    int axis = NormalizeAxis((*axes)[axes->size() == 1 ? 0 : i], a.rank());
    total[axis] += shifts[shifts.size() == 1 ? 0 : i];
  }
  return GatherCopy(a, a.shape(), [&](const Shape& out, Shape& in) {
    for (int d = 0; d < a.rank(); ++d) in[d] = FloorMod(out[d] - total[d], a.shape()[d]);
    return true;
  });
}

Array Pad(const Array& a, const PadWidth& pad_width, double constant_value) {
  if (Recording()) {
    return RecordPrimitive({Prim::kPad, PadAttrs{pad_width, constant_value}}, {a},
                           [&] { return Pad(a, pad_width, constant_value); });
  }
  size_t rank = a.shape().size();
  if (rank == 0) return a.Contiguous();
  if (pad_width.size() != 1 && pad_width.size() != rank) {
    ThrowValueError(fmt::format(
        "jnp.pad: pad_width with nd={} has unsupported shape ({}, 2). Valid shapes are ({}, 2), "
        "(1, 2), ({},), (1,), or ().",
        rank, pad_width.size(), rank, rank));
  }
  PadWidth widths(rank, pad_width[0]);
  if (pad_width.size() == rank) widths = pad_width;
  Shape out_shape(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (widths[d].first < 0 || widths[d].second < 0) {
      ThrowValueError("index can't contain negative values");
    }
    out_shape[d] = a.shape()[d] + widths[d].first + widths[d].second;
  }
  return GatherCopy(
      a, out_shape,
      [&](const Shape& out, Shape& in) {
        for (size_t d = 0; d < rank; ++d) {
          in[d] = out[d] - widths[d].first;
          if (in[d] < 0 || in[d] >= a.shape()[d]) return false;
        }
        return true;
      },
      constant_value);
}

}  // namespace pz::array

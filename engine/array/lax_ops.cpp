// jax.lax operations without a jax.numpy spelling; each records as one primitive.
#include "array/lax_ops.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "array/elementwise.h"
#include "array/indexing.h"
#include "array/prims.h"

namespace pz::array {

namespace {

// The integer dtype of x's width with the other signedness.
DType SignednessTwin(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
      return DType::kUInt8;
    case DType::kInt16:
      return DType::kUInt16;
    case DType::kInt32:
      return DType::kUInt32;
    case DType::kUInt8:
      return DType::kInt8;
    case DType::kUInt16:
      return DType::kInt16;
    case DType::kInt4:
      return DType::kUInt4;
    case DType::kUInt4:
      return DType::kInt4;
    default:
      return DType::kInt32;
  }
}

// lax's shifts take integers of one dtype (no promotion, Python ints included), in JAX's words.
void CheckShiftOperands(std::string_view name, const Array& x, const Array& y) {
  if (!IsInteger(x.dtype())) {
    ThrowTypeError(
        fmt::format("{} does not accept dtype {} at position 0. Accepted dtypes at "
                    "position 0 are subtypes of integer.",
                    name, DTypeName(x.dtype())));
  }
  if (x.dtype() != y.dtype()) {
    ThrowTypeError(fmt::format(
        "lax.{} requires arguments to have the same dtypes, got {}, {}. (Tip: jnp.{} is a similar "
        "function that does automatic type promotion on inputs).",
        name, DTypeName(x.dtype()), DTypeName(y.dtype()),
        name == "shift_left" ? "left_shift" : "right_shift"));
  }
}

// x >> y computed on the bits of x's signedness twin: a logical shift of a signed integer, or
// an arithmetic shift of an unsigned one.
Array ShiftThroughTwin(const Array& x, const Array& y) {
  DType twin = SignednessTwin(x.dtype());
  Array shifted =
      Binary(BinaryOp::kRShift, BitcastConvertType(x, twin), BitcastConvertType(y, twin));
  return BitcastConvertType(shifted, x.dtype());
}

}  // namespace

Array Clamp(const Array& lo, const Array& x, const Array& hi) {
  if (Recording()) {
    return RecordPrimitive({Prim::kClamp, NoAttrs{}}, {lo, x, hi},
                           [&] { return Clamp(lo, x, hi); });
  }
  for (const Array* bound : {&lo, &hi}) {
    if (bound->rank() != 0 && bound->shape() != x.shape()) {
      ThrowTypeError(fmt::format(
          "lax.clamp requires min and max to be scalars or of the operand's shape, got "
          "min {}, operand {}, max {}",
          ShapeToString(lo.shape()), ShapeToString(x.shape()), ShapeToString(hi.shape())));
    }
  }
  if (lo.dtype() != x.dtype() || hi.dtype() != x.dtype()) {
    ThrowTypeError(
        fmt::format("lax.clamp requires arguments to have the same dtypes, got {}, {}, {}.",
                    DTypeName(lo.dtype()), DTypeName(x.dtype()), DTypeName(hi.dtype())));
  }
  Array out = Binary(BinaryOp::kMinimum, Binary(BinaryOp::kMaximum, x, lo), hi);
  out.set_weak_type(x.weak_type());
  return out;
}

Array BitcastConvertType(const Array& x, DType dtype) {
  if (Recording()) {
    return RecordPrimitive({Prim::kBitcastConvertType, ConvertAttrs{dtype}}, {x},
                           [&] { return BitcastConvertType(x, dtype); });
  }
  if (IsBool(dtype) || IsBool(x.dtype())) {
    ThrowTypeError("lax.bitcast_convert_type does not convert to or from bool");
  }
  size_t from = ItemSize(x.dtype());
  size_t to = ItemSize(dtype);
  Shape shape = x.shape();
  if (to < from) {
    shape.push_back(static_cast<int64_t>(from / to));
  } else if (to > from) {
    int64_t ratio = static_cast<int64_t>(to / from);
    if (shape.empty() || shape.back() != ratio) {
      ThrowValueError(fmt::format(
          "bitcast_convert_type from {} to {} needs a last axis of size {}, got shape {}",
          DTypeName(x.dtype()), DTypeName(dtype), ratio, ShapeToString(x.shape())));
    }
    shape.pop_back();
  }
  Array src = x.Contiguous();
  Array out = Array::Empty(dtype, shape);
  std::memcpy(out.raw(), src.raw(), static_cast<size_t>(src.size()) * from);
  return out;
}

Array DynamicSlice(const Array& x, const std::vector<Array>& starts, const Shape& sizes) {
  if (Recording()) {
    std::vector<Array> in{x};
    in.insert(in.end(), starts.begin(), starts.end());
    return RecordPrimitive({Prim::kDynamicSlice, ShapeAttrs{sizes}}, std::move(in),
                           [&] { return DynamicSlice(x, starts, sizes); });
  }
  if (starts.size() != static_cast<size_t>(x.rank()) || sizes.size() != starts.size()) {
    ThrowTypeError(fmt::format(
        "dynamic_slice needs one start index and one size per axis of the operand (rank {}), "
        "got {} start indices and slice_sizes {}",
        x.rank(), starts.size(), ShapeToString(sizes)));
  }
  std::vector<Index> index;
  for (size_t axis = 0; axis < starts.size(); ++axis) {
    const Array& s = starts[axis];
    if (s.rank() != 0 || !IsInteger(s.dtype())) {
      ThrowTypeError(fmt::format("dynamic_slice start indices must be integer scalars, got {}{}",
                                 DTypeName(s.dtype()), ShapeToString(s.shape())));
    }
    int64_t dim = x.shape()[axis];
    int64_t size = sizes[axis];
    if (size < 0 || size > dim) {
      ThrowTypeError(fmt::format(
          "slice slice_sizes must be less than or equal to operand shape, got slice_sizes {} "
          "for operand shape {}",
          ShapeToString(sizes), ShapeToString(x.shape())));
    }
    int64_t start = std::clamp<int64_t>(s.GetInt(0), 0, dim - size);
    Index ix{.kind = Index::Kind::kSlice};
    ix.start = start;
    ix.stop = start + size;
    index.push_back(ix);
  }
  return GetIndexed(x, index).Contiguous();
}

Array ShiftRightLogical(const Array& x, const Array& y) {
  if (Recording()) {
    return RecordPrimitive({Prim::kShiftRightLogical, NoAttrs{}}, {x, y},
                           [&] { return ShiftRightLogical(x, y); });
  }
  CheckShiftOperands("shift_right_logical", x, y);
  return IsUnsigned(x.dtype()) ? Binary(BinaryOp::kRShift, x, y) : ShiftThroughTwin(x, y);
}

Array ShiftRightArithmetic(const Array& x, const Array& y) {
  CheckShiftOperands("shift_right_arithmetic", x, y);
  return IsUnsigned(x.dtype()) ? ShiftThroughTwin(x, y) : Binary(BinaryOp::kRShift, x, y);
}

Array ShiftLeft(const Array& x, const Array& y) {
  CheckShiftOperands("shift_left", x, y);
  return Binary(BinaryOp::kLShift, x, y);
}

}  // namespace pz::array

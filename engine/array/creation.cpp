// Creation routines. Each one reproduces the arithmetic of JAX's implementation (see
// jax/_src/numpy/lax_numpy.py `_arange`, array_creation.py `_linspace`) in the working dtype, so
// the results agree with JAX bit for bit.
#include "array/creation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "array/element.h"
#include "array/prims.h"

namespace pz::array {
namespace {

// A float32 result rounded to `dtype`'s precision, as one XLA op computed in that dtype.
float Round(float value, DType dtype) { return RoundToDType(value, dtype); }

// Wraps an integer to 32 bits as int32 arithmetic does.
int64_t WrapInt32(int64_t value) { return static_cast<int32_t>(static_cast<uint32_t>(value)); }

Array TriangleMask(const Array& a, int64_t k, bool lower, const char* name) {
  if (a.rank() < 2)
    ThrowValueError(fmt::format("Argument to jax.numpy.{} must be at least 2D", name));
  Array c = a.Contiguous();
  std::vector<double> values = c.ToDoubles();
  int64_t rows = a.shape()[a.rank() - 2], cols = a.shape()[a.rank() - 1];
  for (size_t flat = 0; flat < values.size(); ++flat) {
    int64_t j = static_cast<int64_t>(flat) % cols;
    int64_t i = (static_cast<int64_t>(flat) / cols) % rows;
    bool keep = lower ? j - i <= k : j - i >= k;
    if (!keep) values[flat] = 0;
  }
  return Array::FromDoubles(a.dtype(), a.shape(), values);
}

}  // namespace

Array Zeros(const Shape& shape, DType dtype) { return Array::Zeros(dtype, shape); }

Array Ones(const Shape& shape, DType dtype) {
  return Full(shape, ScalarArg{.value = 1, .dtype = dtype}, dtype);
}

Array Empty(const Shape& shape, DType dtype) { return Zeros(shape, dtype); }

Array Full(const Shape& shape, ScalarArg fill, std::optional<DType> dtype) {
  Array value = Array::Scalar(dtype.value_or(fill.dtype), fill.value);
  // A zero fill is what Zeros gives; otherwise the scalar's bytes go into every element of an
  // array that is not cleared first.
  size_t item = ItemSize(value.dtype());
  const std::byte* v = value.raw();
  bool zero = std::none_of(v, v + item, [](std::byte b) { return b != std::byte{0}; });
  Array out = zero ? Array::Zeros(value.dtype(), shape) : Array::Empty(value.dtype(), shape);
  if (!zero) {
    auto fill_as = [&](auto tag) {
      using T = decltype(tag);
      T x;
      std::memcpy(&x, v, sizeof(T));
      std::fill_n(reinterpret_cast<T*>(out.raw()), out.size(), x);
    };
    switch (item) {
      case 1:
        fill_as(uint8_t{});
        break;
      case 2:
        fill_as(uint16_t{});
        break;
      case 4:
        fill_as(uint32_t{});
        break;
      case 8:
        fill_as(uint64_t{});
        break;
      default:
        out.Assign(value.View(shape, std::vector<int64_t>(shape.size(), 0), 0));
    }
  }
  out.set_weak_type(!dtype && !IsBool(fill.dtype));
  return out;
}

Array Arange(ScalarArg start, std::optional<ScalarArg> stop, std::optional<ScalarArg> step,
             std::optional<DType> dtype) {
  if (!dtype) {
    TypeInfo type{start.dtype, true};
    if (stop) type = Promote(type, TypeInfo{stop->dtype, true});
    if (step) type = Promote(type, TypeInfo{step->dtype, true});
    dtype = type.dtype;
  }
  if (!stop) {
    stop = start;
    start = ScalarArg{.value = 0, .dtype = DType::kInt32};
  }
  double step_value = step ? step->value : 1.0;
  if (step_value == 0) ThrowValueError("arange: step must not be zero (division by zero)");
  double length = std::ceil((stop->value - start.value) / step_value);
  int64_t size = std::max<int64_t>(0, static_cast<int64_t>(length));
  std::vector<double> values(static_cast<size_t>(size));
  if (IsFloating(*dtype)) {
    // With a step, 16-bit floats work in float32 and round once at the end; without one, JAX
    // adds start and iota in the dtype itself.
    float d = static_cast<float>(step_value);
    for (int64_t i = 0; i < size; ++i) {
      float index = static_cast<float>(i);
      values[i] = step ? static_cast<float>(start.value) + d * index
                       : Round(static_cast<float>(start.value), *dtype) + Round(index, *dtype);
    }
  } else {
    // Integer dtypes convert the arguments (truncating floats) and work in the dtype.
    int64_t s = static_cast<int64_t>(std::trunc(start.value));
    int64_t d = static_cast<int64_t>(std::trunc(step_value));
    for (int64_t i = 0; i < size; ++i) values[i] = static_cast<double>(WrapInt32(s + d * i));
  }
  return Array::FromDoubles(*dtype, {size}, values);
}

Array Linspace(double start, double stop, int64_t num, bool endpoint, std::optional<DType> dtype) {
  if (num < 0) ThrowValueError(fmt::format("Number of samples, {}, must be non-negative.", num));
  DType out_dtype = dtype.value_or(DType::kFloat32);
  DType compute = IsFloating(out_dtype) ? out_dtype : DType::kFloat32;
  float lo = Round(static_cast<float>(start), compute);
  float hi = Round(static_cast<float>(stop), compute);
  std::vector<double> values;
  values.reserve(static_cast<size_t>(num));
  if (num == 1) values.push_back(lo);
  if (num > 1) {
    int64_t div = endpoint ? num - 1 : num;
    float div_f = Round(static_cast<float>(div), compute);
    for (int64_t i = 0; i < div; ++i) {
      float index = Round(static_cast<float>(i), compute);
      if (compute == DType::kFloat32) {
        // XLA on CPU rewrites start * (1 - i / div) + stop * (i / div) into
        // fma(i, stop * r, start * (1 - i * r)) with r = 1 / div rounded to float32.
        float r = 1.0f / div_f;
        values.push_back(std::fma(index, hi * r, lo * (1.0f - index * r)));
        continue;
      }
      float t = Round(index / div_f, compute);
      float a = Round(lo * Round(1.0f - t, compute), compute);
      float b = Round(hi * t, compute);
      values.push_back(Round(a + b, compute));
    }
    if (endpoint) values.push_back(hi);
  }
  if (!IsFloating(out_dtype)) {
    for (double& v : values) v = std::floor(v);
  }
  return Array::FromDoubles(out_dtype, {num}, values);
}

Array Eye(int64_t n, std::optional<int64_t> m, int64_t k, DType dtype) {
  int64_t cols = m.value_or(n);
  std::vector<double> values(static_cast<size_t>(NumElements({n, cols})), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t j = i + k;
    if (j >= 0 && j < cols) values[i * cols + j] = 1;
  }
  return Array::FromDoubles(dtype, {n, cols}, values);
}

Array Iota(DType dtype, int64_t size) { return BroadcastedIota(dtype, {size}, 0); }

Array BroadcastedIota(DType dtype, const Shape& shape, int dimension) {
  if (Recording()) {
    return RecordPrimitive({Prim::kIota, IotaAttrs{dtype, shape, dimension}}, {},
                           [&] { return BroadcastedIota(dtype, shape, dimension); });
  }
  if (dimension < 0 || dimension >= static_cast<int>(shape.size())) {
    ThrowValueError(fmt::format("broadcasted_iota dimension must be in range [0, {}), got {}",
                                shape.size(), dimension));
  }
  Array out = Array::Empty(dtype, shape);
  int64_t extent = shape[dimension];
  if (out.size() == 0) return out;
  int64_t inner = 1;
  for (size_t axis = dimension + 1; axis < shape.size(); ++axis) inner *= shape[axis];
  int64_t outer = out.size() / (inner * extent);
  // Runs of `inner` equal values, counting up along `dimension`, `outer` times over.
  DispatchDType(dtype, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    std::vector<StorageOf<D>> values(static_cast<size_t>(extent));
    for (int64_t i = 0; i < extent; ++i) {
      values[i] = Element<D>::Store(ConvertCompute<D>(static_cast<double>(i)));
    }
    auto* p = out.data<StorageOf<D>>();
    for (int64_t o = 0; o < outer; ++o) {
      if (inner == 1) {
        p = std::copy(values.begin(), values.end(), p);
        continue;
      }
      for (const auto& value : values) p = std::fill_n(p, inner, value);
    }
  });
  return out;
}

Array Tril(const Array& a, int64_t k) { return TriangleMask(a, k, true, "tril"); }
Array Triu(const Array& a, int64_t k) { return TriangleMask(a, k, false, "triu"); }

Array Diagonal(const Array& a, int64_t offset, int axis1, int axis2) {
  if (a.rank() < 2) {
    ThrowValueError("diagonal requires an array of at least two dimensions.");
  }
  if (axis1 == axis2) ThrowValueError("axis1 and axis2 must not be equal");
  int64_t rows = a.shape()[static_cast<size_t>(axis1)];
  int64_t cols = a.shape()[static_cast<size_t>(axis2)];
  int64_t row_stride = a.strides()[static_cast<size_t>(axis1)];
  int64_t col_stride = a.strides()[static_cast<size_t>(axis2)];
  int64_t length = std::max<int64_t>(
      0, std::min(rows - std::max<int64_t>(0, -offset), cols - std::max<int64_t>(0, offset)));
  Shape shape;
  std::vector<int64_t> strides;
  for (int d = 0; d < a.rank(); ++d) {
    if (d == axis1 || d == axis2) continue;
    shape.push_back(a.shape()[static_cast<size_t>(d)]);
    strides.push_back(a.strides()[static_cast<size_t>(d)]);
  }
  shape.push_back(length);
  strides.push_back(row_stride + col_stride);
  int64_t start = a.offset();
  if (length > 0) start += offset >= 0 ? offset * col_stride : -offset * row_stride;
  return a.View(shape, strides, start).Contiguous();
}

Array Diag(const Array& v, int64_t k) {
  if (v.rank() == 2) return Diagonal(v, k, 0, 1);
  if (v.rank() != 1) ThrowValueError("diag input must be 1d or 2d");
  int64_t n = v.shape()[0] + (k < 0 ? -k : k);
  Array out = Array::Zeros(v.dtype(), {n, n});
  int64_t start = k >= 0 ? k : -k * n;
  out.View({v.shape()[0]}, {n + 1}, out.offset() + start).Assign(v);
  out.set_weak_type(v.weak_type());
  return out;
}

}  // namespace pz::array

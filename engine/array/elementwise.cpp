// Where, Clip and Cast (elementwise.h): the ops built from selection and promotion rather than
// arithmetic. Where runs one strided kernel per dtype; Clip composes maximum/minimum as jnp does.
#include "array/elementwise.h"
#include "array/prims.h"

#include "array/broadcast.h"
#include "array/element.h"

namespace pz::array {

Array Where(const Array& cond, const Array& x, const Array& y) {
  if (Recording()) {
    // JAX's select_n(pred, on_false, on_true) picks the case the predicate indexes.
    return RecordPrimitive({Prim::kSelectN, NoAttrs{}}, {cond, y, x},
                           [&] { return Where(cond, x, y); });
  }
  TypeInfo promoted = Promote({x.dtype(), x.weak_type()}, {y.dtype(), y.weak_type()});
  Shape shape = BroadcastShapes(cond.shape(), x.shape(), y.shape());
  Array c = cond.AsType(DType::kBool);
  Array a = x.dtype() == promoted.dtype ? x : x.AsType(promoted.dtype);
  Array b = y.dtype() == promoted.dtype ? y : y.AsType(promoted.dtype);
  Array out = Array::Empty(promoted.dtype, shape);
  out.set_weak_type(promoted.weak);
  std::array<StrideArray, 4> strides = {StridesOf(out), BroadcastStrides(c, shape),
                                        BroadcastStrides(a, shape), BroadcastStrides(b, shape)};
  DispatchDType(promoted.dtype, [&](auto tag) {
    using S = StorageOf<decltype(tag)::value>;
    const auto* pc = reinterpret_cast<const uint8_t*>(c.raw());
    const auto* pa = reinterpret_cast<const S*>(a.raw());
    const auto* pb = reinterpret_cast<const S*>(b.raw());
    auto* po = reinterpret_cast<S*>(out.raw());
    ForEachRow<4>(shape, strides, [&](const auto& off, int64_t n, const auto& st) {
      for (int64_t i = 0; i < n; ++i) {
        po[off[0] + i] = pc[off[1] + i * st[1]] ? pa[off[2] + i * st[2]] : pb[off[3] + i * st[3]];
      }
    });
  });
  return out;
}

Array Clip(const Array& x, const std::optional<Array>& lo, const std::optional<Array>& hi) {
  Array out = x;
  if (lo) out = Binary(BinaryOp::kMaximum, *lo, out);
  if (hi) out = Binary(BinaryOp::kMinimum, *hi, out);
  return out;
}

Array Cast(const Array& a, DType dtype) {
  Array out = a.AsType(dtype);
  out.set_weak_type(false);
  return out;
}

}  // namespace pz::array

// Where, Clip and Cast (elementwise.h): the ops built from selection and promotion rather than
// arithmetic. Where runs one strided kernel per dtype (rows of contiguous or broadcast operands
// with fixed strides); Clip composes maximum/minimum as jnp does.
#include "array/elementwise.h"
#include "array/prims.h"

#include <cstdint>
#include <type_traits>

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
      const uint8_t* rc = pc + off[1];
      const S* ra = pa + off[2];
      const S* rb = pb + off[3];
      S* ro = po + off[0];
      // Rows whose operands are contiguous or one broadcast element (jnp.where(mask, x, 0.0))
      // run with the strides known to the compiler, which then vectorises them.
      auto run = [&](auto sa, auto sb) {
        for (int64_t i = 0; i < n; ++i) ro[i] = rc[i] ? ra[i * sa] : rb[i * sb];
      };
      using One = std::integral_constant<int64_t, 1>;
      using Zero = std::integral_constant<int64_t, 0>;
      if (st[1] == 1 && st[2] == 1 && st[3] == 1) {
        run(One{}, One{});
      } else if (st[1] == 1 && st[2] == 1 && st[3] == 0) {
        run(One{}, Zero{});
      } else if (st[1] == 1 && st[2] == 0 && st[3] == 1) {
        run(Zero{}, One{});
      } else {
        for (int64_t i = 0; i < n; ++i) {
          ro[i] = rc[i * st[1]] ? ra[i * st[2]] : rb[i * st[3]];
        }
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

// Broadcast shapes and strides (numpy rules, JAX's error message).
#include "array/broadcast.h"

#include <fmt/format.h>

#include <algorithm>

namespace pz::array {

namespace {

std::string ShapesList(const std::vector<const Shape*>& shapes) {
  std::vector<std::string> parts;
  for (const Shape* s : shapes) parts.push_back(ShapeToString(*s));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

Shape BroadcastAll(const std::vector<const Shape*>& shapes) {
  size_t rank = 0;
  for (const Shape* s : shapes) rank = std::max(rank, s->size());
  Shape out(rank, 1);
  for (const Shape* s : shapes) {
    size_t pad = rank - s->size();
    for (size_t i = 0; i < s->size(); ++i) {
      int64_t d = (*s)[i];
      int64_t& o = out[pad + i];
      if (d == o || d == 1) continue;
      if (o != 1) {
        ThrowValueError(
            fmt::format("Incompatible shapes for broadcasting: shapes={}", ShapesList(shapes)));
      }
      o = d;
    }
  }
  return out;
}

}  // namespace

Shape BroadcastShapes(const Shape& a, const Shape& b) { return BroadcastAll({&a, &b}); }

Shape BroadcastShapes(const Shape& a, const Shape& b, const Shape& c) {
  return BroadcastAll({&a, &b, &c});
}

StrideArray StridesOf(const Array& a) {
  PZ_CHECK(a.rank() <= kMaxRank);
  StrideArray strides{};
  std::copy(a.strides().begin(), a.strides().end(), strides.begin());
  return strides;
}

StrideArray BroadcastStrides(const Array& a, const Shape& shape) {
  PZ_CHECK(shape.size() <= static_cast<size_t>(kMaxRank));
  StrideArray strides{};
  size_t pad = shape.size() - a.shape().size();
  for (size_t i = 0; i < a.shape().size(); ++i) {
    if (a.shape()[i] == shape[pad + i]) strides[pad + i] = a.strides()[i];
  }
  return strides;
}

}  // namespace pz::array

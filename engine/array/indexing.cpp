// Index resolution: a view for basic indices, then a gather/scatter over integer-array indices
// following NumPy's placement rule for advanced dimensions.
#include "array/indexing.h"

#include <limits>
#include "array/prims.h"
#include "array/shape_ops.h"

#include <fmt/format.h>

#include <utility>

#include <algorithm>

#include "array/element.h"

namespace pz::array {
namespace {

// The resolved form of an index: a strided view of `a` in which each advanced index occupies one
// full dimension, plus the broadcast integer indices for those dimensions.
struct Plan {
  Shape view_shape;
  std::vector<int64_t> view_strides;
  int64_t view_offset = 0;
  std::vector<int> advanced_dims;                      // positions in the view
  std::vector<std::vector<int64_t>> advanced_indices;  // flattened, broadcast to advanced_shape
  Shape advanced_shape;
  bool advanced_adjacent = true;
  Shape out_shape;
  // kDrop / kFill: an integer index out of bounds drops (or fills) every element; an array
  // index marks its own elements with kDropped. kClip: indices are clamped.
  bool drop_all = false;
  int64_t affected = 0;  // out-of-bounds elements of array indices (per element of advanced_shape)
  bool clamped = false;  // an integer index was clamped
};

constexpr int64_t kDropped = std::numeric_limits<int64_t>::min();

std::vector<int64_t> BroadcastIndices(const Array& idx, const Shape& target) {
  // Broadcast `idx` (integer) to `target` and flatten.
  int64_t n = NumElements(target);
  std::vector<int64_t> out(static_cast<size_t>(n));
  int offset = static_cast<int>(target.size()) - idx.rank();
  std::vector<double> values = idx.ToDoubles();
  std::vector<int64_t> src_strides = ContiguousStrides(idx.shape());
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rem = flat;
    int64_t src = 0;
    for (int axis = static_cast<int>(target.size()) - 1; axis >= 0; --axis) {
      int64_t i = rem % target[axis];
      rem /= target[axis];
      int s = axis - offset;
      if (s >= 0 && idx.shape()[s] != 1) src += i * src_strides[s];
    }
    out[flat] = static_cast<int64_t>(values[src]);
  }
  return out;
}

Shape BroadcastShapes(const std::vector<Shape>& shapes) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape& s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& d = out[rank - s.size() + i];
      int64_t e = s[i];
      if (d == 1) {
        d = e;
      } else if (e != 1 && e != d) {
        std::vector<std::string> names;
        for (const Shape& t : shapes) names.push_back(ShapeToString(t));
        ThrowIndexError(
            fmt::format("shape mismatch: indexing arrays could not be broadcast "
                        "together with shapes {}",
                        fmt::join(names, " ")));
      }
    }
  }
  return out;
}

Plan MakePlan(const Array& a, const std::vector<Index>& raw, IndexMode mode = IndexMode::kStrict) {
  bool drop = mode == IndexMode::kDrop || mode == IndexMode::kFill;
  // Expand boolean masks into one integer index per masked dimension (host code only).
  std::vector<Index> index;
  for (const Index& item : raw) {
    if (item.kind == Index::Kind::kArray && item.array.dtype() == DType::kBool) {
      const Array& mask = item.array;
      std::vector<std::vector<double>> coords(static_cast<size_t>(mask.rank()));
      std::vector<double> bits = mask.ToDoubles();
      for (int64_t flat = 0; flat < static_cast<int64_t>(bits.size()); ++flat) {
        if (bits[flat] == 0) continue;
        int64_t rem = flat;
        for (int axis = mask.rank() - 1; axis >= 0; --axis) {
          coords[axis].push_back(static_cast<double>(rem % mask.shape()[axis]));
          rem /= mask.shape()[axis];
        }
      }
      for (int axis = 0; axis < mask.rank(); ++axis) {
        Index coord;
        coord.kind = Index::Kind::kArray;
        coord.array = Array::FromDoubles(DType::kInt32, {static_cast<int64_t>(coords[axis].size())},
                                         coords[axis]);
        index.push_back(std::move(coord));
      }
      if (mask.rank() == 0) {
        ThrowIndexError("a 0-d boolean index is not supported; use `jnp.where`");
      }
      continue;
    }
    if (item.kind == Index::Kind::kArray && !IsInteger(item.array.dtype())) {
      ThrowIndexError(
          fmt::format("indexer must have integer or boolean type, got indexer with "
                      "type {}",
                      DTypeName(item.array.dtype())));
    }
    index.push_back(item);
  }

  int consumed = 0;
  int ellipses = 0;
  for (const Index& item : index) {
    if (item.kind == Index::Kind::kEllipsis) ++ellipses;
    if (item.kind != Index::Kind::kNewAxis && item.kind != Index::Kind::kEllipsis) ++consumed;
  }
  if (ellipses > 1) ThrowIndexError("an index can only have a single ellipsis ('...')");
  if (consumed > a.rank()) {
    ThrowIndexError(
        fmt::format("too many indices for array: array is {}-dimensional, but {} "
                    "were indexed",
                    a.rank(), consumed));
  }

  Plan plan;
  plan.view_offset = a.offset();
  int axis = 0;
  int last_advanced_item = -2;
  std::vector<const Array*> arrays;
  for (size_t k = 0; k < index.size(); ++k) {
    const Index& item = index[k];
    switch (item.kind) {
      case Index::Kind::kEllipsis: {
        int take = a.rank() - consumed;
        for (int i = 0; i < take; ++i, ++axis) {
          plan.view_shape.push_back(a.shape()[axis]);
          plan.view_strides.push_back(a.strides()[axis]);
        }
        break;
      }
      case Index::Kind::kNewAxis:
        plan.view_shape.push_back(1);
        plan.view_strides.push_back(0);
        break;
      case Index::Kind::kInt: {
        int64_t size = a.shape()[axis];
        int64_t i = item.value < 0 ? item.value + size : item.value;
        if ((i < 0 || i >= size) && drop) {
          plan.drop_all = true;
          i = 0;
        }
        if ((i < 0 || i >= size) && mode == IndexMode::kClip && size > 0) {
          plan.clamped = true;
          i = std::clamp<int64_t>(i, 0, size - 1);
        }
        if (i < 0 || i >= size) {
          ThrowIndexError(fmt::format("index {} is out of bounds for axis {} with size {}",
                                      item.value, axis, size));
        }
        plan.view_offset += i * a.strides()[axis];
        ++axis;
        break;
      }
      case Index::Kind::kSlice: {
        int64_t size = a.shape()[axis];
        int64_t step = item.step.value_or(1);
        if (step == 0) ThrowValueError("slice step cannot be zero");
        int64_t lower = step < 0 ? -1 : 0, upper = step < 0 ? size - 1 : size;
        auto clamp = [&](std::optional<int64_t> v, int64_t fallback) {
          if (!v) return fallback;
          int64_t i = *v;
          if (i < 0) i = std::max(i + size, lower);
          return std::min(i, upper);
        };
        int64_t start = clamp(item.start, step < 0 ? upper : lower);
        int64_t stop = clamp(item.stop, step < 0 ? lower : upper);
        int64_t count = 0;
        if (step > 0 && start < stop) count = (stop - start - 1) / step + 1;
        if (step < 0 && start > stop) count = (start - stop - 1) / (-step) + 1;
        if (count > 0) plan.view_offset += start * a.strides()[axis];
        plan.view_shape.push_back(count);
        plan.view_strides.push_back(a.strides()[axis] * step);
        ++axis;
        break;
      }
      case Index::Kind::kArray:
        if (!plan.advanced_dims.empty() && last_advanced_item != static_cast<int>(k) - 1) {
          plan.advanced_adjacent = false;
        }
        last_advanced_item = static_cast<int>(k);
        plan.advanced_dims.push_back(static_cast<int>(plan.view_shape.size()));
        plan.view_shape.push_back(a.shape()[axis]);
        plan.view_strides.push_back(a.strides()[axis]);
        arrays.push_back(&item.array);
        ++axis;
        break;
    }
  }
  for (; axis < a.rank(); ++axis) {
    plan.view_shape.push_back(a.shape()[axis]);
    plan.view_strides.push_back(a.strides()[axis]);
  }
  if (arrays.empty()) {
    plan.out_shape = plan.view_shape;
    return plan;
  }
  std::vector<Shape> shapes;
  for (const Array* arr : arrays) shapes.push_back(arr->shape());
  plan.advanced_shape = BroadcastShapes(shapes);
  for (size_t j = 0; j < arrays.size(); ++j) {
    std::vector<int64_t> idx = BroadcastIndices(*arrays[j], plan.advanced_shape);
    int dim = plan.advanced_dims[j];
    int64_t size = plan.view_shape[dim];
    for (int64_t& i : idx) {
      int64_t original = i;
      if (i < 0) i += size;
      if ((i < 0 || i >= size) && drop) {
        i = kDropped;
        ++plan.affected;
        continue;
      }
      if ((i < 0 || i >= size) && mode == IndexMode::kClip && size > 0) {
        i = std::clamp<int64_t>(i, 0, size - 1);
        ++plan.affected;
        continue;
      }
      if (i < 0 || i >= size) {
        ThrowIndexError(
            fmt::format("index {} is out of bounds for axis {} with size {} (JAX "
                        "would silently clamp it)",
                        original, dim, size));
      }
    }
    plan.advanced_indices.push_back(std::move(idx));
  }
  // NumPy's rule: adjacent advanced indices keep their place; otherwise they go first.
  int first = plan.advanced_dims.front();
  auto is_advanced = [&](int d) {
    return std::find(plan.advanced_dims.begin(), plan.advanced_dims.end(), d) !=
           plan.advanced_dims.end();
  };
  if (plan.advanced_adjacent) {
    for (int d = 0; d < first; ++d) plan.out_shape.push_back(plan.view_shape[d]);
    plan.out_shape.insert(plan.out_shape.end(), plan.advanced_shape.begin(),
                          plan.advanced_shape.end());
    for (int d = first; d < static_cast<int>(plan.view_shape.size()); ++d) {
      if (!is_advanced(d)) plan.out_shape.push_back(plan.view_shape[d]);
    }
  } else {
    plan.out_shape = plan.advanced_shape;
    for (int d = 0; d < static_cast<int>(plan.view_shape.size()); ++d) {
      if (!is_advanced(d)) plan.out_shape.push_back(plan.view_shape[d]);
    }
  }
  return plan;
}

// Storage offsets (into a's buffer) of every output element of an advanced plan, row-major.
std::vector<int64_t> GatherOffsets(const Plan& plan) {
  int64_t n = NumElements(plan.out_shape);
  std::vector<int64_t> offsets(static_cast<size_t>(n));
  std::vector<int> basic_dims;
  for (int d = 0; d < static_cast<int>(plan.view_shape.size()); ++d) {
    if (std::find(plan.advanced_dims.begin(), plan.advanced_dims.end(), d) ==
        plan.advanced_dims.end()) {
      basic_dims.push_back(d);
    }
  }
  int adv_rank = static_cast<int>(plan.advanced_shape.size());
  int adv_start = plan.advanced_adjacent ? plan.advanced_dims.front() : 0;
  std::vector<int64_t> out_index(plan.out_shape.size());
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rem = flat;
    for (size_t i = plan.out_shape.size(); i-- > 0;) {
      out_index[i] = rem % plan.out_shape[i];
      rem /= plan.out_shape[i];
    }
    int64_t adv_flat = 0;
    for (int i = 0; i < adv_rank; ++i) {
      adv_flat = adv_flat * plan.advanced_shape[i] + out_index[adv_start + i];
    }
    int64_t position = plan.view_offset;
    bool dropped = false;
    for (size_t j = 0; j < plan.advanced_dims.size(); ++j) {
      int64_t i = plan.advanced_indices[j][adv_flat];
      dropped = dropped || i == kDropped;
      position += (i == kDropped ? 0 : i) * plan.view_strides[plan.advanced_dims[j]];
    }
    if (dropped) {
      offsets[flat] = -1;  // an update that is dropped
      continue;
    }
    // Basic dims fill the output positions not taken by the advanced block, in order.
    size_t b = 0;
    for (int i = 0; i < static_cast<int>(out_index.size()); ++i) {
      if (i >= adv_start && i < adv_start + adv_rank) continue;
      position += out_index[i] * plan.view_strides[basic_dims[b++]];
    }
    offsets[flat] = position;
  }
  return offsets;
}

// A recorded index: its integer-array indices move to `inputs` (in order) and are left empty in
// the returned index, which becomes the primitive's attribute (RunPrim puts them back).
std::vector<Index> MoveIndexArrays(const std::vector<Index>& index, std::vector<Array>& inputs) {
  std::vector<Index> attrs = index;
  for (Index& ix : attrs) {
    if (ix.kind == Index::Kind::kArray) inputs.push_back(std::exchange(ix.array, Array()));
  }
  return attrs;
}

}  // namespace

Array GetIndexed(const Array& a, const std::vector<Index>& index, IndexMode mode, double fill,
                 int64_t* affected) {
  if (mode == IndexMode::kDrop) mode = IndexMode::kFill;
  if (Recording()) {
    std::vector<Array> inputs{a};
    std::vector<Index> attrs = MoveIndexArrays(index, inputs);
    Prim prim = inputs.size() > 1 ? Prim::kGather : Prim::kSlice;
    return RecordPrimitive({prim, IndexAttrs{std::move(attrs), mode, fill}}, std::move(inputs),
                           [&] { return GetIndexed(a, index, mode, fill, affected); });
  }
  Plan plan = MakePlan(a, index, mode);
  if (affected != nullptr) {
    *affected = plan.drop_all || plan.clamped ? NumElements(plan.out_shape) : plan.affected;
  }
  Array filler = Array::Scalar(a.dtype(), fill);
  if (plan.drop_all) return BroadcastTo(filler, plan.out_shape).Contiguous();
  if (plan.advanced_dims.empty()) {
    Array view = a.View(plan.view_shape, plan.view_strides, plan.view_offset);
    view.set_weak_type(false);
    return view;
  }
  std::vector<int64_t> offsets = GatherOffsets(plan);
  Array out = Array::Zeros(a.dtype(), plan.out_shape);
  size_t item = ItemSize(a.dtype());
  const std::byte* base = a.raw() - a.offset() * static_cast<int64_t>(item);
  std::byte* dst = out.raw();
  for (size_t i = 0; i < offsets.size(); ++i) {
    const std::byte* from =
        offsets[i] < 0 ? filler.raw() : base + offsets[i] * static_cast<int64_t>(item);
    std::memcpy(dst + i * item, from, item);
  }
  return out;
}

Array UpdateIndexed(const Array& a, const std::vector<Index>& index, const Array& values,
                    UpdateOp op, IndexMode mode, int64_t* affected) {
  if (mode == IndexMode::kFill) mode = IndexMode::kDrop;
  if (Recording()) {
    std::vector<Array> inputs{a, values};
    std::vector<Index> attrs = MoveIndexArrays(index, inputs);
    return RecordPrimitive({Prim::kScatter, ScatterAttrs{std::move(attrs), op, mode}},
                           std::move(inputs),
                           [&] { return UpdateIndexed(a, index, values, op, mode, affected); });
  }
  // Updates are functional: write into a fresh copy.
  Array out = Array::Zeros(a.dtype(), a.shape());
  out.Assign(a);
  Plan plan = MakePlan(out, index, mode);
  if (affected != nullptr) {
    *affected = plan.drop_all || plan.clamped ? NumElements(plan.out_shape) : plan.affected;
  }
  std::vector<int64_t> offsets;
  if (plan.advanced_dims.empty()) {
    std::vector<int64_t> strides = plan.view_strides;
    int64_t n = NumElements(plan.view_shape);
    offsets.resize(static_cast<size_t>(n));
    for (int64_t flat = 0; flat < n; ++flat) {
      int64_t rem = flat, position = plan.view_offset;
      for (size_t i = plan.view_shape.size(); i-- > 0;) {
        position += (rem % plan.view_shape[i]) * strides[i];
        rem /= plan.view_shape[i];
      }
      offsets[flat] = position;
    }
  } else {
    offsets = GatherOffsets(plan);
  }
  // Broadcast values to the indexed shape.
  const Shape& target = plan.out_shape;
  if (values.rank() > static_cast<int>(target.size())) {
    ThrowValueError(fmt::format("cannot update a slice of shape {} with values of shape {}",
                                ShapeToString(target), ShapeToString(values.shape())));
  }
  Array v = values.AsType(a.dtype());
  std::vector<int64_t> vstrides = ContiguousStrides(v.shape());
  int shift = static_cast<int>(target.size()) - v.rank();
  for (int i = 0; i < v.rank(); ++i) {
    if (v.shape()[i] != 1 && v.shape()[i] != target[shift + i]) {
      ThrowValueError(fmt::format("cannot update a slice of shape {} with values of shape {}",
                                  ShapeToString(target), ShapeToString(values.shape())));
    }
  }
  DispatchDType(a.dtype(), [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    using S = StorageOf<D>;
    auto* base = reinterpret_cast<S*>(out.raw());
    const S* src = v.data<S>();
    for (size_t flat = 0; flat < offsets.size(); ++flat) {
      if (plan.drop_all) break;
      if (offsets[flat] < 0) continue;  // dropped
      int64_t rem = static_cast<int64_t>(flat), vpos = 0;
      for (int i = static_cast<int>(target.size()) - 1; i >= 0; --i) {
        int64_t coord = rem % target[i];
        rem /= target[i];
        int s = i - shift;
        if (s >= 0 && v.shape()[s] != 1) vpos += coord * vstrides[s];
      }
      S& dst = base[offsets[flat]];
      auto cur = Element<D>::Load(dst);
      auto val = Element<D>::Load(src[vpos]);
      switch (op) {
        case UpdateOp::kSet:
          dst = src[vpos];
          break;
        case UpdateOp::kAdd:
          dst = Element<D>::Store(static_cast<ComputeOf<D>>(cur + val));
          break;
        case UpdateOp::kMultiply:
          dst = Element<D>::Store(static_cast<ComputeOf<D>>(cur * val));
          break;
        case UpdateOp::kMin:
          dst = Element<D>::Store(val < cur ? val : cur);
          break;
        case UpdateOp::kMax:
          dst = Element<D>::Store(val > cur ? val : cur);
          break;
      }
    }
  });
  return out;
}

}  // namespace pz::array

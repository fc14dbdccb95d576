// The executor's accesses to ref memory (see executor.h): locating an indexed access as a box of
// the ref's buffer, the uninitialised-read check on its shadow, loads (a whole buffer shared, not
// copied), stores (a big scratch buffer may take a dead value's storage), and DetachViews, which
// keeps values still to be read apart from a buffer about to be written.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <span>

#include "array/broadcast.h"
#include "support/check.h"
#include "tpu/dma.h"
#include "tpu/executor.h"

namespace pz::tpu {

using array::Array;
using kernel::Instr;

void Executor::DetachViews(const Instr& instr, const RefBuffer* buffer) {
  int32_t position = -1;  // looked up only when some value shares the storage
  for (size_t v = 0; v < env_.size(); ++v) {
    Array& value = env_[v];
    bool shared = false;
    if (buffer != nullptr) {
      shared = value.SharesStorageWith(buffer->data);
    } else {
      for (kernel::RefId ref : dma_destinations_) {
        shared |= value.SharesStorageWith(context_.refs[ref]->data);
      }
    }
    if (!shared) continue;
    if (position < 0) position = position_.at(&instr);
    if (def_[v] >= position || last_use_[v] <= position) continue;
    value = Copy(value);
  }
}

bool Executor::StaticWhole(const kernel::RefPath& path) const {
  const array::Shape& shape = function_.refs[path.ref].shape;
  if (path.indexers.size() != 1 || path.indexers[0].size() != shape.size()) return false;
  for (size_t d = 0; d < shape.size(); ++d) {
    const kernel::DimIndex& dim = path.indexers[0][d];
    if (dim.is_int || dim.dynamic_start != kernel::kNoValue || dim.start != 0 ||
        dim.size != shape[d] || (dim.stride != 1 && shape[d] > 1)) {
      return false;
    }
  }
  return true;
}

Executor::Place Executor::Locate(const Instr& instr, const kernel::RefPath& path, bool is_write) {
  const kernel::RefType& ref = function_.refs[path.ref];
  RefBuffer* buffer = context_.refs[path.ref];
  PZ_CHECK(buffer != nullptr);
  const array::Shape& buffer_shape = buffer->data.shape();
  Place place;  // shape and strides left uninitialised past `rank` (no 128-byte clear per access)
  place.buffer = buffer;
  place.rank = buffer_shape.size();
  place.offset = buffer->data.offset();
  // `x_ref[...]`, the usual access: nothing to check, nothing to compute (a grid step of small
  // blocks spends a good part of its time here).
  if (StaticWhole(path) && array::SameDims(buffer_shape, ref.shape) &&
      (buffer->borrowed || buffer->data.IsContiguous())) {
    place.whole = true;
    return place;
  }
  PZ_CHECK(place.rank <= static_cast<size_t>(array::kMaxRank));
  std::copy(buffer_shape.begin(), buffer_shape.end(), place.shape.begin());
  std::copy(buffer->data.strides().begin(), buffer->data.strides().end(), place.strides.begin());
  bool whole = true;
  for (const kernel::Indexer& indexer : path.indexers) {
    if (!is_write && context_.out_of_bounds_reads_uninitialized && OutOfBounds(indexer, place)) {
      place = UninitializedWindow(indexer, place);
      whole = false;
      continue;
    }
    size_t rank = 0;
    for (size_t d = 0; d < indexer.size(); ++d) {
      const kernel::DimIndex& dim = indexer[d];
      int64_t start = dim.start;
      if (dim.dynamic_start != kernel::kNoValue) start += ScalarInt(dim.dynamic_start);
      int64_t extent = dim.is_int ? 1 : (dim.size == 0 ? 0 : (dim.size - 1) * dim.stride + 1);
      int64_t n = place.shape[d];
      if (start < 0 || start + extent > n) {
        if (context_.semantics == Semantics::kInterpret) {
          start = std::clamp<int64_t>(start, 0, std::max<int64_t>(n - extent, 0));
        } else {
          std::string window =
              dim.is_int ? std::to_string(start)
                         : fmt::format("{}:{}{}", start, start + extent,
                                       dim.stride != 1 ? fmt::format(":{}", dim.stride) : "");
          Fail(instr, EmulationError::Kind::kIndexError,
               fmt::format("Out-of-bounds {} of {}: index {} on dimension {} of size {} (grid "
                           "step {})",
                           is_write ? "write" : "read", ref.name, window, d, n,
                           context_.GridPointString()),
               {"the index was computed while the kernel ran (from pl.program_id, a loop index "
                "or loaded data); on a TPU this touches memory outside the buffer",
                "check the arithmetic of the start against the ref's shape, or mask the "
                "ragged part instead of reading past the end"});
        }
      }
      whole &= !dim.is_int && start == 0 && dim.size == n && (dim.stride == 1 || n <= 1);
      place.offset += start * place.strides[d];
      if (!dim.is_int) {
        // In place: rank <= d, so entry d is read before it is overwritten.
        place.shape[rank] = dim.size;
        place.strides[rank] = place.strides[d] * dim.stride;
        ++rank;
      }
    }
    place.rank = rank;
  }
  place.whole = whole && place.rank == buffer_shape.size() &&
                (buffer->borrowed || buffer->data.IsContiguous());
  return place;
}

bool Executor::OutOfBounds(const kernel::Indexer& indexer, const Place& place) const {
  for (size_t d = 0; d < indexer.size(); ++d) {
    const kernel::DimIndex& dim = indexer[d];
    int64_t start = dim.start;
    if (dim.dynamic_start != kernel::kNoValue) start += ScalarInt(dim.dynamic_start);
    int64_t extent = dim.is_int ? 1 : (dim.size == 0 ? 0 : (dim.size - 1) * dim.stride + 1);
    if (start < 0 || start + extent > place.shape[d]) return true;
  }
  return false;
}

Executor::Place Executor::UninitializedWindow(const kernel::Indexer& indexer, const Place& place) {
  // The window as a fresh buffer: poison, with the elements inside the ref copied in.
  array::Shape shape;
  for (const kernel::DimIndex& dim : indexer) {
    if (!dim.is_int) shape.push_back(dim.size);
  }
  array::DType dtype = place.buffer->data.dtype();
  auto window = std::make_unique<RefBuffer>();
  window->data = Poison(shape, dtype, context_.zero_uninitialized);
  size_t item = array::ItemSize(dtype);
  const std::byte* base = place.buffer->data.raw() - place.buffer->data.offset() * item;
  std::byte* out = window->data.raw();
  int64_t count = array::NumElements(shape);
  std::vector<int64_t> counter(indexer.size(), 0);  // per indexer dim (ints stay 0)
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rem = flat;
    for (size_t d = indexer.size(); d-- > 0;) {
      if (indexer[d].is_int) continue;
      counter[d] = rem % indexer[d].size;
      rem /= indexer[d].size;
    }
    int64_t offset = place.offset;
    bool inside = true;
    for (size_t d = 0; d < indexer.size() && inside; ++d) {
      const kernel::DimIndex& dim = indexer[d];
      int64_t start = dim.start;
      if (dim.dynamic_start != kernel::kNoValue) start += ScalarInt(dim.dynamic_start);
      int64_t i = start + counter[d] * (dim.is_int ? 0 : dim.stride);
      inside = i >= 0 && i < place.shape[d];
      offset += i * place.strides[d];
    }
    if (inside)
      std::memcpy(out + flat * static_cast<int64_t>(item),
                  base + offset * static_cast<int64_t>(item), item);
  }
  Place result;
  result.buffer = window.get();
  result.rank = shape.size();
  result.offset = 0;
  std::vector<int64_t> strides = array::ContiguousStrides(shape);
  std::copy(shape.begin(), shape.end(), result.shape.begin());
  std::copy(strides.begin(), strides.end(), result.strides.begin());
  out_of_bounds_windows_.push_back(std::move(window));
  // An instruction resolves a few places at a time: older windows are no longer referenced.
  if (out_of_bounds_windows_.size() > 64) out_of_bounds_windows_.pop_front();
  return result;
}

Array Executor::DataView(const Place& place) {
  if (place.whole) return place.buffer->data;
  return place.buffer->data.View(
      array::Shape(place.shape.begin(), place.shape.begin() + place.rank),
      std::vector<int64_t>(place.strides.begin(), place.strides.begin() + place.rank),
      place.offset);
}

Executor::Window Executor::Resolve(const Instr& instr, const kernel::RefPath& path, bool is_write) {
  Place place = Locate(instr, path, is_write);
  Window window{
      .data = DataView(place), .tracked = place.buffer->tracked, .stale = place.buffer->stale};
  if (window.tracked) {
    window.initialized = place.buffer->initialized.View(window.data.shape(), window.data.strides(),
                                                        window.data.offset());
  }
  return window;
}

namespace {

// Calls row(offset, count, stride) for every row of a box of `rank` dimensions (`shape`,
// `strides` in elements from `offset`), with array::ForEachRow's coalescing: a contiguous box
// is one row.
template <typename Row>
void ForEachRun(size_t rank, const int64_t* shape, const int64_t* strides, int64_t offset,
                Row&& row) {
  std::array<array::StrideArray, 1> box;
  std::copy(strides, strides + rank, box[0].begin());
  array::ForEachRow<1>(
      std::span<const int64_t>(shape, rank), box,
      [&](const auto& at, int64_t n, const auto& step) { row(offset + at[0], n, step[0]); });
}

// True when the box is one run of memory in row-major order.
bool IsDense(size_t rank, const int64_t* shape, const int64_t* strides) {
  int64_t expected = 1;
  for (size_t d = rank; d-- > 0;) {
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

int64_t BoxSize(size_t rank, const int64_t* shape) {
  int64_t n = 1;
  for (size_t d = 0; d < rank; ++d) n *= shape[d];
  return n;
}

// True when none of the n bytes at p is zero (small runs without a call).
bool NoneZero(const uint8_t* p, int64_t n) {
  if (n > 64) return std::memchr(p, 0, static_cast<size_t>(n)) == nullptr;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {  // eight bytes at a time: a zero byte borrows into its top bit
    uint64_t v;
    std::memcpy(&v, p + i, 8);
    if (((v - 0x0101010101010101u) & ~v & 0x8080808080808080u) != 0) return false;
  }
  for (; i < n; ++i) {
    if (p[i] == 0) return false;
  }
  return true;
}

// True when every element of the place's box of its buffer's shadow is non-zero.
bool AllSet(const Array& shadow, size_t rank, const int64_t* shape, const int64_t* strides,
            int64_t offset) {
  const auto* base = reinterpret_cast<const uint8_t*>(shadow.raw()) - shadow.offset();
  if (IsDense(rank, shape, strides)) return NoneZero(base + offset, BoxSize(rank, shape));
  bool all = true;
  ForEachRun(rank, shape, strides, offset, [&](int64_t o, int64_t n, int64_t stride) {
    const uint8_t* p = base + o;
    if (!all) return;
    if (stride == 1) {
      all = std::memchr(p, 0, static_cast<size_t>(n)) == nullptr;
      return;
    }
    for (int64_t i = 0; i < n && all; ++i) all = p[i * stride] != 0;
  });
  return all;
}

// True when an element of the box of a shadow is 2: stored at an earlier point of the carry axes
// (RefBuffer::stale).
bool AnyStale(const Array& shadow, size_t rank, const int64_t* shape, const int64_t* strides,
              int64_t offset) {
  const auto* base = reinterpret_cast<const uint8_t*>(shadow.raw()) - shadow.offset();
  bool any = false;
  ForEachRun(rank, shape, strides, offset, [&](int64_t o, int64_t n, int64_t stride) {
    const uint8_t* p = base + o;
    if (any) return;
    if (stride == 1) {
      any = std::memchr(p, 2, static_cast<size_t>(n)) != nullptr;
      return;
    }
    for (int64_t i = 0; i < n && !any; ++i) any = p[i * stride] == 2;
  });
  return any;
}

// Marks the box as initialised.
void SetAll(Array& shadow, size_t rank, const int64_t* shape, const int64_t* strides,
            int64_t offset) {
  uint8_t* base = reinterpret_cast<uint8_t*>(shadow.raw()) - shadow.offset();
  if (IsDense(rank, shape, strides)) {
    std::memset(base + offset, 1, static_cast<size_t>(BoxSize(rank, shape)));
    return;
  }
  ForEachRun(rank, shape, strides, offset, [&](int64_t o, int64_t n, int64_t stride) {
    uint8_t* p = base + o;
    if (stride == 1) {
      std::memset(p, 1, static_cast<size_t>(n));
    } else {
      for (int64_t i = 0; i < n; ++i) p[i * stride] = 1;
    }
  });
}

}  // namespace

void Executor::NoteRead(const Instr& instr, kernel::RefId ref, const Window& window) {
  if (window.stale && context_.carried != nullptr && !context_.carried->seen &&
      AnyStale(window.initialized, window.initialized.shape().size(),
               window.initialized.shape().data(), window.initialized.strides().data(),
               window.initialized.offset())) {
    NoteCarried(instr, ref);
  }
  if (context_.uninitialized != nullptr && !context_.uninitialized->seen && window.tracked &&
      !AllSet(window.initialized, window.initialized.shape().size(),
              window.initialized.shape().data(), window.initialized.strides().data(),
              window.initialized.offset())) {
    context_.uninitialized->seen = true;
    context_.uninitialized->span = instr.span;
    context_.uninitialized->ref = function_.refs[ref].name;
    context_.uninitialized->grid_point =
        context_.grid_point ? *context_.grid_point : std::vector<int64_t>{};
  }
}

bool Executor::HoldsStale(const Place& place) {
  const Array& shadow = place.buffer->initialized;
  if (place.whole) {
    return std::memchr(shadow.data<uint8_t>(), 2, static_cast<size_t>(shadow.size())) != nullptr;
  }
  return AnyStale(shadow, place.rank, place.shape.data(), place.strides.data(), place.offset);
}

void Executor::NoteCarried(const Instr& instr, kernel::RefId ref) {
  context_.carried->seen = true;
  context_.carried->span = instr.span;
  context_.carried->ref = ref;
  context_.carried->grid_point =
      context_.grid_point ? *context_.grid_point : std::vector<int64_t>{};
}

void Executor::NoteRead(const Instr& instr, kernel::RefId ref, const Place& place) {
  if (place.buffer->stale && context_.carried != nullptr && !context_.carried->seen &&
      HoldsStale(place)) {
    NoteCarried(instr, ref);
  }
  if (context_.uninitialized == nullptr || context_.uninitialized->seen || !place.buffer->tracked ||
      place.buffer->borrowed) {  // (a borrowed window is data throughout)
    return;
  }
  const Array& shadow = place.buffer->initialized;
  if (place.whole
          ? NoneZero(shadow.data<uint8_t>(), shadow.size())
          : AllSet(shadow, place.rank, place.shape.data(), place.strides.data(), place.offset)) {
    return;
  }
  context_.uninitialized->seen = true;
  context_.uninitialized->span = instr.span;
  context_.uninitialized->ref = function_.refs[ref].name;
  context_.uninitialized->grid_point =
      context_.grid_point ? *context_.grid_point : std::vector<int64_t>{};
}

void Executor::Load(const Instr& instr, bool may_take) {
  Place place = Locate(instr, instr.ref, false);
  if (context_.dma != nullptr && context_.dma->busy()) {
    context_.dma->CheckAccess(instr, instr.ref.ref,
                              RegionOf(*context_.refs[instr.ref.ref], DataView(place)), false);
  }
  NoteRead(instr, instr.ref.ref, place);
  // A whole buffer is shared, not copied: DetachViews copies it before the buffer changes.
  // (Assigned in place: the value slot keeps its shape storage from the previous step.)
  if (place.whole) {
    if (may_take && TakeBuffer(instr, place)) return;
    Array& value = env_[instr.results[0]];
    // The previous step's load of this buffer is often still there, the very same view.
    if (!value.SameView(place.buffer->data)) value = place.buffer->data;
    value.set_weak_type(place.buffer->data.weak_type());
  } else {
    env_[instr.results[0]] = Copy(DataView(place));
  }
}

void Executor::Store(const Instr& instr) {
  Place place = Locate(instr, instr.ref, true);
  if (context_.dma != nullptr && context_.dma->busy()) {
    context_.dma->CheckAccess(instr, instr.ref.ref,
                              RegionOf(*context_.refs[instr.ref.ref], DataView(place)), true);
  }
  DetachViews(instr, place.buffer);
  Array& value = env_[instr.operands[0]];
  Array& data = place.buffer->data;
  if (SwapIntoScratch(instr, place, value)) {
    // (the value's storage is the buffer's now)
  } else if ((place.whole ? !place.buffer->borrowed  // (a borrowed window has HBM's strides)
                          : IsDense(place.rank, place.shape.data(), place.strides.data())) &&
             value.IsContiguous() && value.dtype() == data.dtype()) {
    size_t item = array::ItemSize(value.dtype());
    // memmove: the value may be the buffer itself (`x_ref[...] = x_ref[...]`).
    std::memmove(data.raw() + (place.offset - data.offset()) * static_cast<int64_t>(item),
                 value.raw(), static_cast<size_t>(value.size()) * item);
  } else {
    DataView(place).Assign(value);
  }
  if (place.buffer->tracked) {
    Array& shadow = place.buffer->initialized;
    if (place.whole) {
      std::memset(shadow.data<uint8_t>(), 1, static_cast<size_t>(shadow.size()));
      place.buffer->stale = false;
    } else {
      SetAll(shadow, place.rank, place.shape.data(), place.strides.data(), place.offset);
    }
  }
  place.buffer->last_write = instr.span;
  ++place.buffer->writes;
}

bool Executor::TakeBuffer(const Instr& instr, const Place& place) {
  constexpr int64_t kMinBytes = 4096;  // as SwapIntoScratch
  Array& data = place.buffer->data;
  Array& value = env_[instr.results[0]];
  if (place.buffer->borrowed || (context_.dma != nullptr && context_.dma->busy()) ||
      data.size() * static_cast<int64_t>(array::ItemSize(data.dtype())) < kMinBytes) {
    return false;
  }
  // The previous run's load of the buffer lets go of it (the load replaces it anyway).
  if (value.SharesStorageWith(data)) value = Array();
  if (!data.Reusable(data.dtype(), data.shape())) return false;
  // The buffer keeps the slot's old storage, or new storage the first time (then the ops that
  // consume the value in place pass storage around: no allocation in later runs).
  if (!value.Reusable(data.dtype(), data.shape())) value = Array::Empty(data.dtype(), data.shape());
  bool weak = data.weak_type();
  std::swap(data, value);
  data.set_weak_type(weak);
  value.set_weak_type(weak);
  return true;
}

bool Executor::SwapIntoScratch(const Instr& instr, const Place& place, Array& value) {
  constexpr int64_t kMinBytes = 4096;  // below this a copy costs less than finding out
  Array& data = place.buffer->data;
  if (!place.whole || function_.refs[instr.ref.ref].role != kernel::RefRole::kScratch ||
      (context_.dma != nullptr && context_.dma->busy()) ||
      data.size() * static_cast<int64_t>(array::ItemSize(data.dtype())) < kMinBytes ||
      !value.Reusable(data.dtype(), data.shape()) ||
      last_use_[instr.operands[0]] > position_.at(&instr)) {
    return false;
  }
  bool weak = data.weak_type();
  std::swap(data, value);
  data.set_weak_type(weak);
  return true;
}

}  // namespace pz::tpu

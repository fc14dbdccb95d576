// Array storage, layout queries, copies between layouts and dtype conversion.
#include "array/array.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "array/element.h"
#include "array/prims.h"

namespace pz::array {

void ThrowTypeError(std::string message) {
  throw ArrayError{ArrayError::Kind::kTypeError, std::move(message)};
}
void ThrowValueError(std::string message) {
  throw ArrayError{ArrayError::Kind::kValueError, std::move(message)};
}
void ThrowIndexError(std::string message) {
  throw ArrayError{ArrayError::Kind::kIndexError, std::move(message)};
}

std::string ShapeToString(const Shape& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      ThrowValueError(fmt::format("negative dimensions are not allowed: {}", ShapeToString(shape)));
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) {
      throw ArrayError{ArrayError::Kind::kMemoryError,
                       fmt::format("shape {} has too many elements", ShapeToString(shape))};
    }
    n *= d;
  }
  return n;
}

std::vector<int64_t> ContiguousStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<int64_t>(shape[i], 1);
  }
  return strides;
}

namespace {

// Storage of 256 bytes or more starts on a 64-byte boundary (a cache line, an AVX-512 vector):
// the C allocator's 16-byte alignment made every other 32-byte load of a row split two cache
// lines in the GEMM's packing and the elementwise loops. Such blocks are allocated 72 bytes
// larger, start at the first boundary at least 8 bytes in, and keep the allocation's address
// in the 8 bytes before that. (Aligned operator new served large blocks from glibc's heap where
// plain ones are mapped and unmapped: flash attention over 16384 keys then peaked 48 MiB higher.)
constexpr size_t kAlignedFromBytes = 256;
constexpr uintptr_t kLine = 64;

std::byte* NewBytes(size_t n) {
  if (n < kAlignedFromBytes) return new std::byte[n];
  auto* base = new std::byte[n + kLine + sizeof(std::byte*)];
  auto start = reinterpret_cast<uintptr_t>(base) + sizeof(std::byte*);
  auto* data = reinterpret_cast<std::byte*>((start + kLine - 1) & ~(kLine - 1));
  std::memcpy(data - sizeof(std::byte*), &base, sizeof base);
  return data;
}

void DeleteBytes(std::byte* data, size_t n) {
  if (n < kAlignedFromBytes) {
    delete[] data;
    return;
  }
  std::byte* base;
  std::memcpy(&base, data - sizeof(std::byte*), sizeof base);
  delete[] base;
}

// Freed blocks of kMinBytes..kMaxBytes kept for the next buffer of the same size on this thread
// (at most kMaxBlocks of them). Smaller blocks the C allocator recycles well by itself.
class BlockCache {
 public:
  static constexpr size_t kMinBytes = size_t{64} << 10;
  static constexpr size_t kMaxBytes = size_t{4} << 20;
  static constexpr size_t kMaxBlocks = 4;

  ~BlockCache() {
    for (size_t i = 0; i < count_; ++i) DeleteBytes(blocks_[i].data, blocks_[i].bytes);
    gone_ = true;
  }
  // A cached block of exactly `bytes`, or null.
  std::byte* Take(size_t bytes) {
    for (size_t i = 0; i < count_; ++i) {
      if (blocks_[i].bytes == bytes) {
        std::byte* data = blocks_[i].data;
        blocks_[i] = blocks_[--count_];
        return data;
      }
    }
    return nullptr;
  }
  // Keeps the block (or frees it when full, or when this thread's cache is already destroyed).
  static void Give(BlockCache& cache, std::byte* data, size_t bytes) {
    if (gone_ || bytes < kMinBytes || bytes > kMaxBytes || cache.count_ == kMaxBlocks) {
      DeleteBytes(data, bytes);
      return;
    }
    cache.blocks_[cache.count_++] = {data, bytes};
  }
  static bool gone() { return gone_; }

 private:
  struct Block {
    std::byte* data = nullptr;
    size_t bytes = 0;
  };
  Block blocks_[kMaxBlocks];
  size_t count_ = 0;
  static thread_local bool gone_;
};

thread_local bool BlockCache::gone_ = false;
thread_local BlockCache block_cache;

}  // namespace

Buffer::Buffer(size_t bytes, bool zeroed) : data_(nullptr), size_(bytes) {
  size_t n = std::max<size_t>(bytes, 1);
  if (n >= BlockCache::kMinBytes && n <= BlockCache::kMaxBytes && !BlockCache::gone()) {
    data_ = block_cache.Take(n);
  }
  if (data_ == nullptr) data_ = NewBytes(n);
  if (zeroed) std::memset(data_, 0, n);
}

Buffer::~Buffer() {
  size_t n = std::max<size_t>(size_, 1);
  if (n < BlockCache::kMinBytes || n > BlockCache::kMaxBytes || BlockCache::gone()) {
    DeleteBytes(data_, n);
    return;
  }
  BlockCache::Give(block_cache, data_, n);
}

namespace {
thread_local int64_t allocation_limit = kDefaultAllocationLimitBytes;
}  // namespace

int64_t AllocationLimit() { return allocation_limit; }

ScopedAllocationLimit::ScopedAllocationLimit(int64_t bytes) : previous_(allocation_limit) {
  allocation_limit = bytes;
}
ScopedAllocationLimit::~ScopedAllocationLimit() { allocation_limit = previous_; }

Array Array::Zeros(DType dtype, Shape shape) { return Allocate(dtype, std::move(shape), true); }

Array Array::Empty(DType dtype, Shape shape) { return Allocate(dtype, std::move(shape), false); }

Array Array::Allocate(DType dtype, Shape shape, bool zeroed) {
  int64_t limit_bytes = AllocationLimit();
  if (shape.size() > static_cast<size_t>(kMaxRank)) {
    ThrowValueError(
        fmt::format("arrays have at most {} dimensions, got {}", kMaxRank, shape.size()));
  }
  int64_t n = NumElements(shape);
  int64_t bytes = n * static_cast<int64_t>(ItemSize(dtype));
  if (n > 0 && (bytes / n != static_cast<int64_t>(ItemSize(dtype)) || bytes > limit_bytes)) {
    throw ArrayError{
        ArrayError::Kind::kMemoryError,
        fmt::format("an array of shape {} and dtype {} needs {:.1f} GiB, above the "
                    "limit of {:.1f} GiB; raise it with `--max-array-gib`",
                    ShapeToString(shape), DTypeName(dtype), static_cast<double>(bytes) / (1 << 30),
                    static_cast<double>(limit_bytes) / (1 << 30))};
  }
  Array a;
  a.dtype_ = dtype;
  a.strides_ = ContiguousStrides(shape);
  a.shape_ = std::move(shape);
  a.buffer_ = std::make_shared<Buffer>(static_cast<size_t>(bytes), zeroed);
  return a;
}

Array Array::FromDoubles(DType dtype, Shape shape, const std::vector<double>& values) {
  Array a = Empty(dtype, std::move(shape));
  PZ_CHECK(static_cast<int64_t>(values.size()) == a.size());
  DispatchDType(dtype, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    auto* out = a.data<StorageOf<D>>();
    for (size_t i = 0; i < values.size(); ++i) {
      out[i] = Element<D>::Store(ConvertCompute<D>(values[i]));
    }
  });
  return a;
}

Array Array::Scalar(DType dtype, double value) {
  Array a = Empty(dtype, {});
  DispatchDType(dtype, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    *a.data<StorageOf<D>>() = Element<D>::Store(ConvertCompute<D>(value));
  });
  return a;
}

namespace {

// Copies between a strided layout (`shape`, `strides` in elements from `strided`) and a
// row-major one (`dense`), in the direction `to_dense` says: rows along the last dimension are
// memcpy'd when it has unit stride, else copied element by element as T (the item's size).
template <typename T>
void CopyRows(T* strided, const Shape& shape, const std::vector<int64_t>& strides, T* dense,
              bool to_dense) {
  size_t rank = shape.size();
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (n == 0) return;
  if (rank == 0) {
    to_dense ? * dense = *strided : * strided = *dense;
    return;
  }
  size_t last = rank - 1;
  int64_t count = shape[last], step = strides[last];
  int64_t index[kMaxRank] = {};
  PZ_CHECK(rank <= static_cast<size_t>(kMaxRank));
  T* row = strided;
  while (true) {
    if (step == 1) {
      to_dense ? std::memcpy(dense, row, static_cast<size_t>(count) * sizeof(T))
               : std::memcpy(row, dense, static_cast<size_t>(count) * sizeof(T));
    } else if (to_dense) {
      for (int64_t i = 0; i < count; ++i) dense[i] = row[i * step];
    } else {
      for (int64_t i = 0; i < count; ++i) row[i * step] = dense[i];
    }
    dense += count;
    size_t axis = last;
    while (axis-- > 0) {
      if (++index[axis] < shape[axis]) {
        row += strides[axis];
        break;
      }
      row -= strides[axis] * (shape[axis] - 1);
      index[axis] = 0;
    }
    if (axis == static_cast<size_t>(-1)) return;
  }
}

// CopyRows on raw bytes, for an item size of 1, 2 or 4.
void CopyItems(std::byte* strided, const Shape& shape, const std::vector<int64_t>& strides,
               std::byte* dense, size_t item, bool to_dense) {
  switch (item) {
    case 1:
      return CopyRows(reinterpret_cast<uint8_t*>(strided), shape, strides,
                      reinterpret_cast<uint8_t*>(dense), to_dense);
    case 2:
      return CopyRows(reinterpret_cast<uint16_t*>(strided), shape, strides,
                      reinterpret_cast<uint16_t*>(dense), to_dense);
    case 4:
      return CopyRows(reinterpret_cast<uint32_t*>(strided), shape, strides,
                      reinterpret_cast<uint32_t*>(dense), to_dense);
    default:
      PZ_UNREACHABLE();
  }
}

}  // namespace

Array Array::Contiguous() const {
  if (IsContiguous()) return *this;
  Array out = Empty(dtype_, shape_);
  out.weak_type_ = weak_type_;
  size_t item = ItemSize(dtype_);
  CopyItems(buffer_->data() + offset_ * static_cast<int64_t>(item), shape_, strides_,
            out.buffer_->data(), item, true);
  return out;
}

double Array::GetDouble(int64_t flat_index) const {
  // Translate the flat row-major index into a storage offset.
  int64_t position = offset_;
  for (size_t axis = shape_.size(); axis-- > 0;) {
    int64_t i = flat_index % shape_[axis];
    flat_index /= shape_[axis];
    position += i * strides_[axis];
  }
  return DispatchDType(dtype_, [&](auto tag) -> double {
    constexpr DType D = decltype(tag)::value;
    const auto* base = reinterpret_cast<const StorageOf<D>*>(buffer_->data());
    return static_cast<double>(Element<D>::Load(base[position]));
  });
}

int64_t Array::GetInt(int64_t flat_index) const {
  return static_cast<int64_t>(GetDouble(flat_index));
}

std::vector<double> Array::ToDoubles() const {
  Array c = Contiguous();
  std::vector<double> out(static_cast<size_t>(c.size()));
  DispatchDType(dtype_, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    const auto* in = c.data<StorageOf<D>>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(Element<D>::Load(in[i]));
  });
  return out;
}

Array Array::View(Shape shape, std::vector<int64_t> strides, int64_t offset) const {
  Array view = *this;
  view.shape_ = std::move(shape);
  view.strides_ = std::move(strides);
  view.offset_ = offset;
  return view;
}

void Array::Assign(const Array& values) {
  PZ_CHECK(values.shape_ == shape_);
  Array source = values.dtype_ == dtype_ ? values.Contiguous() : values.AsType(dtype_);
  size_t item = ItemSize(dtype_);
  if (source.buffer_ == buffer_) {  // overlapping views of one buffer: read before writing
    Array copy = Empty(dtype_, shape_);
    std::memcpy(copy.raw(), source.raw(), static_cast<size_t>(size()) * item);
    source = std::move(copy);
  }
  CopyItems(buffer_->data() + offset_ * static_cast<int64_t>(item), shape_, strides_,
            const_cast<std::byte*>(source.raw()), item, false);
}

Array Array::AsType(DType dtype) const {
  if (dtype == dtype_ && IsContiguous()) return *this;  // nothing to convert (or record)
  if (Recording()) {
    bool weak = dtype == dtype_ && weak_type_;
    return RecordPrimitive({Prim::kConvertElementType, ConvertAttrs{dtype, weak}}, {*this},
                           [&] { return AsType(dtype); });
  }
  Array source = Contiguous();
  if (dtype == dtype_) return source;
  Array out = Empty(dtype, shape_);
  int64_t n = size();
  DispatchDType(dtype_, [&](auto from_tag) {
    constexpr DType From = decltype(from_tag)::value;
    DispatchDType(dtype, [&](auto to_tag) {
      constexpr DType To = decltype(to_tag)::value;
      const auto* in = source.data<StorageOf<From>>();
      auto* o = out.data<StorageOf<To>>();
      for (int64_t i = 0; i < n; ++i) {
        o[i] = Element<To>::Store(ConvertCompute<To>(Element<From>::Load(in[i])));
      }
    });
  });
  return out;
}

}  // namespace pz::array

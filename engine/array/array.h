// Array: a dtype, a shape (rank 0–8) and strided storage shared between views. This is the
// value every eager jax.numpy / numpy operation consumes and produces; kernels will later use it
// for VMEM/HBM buffers. Operations live in one file per op family (elementwise.h, reduce.h,
// linalg.h, shape_ops.h, ...); they throw ArrayError for user mistakes, which the Python
// bindings turn into TypeError/ValueError/IndexError at the user's line.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "array/dtype.h"

namespace pz::array {

inline constexpr int kMaxRank = 8;

using Shape = std::vector<int64_t>;

// A user mistake in an array operation. `kind` names the Python exception it becomes.
struct ArrayError {
  // kTypePromotion: JAX's TypePromotionError (a ValueError), for dtypes with no implicit
  // promotion path.
  enum class Kind { kTypeError, kValueError, kIndexError, kMemoryError, kTypePromotion };
  Kind kind;
  std::string message;
};
[[noreturn]] void ThrowTypeError(std::string message);
[[noreturn]] void ThrowValueError(std::string message);
[[noreturn]] void ThrowIndexError(std::string message);

// Every allocation of array storage is checked against a limit; a request above it is a
// kMemoryError naming the shape and dtype, instead of exhausting the machine. The limit is
// per thread (each evaluator run sets it from its options with ScopedAllocationLimit), so tests
// running in parallel do not interfere.
inline constexpr int64_t kDefaultAllocationLimitBytes = int64_t{4} << 30;

// The limit in force on this thread.
int64_t AllocationLimit();

// Sets this thread's allocation limit for the lifetime of the object.
class ScopedAllocationLimit {
 public:
  explicit ScopedAllocationLimit(int64_t bytes);
  ~ScopedAllocationLimit();
  ScopedAllocationLimit(const ScopedAllocationLimit&) = delete;
  ScopedAllocationLimit& operator=(const ScopedAllocationLimit&) = delete;

 private:
  int64_t previous_;
};

// "(8, 16)" / "(8,)" / "()" as Python prints a shape tuple.
std::string ShapeToString(const Shape& shape);
// Number of elements; throws kValueError for negative dimensions.
int64_t NumElements(const Shape& shape);

// Reference-counted raw storage, zero-filled unless `zeroed` is false (then its contents are
// unspecified until written). Large blocks are recycled through a small per-thread cache: a
// kernel allocates same-sized temporaries every grid step, and the C allocator hands blocks that
// large back to the system, so that each one would fault in fresh pages.
class Buffer {
 public:
  explicit Buffer(size_t bytes, bool zeroed = true);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::byte* data_;
  size_t size_;
};

// a == b for shapes (or block indices), as an inline loop (they are short: std::vector's ==
// calls memcmp).
inline bool SameDims(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

class Array {
 public:
  Array() = default;  // a 0-d float32 zero is NOT implied: default arrays are empty shells

  // A new, zero-filled, contiguous array, checked against AllocationLimit().
  static Array Zeros(DType dtype, Shape shape);
  // The same without filling: the contents are unspecified, for results that are written in
  // full before anything reads them.
  static Array Empty(DType dtype, Shape shape);
  // A new contiguous array filled from doubles (converted and rounded to dtype; for integer
  // dtypes values are truncated toward zero and wrapped as JAX's convert_element_type does).
  static Array FromDoubles(DType dtype, Shape shape, const std::vector<double>& values);
  // A 0-d array holding one value.
  static Array Scalar(DType dtype, double value);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : shape_) n *= d;
    return n;
  }
  // Strides in elements (not bytes); may be zero (broadcast) or negative (flip).
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  // True for arrays created from Python scalars (`jnp.asarray(2.0)` is not weak, `x * 2.0`'s
  // 2.0 is), which JAX's promotion treats specially.
  bool weak_type() const { return weak_type_; }
  void set_weak_type(bool weak) { weak_type_ = weak; }

  // True when the elements are laid out row-major without gaps from offset() on (a contiguous
  // array, or a window of whole rows of one): flat loops may walk it.
  bool IsDense() const {
    if (strides_.size() != shape_.size()) return false;
    int64_t stride = 1;
    for (size_t i = shape_.size(); i-- > 0;) {
      if (shape_[i] != 1 && strides_[i] != stride) return false;
      stride *= shape_[i];
    }
    return true;
  }
  bool IsContiguous() const {
    // strides_ == ContiguousStrides(shape_), without building the vector (inline: hot in kernels).
    size_t rank = shape_.size();
    if (offset_ != 0 || strides_.size() != rank) return false;
    const int64_t* shape = shape_.data();
    const int64_t* strides = strides_.data();
    int64_t stride = 1, count = 1;  // (one pass: the element count too)
    for (size_t i = rank; i-- > 0;) {
      if (strides[i] != stride) return false;
      stride *= shape[i] > 1 ? shape[i] : 1;
      count *= shape[i];
    }
    return buffer_->size() == static_cast<size_t>(count) * ItemSize(dtype_);
  }
  // This array if contiguous (row-major, offset 0 into its own buffer), else a contiguous copy.
  Array Contiguous() const;
  // Element pointer for contiguous arrays.
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(buffer_->data()) + offset_;
  }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(buffer_->data()) + offset_;
  }
  const std::byte* raw() const { return buffer_->data() + offset_ * ItemSize(dtype_); }
  std::byte* raw() { return buffer_->data() + offset_ * ItemSize(dtype_); }

  // Element at a flat row-major index of the logical shape, as double (bool → 0/1).
  double GetDouble(int64_t flat_index) const;
  // Same for integer-exact access (int32/uint32 values are exact).
  int64_t GetInt(int64_t flat_index) const;
  // All elements in row-major order as doubles.
  std::vector<double> ToDoubles() const;

  // A view sharing storage with different shape/strides/offset (no checks: callers compute
  // valid layouts).
  Array View(Shape shape, std::vector<int64_t> strides, int64_t offset) const;
  // Copies `values` (same shape) into this array's storage (which may be a view).
  void Assign(const Array& values);
  // The same values with another dtype (JAX convert_element_type semantics: float→int
  // truncates toward zero, saturating out-of-range and NaN to 0 as XLA on CPU does).
  Array AsType(DType dtype) const;

  // True when both share one buffer (used by aliasing checks).
  bool SharesStorageWith(const Array& other) const { return buffer_ == other.buffer_; }
  // True when both are the same view: one buffer, dtype, offset, shape and strides.
  bool SameView(const Array& other) const {
    return buffer_ == other.buffer_ && dtype_ == other.dtype_ && offset_ == other.offset_ &&
           SameDims(shape_, other.shape_) && SameDims(strides_, other.strides_);
  }
  // True when no other array (or view) holds this one's storage, and the array covers all of
  // it in row-major order: its elements may be overwritten in place (see BinaryInto).
  bool Reusable(DType dtype, const Shape& shape) const {
    return buffer_ != nullptr && buffer_.use_count() == 1 && dtype_ == dtype &&
           SameDims(shape_, shape) && IsContiguous();
  }
  // The identity of the buffer (for telling arrays apart while recording primitives).
  const void* storage() const { return buffer_.get(); }

 private:
  static Array Allocate(DType dtype, Shape shape, bool zeroed);

  DType dtype_ = DType::kFloat32;
  Shape shape_;
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;
  std::shared_ptr<Buffer> buffer_;
  bool weak_type_ = false;
};

// Row-major strides (in elements) of a contiguous array of `shape`.
std::vector<int64_t> ContiguousStrides(const Shape& shape);

}  // namespace pz::array

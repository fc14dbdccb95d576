#include "tpu/executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "array/creation.h"
#include "array/elementwise.h"
#include "array/linalg.h"
#include "array/random.h"
#include "eval/interpreter.h"
#include "support/check.h"
#include "tpu/dma.h"

namespace pz::tpu {

using array::Array;
using kernel::Instr;
using kernel::Op;
using kernel::ValueId;

Array Poison(const array::Shape& shape, array::DType dtype) {
  double value = 0;
  switch (dtype) {
    case array::DType::kBool:
      value = 1;
      break;
    case array::DType::kInt8:
      value = std::numeric_limits<int8_t>::min();
      break;
    case array::DType::kInt16:
      value = std::numeric_limits<int16_t>::min();
      break;
    case array::DType::kInt32:
      value = std::numeric_limits<int32_t>::min();
      break;
    case array::DType::kUInt8:
    case array::DType::kUInt16:
    case array::DType::kUInt32:
      value = 0;
      break;
    case array::DType::kFloat16:
    case array::DType::kBFloat16:
    case array::DType::kFloat32:
      value = std::numeric_limits<double>::quiet_NaN();
      break;
  }
  Array a = array::Full(shape, {.value = value, .dtype = dtype}, dtype);
  a.set_weak_type(false);
  return a;
}

Array Copy(const Array& a) {
  Array out;
  if (a.IsContiguous()) {
    out = Array::Zeros(a.dtype(), a.shape());
    std::memcpy(out.raw(), a.raw(), static_cast<size_t>(a.size()) * array::ItemSize(a.dtype()));
  } else {
    out = a.Contiguous();
  }
  out.set_weak_type(a.weak_type());
  return out;
}

std::string TupleString(const std::vector<int64_t>& values) {
  std::string s = "(";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + (values.size() == 1 ? ",)" : ")");
}

std::vector<int64_t> UnravelIndex(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    int64_t n = std::max<int64_t>(dims[d], 1);
    index[d] = flat % n;
    flat /= n;
  }
  return index;
}

std::string ExecContext::GridPointString() const {
  return grid_point == nullptr ? "()" : TupleString(*grid_point);
}

Executor::Executor(const kernel::Function& function, ExecContext& context)
    : function_(function),
      context_(context),
      env_(function.values.size()),
      def_(function.values.size(), -1),
      last_use_(function.values.size(), -1),
      depth_(function.values.size(), 0) {
  Number(function.body, 0);
  std::vector<int32_t> outer;
  MarkUses(function.body, 0, outer);
  for (ValueId id : function.body.yields) last_use_[id] = std::numeric_limits<int32_t>::max();
}

void Executor::Number(const kernel::Region& region, int depth) {
  for (const Instr& instr : region.body) {
    auto position = static_cast<int32_t>(end_.size());
    position_[&instr] = position;
    end_.push_back(position);
    if (instr.op == Op::kDmaStart) dma_destinations_.push_back(instr.copy[1].ref);
    for (const kernel::Region& inner : instr.regions) {
      for (ValueId id : inner.params) {
        def_[id] = position;
        depth_[id] = depth + 1;
      }
      Number(inner, depth + 1);
    }
    end_[position] = static_cast<int32_t>(end_.size()) - 1;
    // Results of an instruction with regions are set when it finishes.
    for (ValueId id : instr.results) {
      def_[id] = end_[position];
      depth_[id] = depth;
    }
  }
}

void Executor::Use(ValueId value, int depth, int32_t at, const std::vector<int32_t>& outer) {
  // A value of an enclosing region read inside an instruction (a loop body, say) stays live
  // until that whole instruction is done.
  int d = depth_[value];
  if (d < depth) at = end_[outer[d]] + 1;
  last_use_[value] = std::max(last_use_[value], at);
}

void Executor::MarkUses(const kernel::Region& region, int depth, std::vector<int32_t>& outer) {
  for (const Instr& instr : region.body) {
    int32_t position = position_.at(&instr);
    for (ValueId id : instr.operands) Use(id, depth, position, outer);
    for (const kernel::RefPath* path : kernel::RefPathsOf(instr)) {
      for (ValueId id : kernel::DynamicOperands(*path)) Use(id, depth, position, outer);
    }
    outer.push_back(position);
    for (const kernel::Region& inner : instr.regions) MarkUses(inner, depth + 1, outer);
    outer.pop_back();
    // Yields are read after their region ran, and a while loop's condition parameters are read
    // again by its body (see kWhile).
    for (const kernel::Region& inner : instr.regions) {
      for (ValueId id : inner.yields) Use(id, depth, end_[position] + 1, outer);
    }
    if (instr.op == Op::kWhile) {
      for (ValueId id : instr.regions[0].params) {
        last_use_[id] = std::max(last_use_[id], end_[position] + 1);
      }
    }
  }
}

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

std::vector<Array> Executor::Run(const std::vector<Array>& params) {
  PZ_CHECK(params.size() == function_.body.params.size());
  for (size_t i = 0; i < params.size(); ++i) env_[function_.body.params[i]] = params[i];
  RunRegion(function_.body);
  std::vector<Array> out;
  for (ValueId id : function_.body.yields) out.push_back(env_[id]);
  return out;
}

void Executor::RunBody() {
  PZ_CHECK(function_.body.params.empty());
  RunRegion(function_.body);
}

void Executor::RunRegion(const kernel::Region& region) {
  for (const Instr& instr : region.body) RunInstr(instr);
}

int64_t Executor::ScalarInt(ValueId id) const { return env_[id].GetInt(0); }

void Executor::Fail(const Instr& instr, EmulationError::Kind kind, std::string message,
                    std::vector<std::string> notes) {
  throw EmulationError{
      .kind = kind, .message = std::move(message), .span = instr.span, .notes = std::move(notes)};
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
  PZ_CHECK(place.rank <= static_cast<size_t>(array::kMaxRank));
  std::copy(buffer_shape.begin(), buffer_shape.end(), place.shape.begin());
  std::copy(buffer->data.strides().begin(), buffer->data.strides().end(), place.strides.begin());
  bool whole = true;
  for (const kernel::Indexer& indexer : path.indexers) {
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

Array Executor::DataView(const Place& place) {
  if (place.whole) return place.buffer->data;
  return place.buffer->data.View(
      array::Shape(place.shape.begin(), place.shape.begin() + place.rank),
      std::vector<int64_t>(place.strides.begin(), place.strides.begin() + place.rank),
      place.offset);
}

Executor::Window Executor::Resolve(const Instr& instr, const kernel::RefPath& path, bool is_write) {
  Place place = Locate(instr, path, is_write);
  Window window{.data = DataView(place), .tracked = place.buffer->tracked};
  if (window.tracked) {
    window.initialized = place.buffer->initialized.View(window.data.shape(), window.data.strides(),
                                                        window.data.offset());
  }
  return window;
}

namespace {

// Calls row(offset, count, stride) for every row along the last dimension of a box of `rank`
// dimensions (`shape`, `strides` in elements from `offset`); nothing for an empty box, one row of
// one element for rank 0. Stops early when `row` returns false.
template <typename Row>
bool ForEachRow(size_t rank, const int64_t* shape, const int64_t* strides, int64_t offset,
                Row&& row) {
  for (size_t d = 0; d < rank; ++d) {
    if (shape[d] == 0) return true;
  }
  if (rank == 0) return row(offset, int64_t{1}, int64_t{1});
  int64_t counter[array::kMaxRank] = {};
  size_t last = rank - 1;
  while (true) {
    int64_t o = offset;
    for (size_t d = 0; d < last; ++d) o += counter[d] * strides[d];
    if (!row(o, shape[last], strides[last])) return false;
    size_t d = last;
    while (d-- > 0) {
      if (++counter[d] < shape[d]) break;
      counter[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) return true;
  }
}

// True when every element of the place's box of its buffer's shadow is non-zero.
bool AllSet(const Array& shadow, size_t rank, const int64_t* shape, const int64_t* strides,
            int64_t offset) {
  const auto* base = reinterpret_cast<const uint8_t*>(shadow.raw()) - shadow.offset();
  return ForEachRow(rank, shape, strides, offset, [&](int64_t o, int64_t n, int64_t stride) {
    const uint8_t* p = base + o;
    if (stride == 1) return std::memchr(p, 0, static_cast<size_t>(n)) == nullptr;
    for (int64_t i = 0; i < n; ++i) {
      if (p[i * stride] == 0) return false;
    }
    return true;
  });
}

// Marks the box as initialised.
void SetAll(Array& shadow, size_t rank, const int64_t* shape, const int64_t* strides,
            int64_t offset) {
  uint8_t* base = reinterpret_cast<uint8_t*>(shadow.raw()) - shadow.offset();
  ForEachRow(rank, shape, strides, offset, [&](int64_t o, int64_t n, int64_t stride) {
    uint8_t* p = base + o;
    if (stride == 1) {
      std::memset(p, 1, static_cast<size_t>(n));
    } else {
      for (int64_t i = 0; i < n; ++i) p[i * stride] = 1;
    }
    return true;
  });
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

}  // namespace

void Executor::NoteRead(const Instr& instr, kernel::RefId ref, const Window& window) {
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

void Executor::NoteRead(const Instr& instr, kernel::RefId ref, const Place& place) {
  if (context_.uninitialized == nullptr || context_.uninitialized->seen || !place.buffer->tracked ||
      place.buffer->borrowed) {  // (a borrowed window is data throughout)
    return;
  }
  if (AllSet(place.buffer->initialized, place.rank, place.shape.data(), place.strides.data(),
             place.offset)) {
    return;
  }
  context_.uninitialized->seen = true;
  context_.uninitialized->span = instr.span;
  context_.uninitialized->ref = function_.refs[ref].name;
  context_.uninitialized->grid_point =
      context_.grid_point ? *context_.grid_point : std::vector<int64_t>{};
}

void Executor::Load(const Instr& instr) {
  Place place = Locate(instr, instr.ref, false);
  if (context_.dma != nullptr && context_.dma->busy()) {
    context_.dma->CheckAccess(instr, instr.ref.ref,
                              RegionOf(*context_.refs[instr.ref.ref], DataView(place)), false);
  }
  NoteRead(instr, instr.ref.ref, place);
  // A whole buffer is shared, not copied: DetachViews copies it before the buffer changes.
  // (Assigned in place: the value slot keeps its shape storage from the previous step.)
  if (place.whole) {
    Array& value = env_[instr.results[0]];
    // The previous step's load of this buffer is often still there, the very same view.
    if (!value.SharesStorageWith(place.buffer->data) || value.offset() != 0 ||
        !array::SameDims(value.shape(), place.buffer->data.shape()) || !value.IsContiguous() ||
        value.dtype() != place.buffer->data.dtype()) {
      value = place.buffer->data;
    }
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
  } else if (IsDense(place.rank, place.shape.data(), place.strides.data()) &&
             value.IsContiguous() && value.dtype() == data.dtype()) {
    size_t item = array::ItemSize(value.dtype());
    // memmove: the value may be the buffer itself (`x_ref[...] = x_ref[...]`).
    std::memmove(data.raw() + (place.offset - data.offset()) * static_cast<int64_t>(item),
                 value.raw(), static_cast<size_t>(value.size()) * item);
  } else {
    DataView(place).Assign(value);
  }
  if (place.buffer->tracked) {
    SetAll(place.buffer->initialized, place.rank, place.shape.data(), place.strides.data(),
           place.offset);
  }
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

void Executor::RunPrim(const Instr& instr) {
  if (context_.counters != nullptr) {
    context_.counters->flops += instr.cost.flops;
    context_.counters->transcendentals += instr.cost.transcendentals;
  }
  // The elementwise families straight to their kernels (no operand or result vectors).
  // The result goes into the storage of the value this instruction made last time (the
  // previous grid step's or loop iteration's) when nothing else holds it any more.
  if (std::optional<array::BinaryOp> op = array::BinaryOpOf(instr.prim.prim)) {
    array::BinaryInto(*op, env_[instr.operands[0]], env_[instr.operands[1]],
                      env_[instr.results[0]]);
    return;
  }
  if (std::optional<array::UnaryOp> op = array::UnaryOpOf(instr.prim.prim)) {
    array::UnaryInto(*op, env_[instr.operands[0]], env_[instr.results[0]]);
    return;
  }
  std::vector<Array> inputs;
  inputs.reserve(instr.operands.size());
  for (ValueId id : instr.operands) inputs.push_back(env_[id]);
  std::vector<Array> outputs = array::RunPrim(instr.prim, inputs);
  PZ_CHECK(outputs.size() == instr.results.size());
  for (size_t i = 0; i < outputs.size(); ++i) env_[instr.results[i]] = std::move(outputs[i]);
}

void Executor::RunInstr(const Instr& instr) {
  try {
    if (kernel::IsPrim(instr.op)) {
      RunPrim(instr);
      return;
    }
    switch (instr.op) {
      case Op::kConstant:
        env_[instr.results[0]] = *instr.constant;
        return;
      case Op::kProgramId:
        env_[instr.results[0]] = Array::Scalar(
            array::DType::kInt32, static_cast<double>((*context_.grid_point)[instr.axis]));
        return;
      case Op::kLoad:
        Load(instr);
        return;
      case Op::kStore:
        Store(instr);
        return;
      case Op::kCond: {
        bool taken = env_[instr.operands[0]].GetDouble(0) != 0;
        const kernel::Region& region = instr.regions[taken ? 0 : 1];
        RunRegion(region);
        for (size_t i = 0; i < instr.results.size(); ++i) {
          Array v = env_[region.yields[i]];
          v.set_weak_type(function_.values[instr.results[i]].weak);
          env_[instr.results[i]] = std::move(v);
        }
        return;
      }
      case Op::kSwitch: {
        int64_t n = static_cast<int64_t>(instr.regions.size());
        int64_t index = std::clamp<int64_t>(ScalarInt(instr.operands[0]), 0, n - 1);
        const kernel::Region& region = instr.regions[index];
        RunRegion(region);
        for (size_t i = 0; i < instr.results.size(); ++i) {
          Array v = env_[region.yields[i]];
          v.set_weak_type(function_.values[instr.results[i]].weak);
          env_[instr.results[i]] = std::move(v);
        }
        return;
      }
      case Op::kFor: {
        const kernel::Region& body = instr.regions[0];
        int64_t lo = ScalarInt(instr.operands[0]);
        int64_t hi = ScalarInt(instr.operands[1]);
        size_t carries = instr.results.size();
        std::vector<Array> carry(carries);
        for (size_t i = 0; i < carries; ++i) carry[i] = env_[instr.operands[2 + i]];
        for (int64_t i = lo; i < hi; ++i) {
          if (context_.tick) context_.tick();
          env_[body.params[0]] = Array::Scalar(array::DType::kInt32, static_cast<double>(i));
          for (size_t k = 0; k < carries; ++k) {
            carry[k].set_weak_type(false);
            env_[body.params[1 + k]] = carry[k];
          }
          RunRegion(body);
          for (size_t k = 0; k < carries; ++k) carry[k] = env_[body.yields[k]];
        }
        for (size_t k = 0; k < carries; ++k) {
          carry[k].set_weak_type(false);
          env_[instr.results[k]] = carry[k];
        }
        return;
      }
      case Op::kWhile: {
        const kernel::Region& cond = instr.regions[0];
        const kernel::Region& body = instr.regions[1];
        size_t carries = instr.results.size();
        std::vector<Array> carry(carries);
        for (size_t i = 0; i < carries; ++i) carry[i] = env_[instr.operands[i]];
        while (true) {
          if (context_.tick) context_.tick();
          for (size_t k = 0; k < carries; ++k) {
            carry[k].set_weak_type(false);
            env_[cond.params[k]] = carry[k];
          }
          RunRegion(cond);
          if (env_[cond.yields[0]].GetDouble(0) == 0) break;
          // From the condition's parameters, which DetachViews keeps apart from buffers the
          // condition wrote (`carry` would still share them).
          for (size_t k = 0; k < carries; ++k) env_[body.params[k]] = env_[cond.params[k]];
          RunRegion(body);
          for (size_t k = 0; k < carries; ++k) carry[k] = env_[body.yields[k]];
        }
        for (size_t k = 0; k < carries; ++k) {
          carry[k].set_weak_type(false);
          env_[instr.results[k]] = carry[k];
        }
        return;
      }
      case Op::kDmaStart:
        DetachViews(instr, context_.refs[instr.copy[1].ref]);
        RunDmaInstr(instr);
        return;
      case Op::kDmaWait:
        DetachViews(instr, nullptr);
        RunDmaInstr(instr);
        return;
      case Op::kRunScoped:
        for (kernel::RefId ref : instr.scoped) {
          if (function_.refs[ref].space != kernel::MemorySpace::kSemaphore) {
            DetachViews(instr, context_.refs[ref]);
          }
        }
        RunDmaInstr(instr);
        return;
      case Op::kSemaphoreSignal:
      case Op::kSemaphoreWait:
      case Op::kSemaphoreRead:
        RunDmaInstr(instr);
        return;
      case Op::kPrngSeed:
      case Op::kPrngRandomBits:
        RunPrngInstr(instr);
        return;
      case Op::kDebugPrint: {
        std::vector<Array> inputs;
        for (ValueId id : instr.operands) inputs.push_back(env_[id]);
        if (context_.callbacks != nullptr) {
          std::lock_guard<std::mutex> lock(*context_.callbacks);
          (*instr.callback)(inputs);
        } else {
          (*instr.callback)(inputs);
        }
        return;
      }
      default:
        PZ_UNREACHABLE();
    }
  } catch (const array::ArrayError& error) {
    Fail(instr, EmulationError::Kind::kValueError, error.message);
  } catch (eval::PyError& error) {
    // Raised by a debug print's formatting at run time: it belongs to this instruction's line.
    if (error.exception && instr.span.valid()) {
      std::unique_lock<std::mutex> lock;
      if (context_.callbacks != nullptr) lock = std::unique_lock<std::mutex>(*context_.callbacks);
      error.exception->span = instr.span;
      error.exception->traceback.clear();
    }
    throw;
  }
}

void Executor::RunPrngInstr(const Instr& instr) {
  PZ_CHECK(context_.prng != nullptr);
  if (instr.op == Op::kPrngSeed) {
    std::vector<uint32_t> seeds;
    for (ValueId id : instr.operands) seeds.push_back(static_cast<uint32_t>(ScalarInt(id)));
    context_.prng->Seed(seeds);
    return;
  }
  if (!context_.prng->seeded()) {
    Fail(instr, EmulationError::Kind::kRuntimeError,
         fmt::format("pltpu.prng_random_bits at grid step {} drew from the core's random number "
                     "generator before any pltpu.prng_seed in this pallas_call",
                     context_.GridPointString()),
         {"a TPU core's generator holds whatever state an earlier kernel left, so these bits "
          "would differ from run to run; seed it first, e.g. `pltpu.prng_seed(seed, "
          "pl.program_id(0))` at the top of the kernel",
          "with several cores each core has its own generator: a seed given only at the first "
          "grid step reaches one core"});
  }
  env_[instr.results[0]] = context_.prng->Draw(function_.values[instr.results[0]].shape);
}

}  // namespace pz::tpu

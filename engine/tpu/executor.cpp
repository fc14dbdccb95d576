#include "tpu/executor.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "array/creation.h"
#include "array/elementwise.h"
#include "array/linalg.h"
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
    : function_(function), context_(context), env_(function.values.size()) {}

std::vector<Array> Executor::Run(const std::vector<Array>& params) {
  PZ_CHECK(params.size() == function_.body.params.size());
  for (size_t i = 0; i < params.size(); ++i) env_[function_.body.params[i]] = params[i];
  RunRegion(function_.body);
  std::vector<Array> out;
  for (ValueId id : function_.body.yields) out.push_back(env_[id]);
  return out;
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

Executor::Window Executor::Resolve(const Instr& instr, const kernel::RefPath& path, bool is_write) {
  const kernel::RefType& ref = function_.refs[path.ref];
  RefBuffer* buffer = context_.refs[path.ref];
  PZ_CHECK(buffer != nullptr);
  array::Shape shape = buffer->data.shape();
  std::vector<int64_t> strides = buffer->data.strides();
  int64_t offset = buffer->data.offset();
  for (const kernel::Indexer& indexer : path.indexers) {
    array::Shape next_shape;
    std::vector<int64_t> next_strides;
    for (size_t d = 0; d < indexer.size(); ++d) {
      const kernel::DimIndex& dim = indexer[d];
      int64_t start = dim.start;
      if (dim.dynamic_start != kernel::kNoValue) start += ScalarInt(dim.dynamic_start);
      int64_t extent = dim.is_int ? 1 : (dim.size == 0 ? 0 : (dim.size - 1) * dim.stride + 1);
      int64_t n = shape[d];
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
      offset += start * strides[d];
      if (!dim.is_int) {
        next_shape.push_back(dim.size);
        next_strides.push_back(strides[d] * dim.stride);
      }
    }
    shape = std::move(next_shape);
    strides = std::move(next_strides);
  }
  Window window{.data = buffer->data.View(shape, strides, offset), .tracked = buffer->tracked};
  if (buffer->tracked) window.initialized = buffer->initialized.View(shape, strides, offset);
  return window;
}

RefBuffer* Executor::WholeBuffer(const kernel::RefPath& path) const {
  RefBuffer* buffer = context_.refs[path.ref];
  if (path.indexers.size() > 1 || !buffer->data.IsContiguous()) return nullptr;
  if (path.indexers.empty()) return buffer;
  const kernel::Indexer& indexer = path.indexers[0];
  const array::Shape& shape = buffer->data.shape();
  if (indexer.size() != shape.size()) return nullptr;
  for (size_t d = 0; d < indexer.size(); ++d) {
    const kernel::DimIndex& dim = indexer[d];
    if (dim.is_int || dim.dynamic_start != kernel::kNoValue || dim.start != 0 || dim.stride != 1 ||
        dim.size != shape[d]) {
      return nullptr;
    }
  }
  return buffer;
}

namespace {

// True when every element of a (possibly strided) uint8 view is non-zero.
bool AllSet(const Array& shadow) {
  const uint8_t* base = reinterpret_cast<const uint8_t*>(shadow.raw());
  size_t rank = static_cast<size_t>(shadow.rank());
  if (rank == 0) return *base != 0;
  const array::Shape& shape = shadow.shape();
  for (int64_t n : shape) {
    if (n == 0) return true;
  }
  const std::vector<int64_t>& st = shadow.strides();
  int64_t counter[array::kMaxRank] = {};
  size_t last = rank - 1;
  while (true) {
    int64_t o = 0;
    for (size_t d = 0; d < last; ++d) o += counter[d] * st[d];
    for (int64_t i = 0; i < shape[last]; ++i) {
      if (base[o + i * st[last]] == 0) return false;
    }
    size_t d = last;
    while (d-- > 0) {
      if (++counter[d] < shape[d]) break;
      counter[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) return true;
  }
}

void SetAll(Array& shadow) {
  if (shadow.IsContiguous()) {
    std::memset(shadow.data<uint8_t>(), 1, static_cast<size_t>(shadow.size()));
    return;
  }
  shadow.Assign(array::Ones(shadow.shape(), array::DType::kUInt8));
}

}  // namespace

void Executor::NoteRead(const Instr& instr, kernel::RefId ref, const Window& window) {
  if (context_.uninitialized != nullptr && !context_.uninitialized->seen && window.tracked &&
      !AllSet(window.initialized)) {
    context_.uninitialized->seen = true;
    context_.uninitialized->span = instr.span;
    context_.uninitialized->ref = function_.refs[ref].name;
    context_.uninitialized->grid_point =
        context_.grid_point ? *context_.grid_point : std::vector<int64_t>{};
  }
}

void Executor::RunInstr(const Instr& instr) {
  try {
    switch (instr.op) {
      case Op::kConstant:
        env_[instr.results[0]] = *instr.constant;
        return;
      case Op::kProgramId:
        env_[instr.results[0]] = Array::Scalar(
            array::DType::kInt32, static_cast<double>((*context_.grid_point)[instr.attrs[0]]));
        return;
      case Op::kUnary:
        env_[instr.results[0]] =
            array::Unary(static_cast<array::UnaryOp>(instr.attrs[0]), env_[instr.operands[0]]);
        if (context_.counters) context_.counters->flops += env_[instr.results[0]].size();
        return;
      case Op::kBinary:
        env_[instr.results[0]] = array::Binary(static_cast<array::BinaryOp>(instr.attrs[0]),
                                               env_[instr.operands[0]], env_[instr.operands[1]]);
        if (context_.counters) context_.counters->flops += env_[instr.results[0]].size();
        return;
      case Op::kCast: {
        Array out = env_[instr.operands[0]].AsType(static_cast<array::DType>(instr.attrs[0]));
        if (out.SharesStorageWith(env_[instr.operands[0]])) out = Copy(out);
        out.set_weak_type(false);
        env_[instr.results[0]] = std::move(out);
        return;
      }
      case Op::kApply: {
        std::vector<Array> inputs;
        inputs.reserve(instr.operands.size());
        for (ValueId id : instr.operands) inputs.push_back(env_[id]);
        std::vector<Array> outputs;
        int64_t dot_flops = array::DotFlopsOfThisThread();  // per thread: per core
        if (context_.callbacks != nullptr) {
          std::lock_guard<std::mutex> lock(*context_.callbacks);
          outputs = (*instr.apply)(inputs);
        } else {
          outputs = (*instr.apply)(inputs);
        }
        dot_flops = array::DotFlopsOfThisThread() - dot_flops;
        PZ_CHECK(outputs.size() == instr.results.size());
        for (size_t i = 0; i < outputs.size(); ++i) {
          const kernel::ValueType& type = function_.values[instr.results[i]];
          if (outputs[i].shape() != type.shape || outputs[i].dtype() != type.dtype) {
            Fail(instr, EmulationError::Kind::kRuntimeError,
                 fmt::format("{} returned {} while tracing it gave {}", instr.text,
                             kernel::TypeToString(
                                 {.shape = outputs[i].shape(), .dtype = outputs[i].dtype()}),
                             kernel::TypeToString(type)),
                 {"the result's shape depends on the data, which kernels cannot do"});
          }
          env_[instr.results[i]] = std::move(outputs[i]);
        }
        if (context_.counters && !outputs.empty()) {
          // Products count their multiply-adds; any other function one op per result element.
          context_.counters->flops += dot_flops > 0 ? dot_flops : env_[instr.results[0]].size();
        }
        return;
      }
      case Op::kLoad: {
        if (RefBuffer* whole = WholeBuffer(instr.ref)) {
          // `x_ref[...]` of a whole buffer: no view to build.
          if (context_.dma != nullptr && context_.dma->busy()) {
            context_.dma->CheckAccess(instr, instr.ref.ref, RegionOf(*whole, whole->data), false);
          }
          if (context_.uninitialized != nullptr && !context_.uninitialized->seen &&
              whole->tracked) {
            NoteRead(
                instr, instr.ref.ref,
                Window{.data = whole->data, .initialized = whole->initialized, .tracked = true});
          }
          env_[instr.results[0]] = Copy(whole->data);
          return;
        }
        Window window = Resolve(instr, instr.ref, false);
        if (context_.dma != nullptr && context_.dma->busy()) {
          context_.dma->CheckAccess(instr, instr.ref.ref,
                                    RegionOf(*context_.refs[instr.ref.ref], window.data), false);
        }
        NoteRead(instr, instr.ref.ref, window);
        env_[instr.results[0]] = Copy(window.data);
        return;
      }
      case Op::kStore: {
        const Array& value = env_[instr.operands[0]];
        if (RefBuffer* whole = WholeBuffer(instr.ref); whole != nullptr && value.IsContiguous() &&
                                                       value.dtype() == whole->data.dtype() &&
                                                       value.shape() == whole->data.shape()) {
          if (context_.dma != nullptr && context_.dma->busy()) {
            context_.dma->CheckAccess(instr, instr.ref.ref, RegionOf(*whole, whole->data), true);
          }
          std::memcpy(whole->data.raw(), value.raw(),
                      static_cast<size_t>(value.size()) * array::ItemSize(value.dtype()));
          if (whole->tracked) {
            std::memset(whole->initialized.raw(), 1, static_cast<size_t>(value.size()));
          }
          return;
        }
        Window window = Resolve(instr, instr.ref, true);
        if (context_.dma != nullptr && context_.dma->busy()) {
          context_.dma->CheckAccess(instr, instr.ref.ref,
                                    RegionOf(*context_.refs[instr.ref.ref], window.data), true);
        }
        if (window.data.IsContiguous() && value.IsContiguous() &&
            value.dtype() == window.data.dtype()) {
          std::memcpy(window.data.raw(), value.raw(),
                      static_cast<size_t>(value.size()) * array::ItemSize(value.dtype()));
        } else {
          window.data.Assign(value);
        }
        if (window.tracked) SetAll(window.initialized);
        return;
      }
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
          for (size_t k = 0; k < carries; ++k) env_[body.params[k]] = carry[k];
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
      case Op::kDmaWait:
      case Op::kSemaphoreSignal:
      case Op::kSemaphoreWait:
      case Op::kSemaphoreRead:
      case Op::kRunScoped:
        RunDmaInstr(instr);
        return;
      case Op::kDebugPrint: {
        std::vector<Array> inputs;
        for (ValueId id : instr.operands) inputs.push_back(env_[id]);
        if (context_.callbacks != nullptr) {
          std::lock_guard<std::mutex> lock(*context_.callbacks);
          (*instr.apply)(inputs);
        } else {
          (*instr.apply)(inputs);
        }
        return;
      }
    }
  } catch (const array::ArrayError& error) {
    Fail(instr, EmulationError::Kind::kValueError, error.message);
  } catch (eval::PyError& error) {
    // Raised by a function called back at run time: it belongs to this instruction's line.
    if (error.exception && instr.span.valid()) {
      std::unique_lock<std::mutex> lock;
      if (context_.callbacks != nullptr) lock = std::unique_lock<std::mutex>(*context_.callbacks);
      error.exception->span = instr.span;
      error.exception->traceback.clear();
    }
    throw;
  }
}

}  // namespace pz::tpu

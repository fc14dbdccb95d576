#include "tpu/executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "array/creation.h"
#include "array/element.h"
#include "array/elementwise.h"
#include "array/linalg.h"
#include "array/random.h"
#include "eval/interpreter.h"
#include "kernel/control_flow.h"
#include "support/check.h"
#include "tpu/dma.h"
#include "tpu/step_record.h"

namespace pz::tpu {

using array::Array;
using kernel::Instr;
using kernel::Op;
using kernel::ValueId;

Array Poison(const array::Shape& shape, array::DType dtype, bool zeros) {
  if (zeros) return Array::Zeros(dtype, shape);
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
    case array::DType::kInt4:
      value = -8;
      break;
    case array::DType::kUInt4:
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
  PlanRegion(function.body);
  auto body = plans_.find(&function.body);
  if (body != plans_.end()) body_plan_ = &body->second;
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
  RegionPlan* planned = nullptr;
  if (context_.probe == nullptr) {
    if (&region == &function_.body) {
      planned = body_plan_;
    } else if (!plans_.empty()) {
      auto it = plans_.find(&region);
      if (it != plans_.end()) planned = &it->second;
    }
  }
  if (planned == nullptr) {
    for (const Instr& instr : region.body) RunInstr(instr);
    return;
  }
  RegionPlan& plan = *planned;
  // (A run that threw between a chain and its taps left them marked.)
  std::fill(plan.tapped.begin(), plan.tapped.end(), 0);
  size_t next = 0, next_chain = 0;
  for (size_t i = 0; i < region.body.size(); ++i) {
    if (!plan.deferred.empty() && plan.deferred[i] != 0) continue;
    if (next < plan.dot_adds.size() && plan.dot_adds[next].dot == i) {
      if (RunDotAdd(region, plan, plan.dot_adds[next++])) {
        ++i;
        continue;
      }
    }
    if (next_chain < plan.chains.size() && plan.chains[next_chain].ops.front() == i) {
      Chain& chain = plan.chains[next_chain++];
      if (RunChain(region, plan, chain)) {
        i = chain.ops.back();
        continue;
      }
    }
    if (!plan.tapped.empty() && plan.tapped[i] != 0) continue;
    if (!plan.takes.empty() && plan.takes[i] != 0) {
      Load(region.body[i], true);
      continue;
    }
    if (plan.in_place[i] != 0 && RunInPlace(region.body[i], plan.in_place[i])) continue;
    RunInstr(region.body[i]);
  }
}

int64_t Executor::ScalarInt(ValueId id) const { return env_[id].GetInt(0); }

void Executor::Fail(const Instr& instr, EmulationError::Kind kind, std::string message,
                    std::vector<std::string> notes) {
  throw EmulationError{
      .kind = kind, .message = std::move(message), .span = instr.span, .notes = std::move(notes)};
}

void Executor::Count(const Instr& instr) {
  if (context_.counters == nullptr) return;
  context_.counters->flops += instr.cost.flops;
  context_.counters->mxu_flops += instr.cost.mxu_flops;
  context_.counters->transcendentals += instr.cost.transcendentals;
}

void Executor::RunPrim(const Instr& instr) {
  if (context_.probe != nullptr) {
    RunProbedPrim(instr);
    return;
  }
  Count(instr);
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
  if (instr.prim.prim == array::Prim::kDotGeneral) {
    const auto& attrs = std::get<array::DotAttrs>(instr.prim.attrs);
    array::DotGeneralInto(env_[instr.operands[0]], env_[instr.operands[1]], attrs.dims,
                          attrs.preferred_element_type, attrs.fn_name, env_[instr.results[0]]);
    return;
  }
  if (RunLastAxisReduction(instr)) return;
  std::vector<Array> inputs;
  inputs.reserve(instr.operands.size());
  for (ValueId id : instr.operands) inputs.push_back(env_[id]);
  std::vector<Array> outputs = array::RunPrim(instr.prim, inputs);
  PZ_CHECK(outputs.size() == instr.results.size());
  for (size_t i = 0; i < outputs.size(); ++i) env_[instr.results[i]] = std::move(outputs[i]);
}

Array& Executor::F32Slot(ValueId id) {
  const array::Shape& shape = function_.values[id].shape;
  Array& slot = env_[id];
  if (!slot.Reusable(array::DType::kFloat32, shape))
    slot = Array::Empty(array::DType::kFloat32, shape);
  return slot;
}

bool Executor::RunLastAxisReduction(const Instr& instr) {
  if (instr.operands.size() != 1) return false;
  const Array& a = env_[instr.operands[0]];
  if (a.dtype() != array::DType::kFloat32 || !a.IsContiguous()) return false;
  std::optional<array::LastAxisReduction> reduction =
      LastAxisOf(instr, function_.values[instr.operands[0]]);
  if (!reduction) return false;
  Array& slot = F32Slot(instr.results[0]);
  slot.set_weak_type(false);  // as Reduce gives it
  reduction->Rows(a.data<float>(), a.size() / reduction->row_length(), slot.data<float>());
  return true;
}

void Executor::RunInstr(const Instr& instr) {
  RunInstrUncaptured(instr);
  if (context_.probe != nullptr && context_.probe->capture_call >= 0) Capture(instr);
}

void Executor::RunInstrUncaptured(const Instr& instr) {
  try {
    if (kernel::IsPrim(instr.op)) {
      RunPrim(instr);
      return;
    }
    switch (instr.op) {
      case Op::kConstant:
        env_[instr.results[0]] = *instr.constant;
        return;
      case Op::kProgramId: {
        auto index = static_cast<int32_t>((*context_.grid_point)[instr.axis]);
        Array& slot = env_[instr.results[0]];
        if (slot.Reusable(array::DType::kInt32, {})) {
          *slot.data<int32_t>() = index;
        } else {
          slot = Array::Scalar(array::DType::kInt32, index);
        }
        return;
      }
      case Op::kLoad:
        Load(instr);
        return;
      case Op::kStore:
        Store(instr);
        return;
      case Op::kCond: {
        bool taken = env_[instr.operands[0]].GetDouble(0) != 0;
        if (context_.branches != nullptr) context_.branches->Count(instr, taken);
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
        std::unique_lock<std::mutex> lock;
        if (context_.callbacks != nullptr) lock = std::unique_lock<std::mutex>(*context_.callbacks);
        kernel::RunPrint(instr, inputs);
        return;
      }
      default:
        PZ_UNREACHABLE();
    }
  } catch (const array::ArrayError& error) {
    Fail(instr, EmulationError::Kind::kValueError, error.message);
  }
}

void Executor::RunPrngInstr(const Instr& instr) {
  PZ_CHECK(context_.prng != nullptr);
  if (instr.op == Op::kPrngSeed) {
    std::vector<uint32_t> seeds;
    for (ValueId id : instr.operands) seeds.push_back(static_cast<uint32_t>(ScalarInt(id)));
    context_.prng->Seed(seeds);
    context_.prng_carried = false;
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
  if (context_.prng_carried && context_.carried != nullptr && !context_.carried->seen) {
    *context_.carried = {
        .seen = true, .span = instr.span, .ref = -1, .grid_point = *context_.grid_point};
  }
  env_[instr.results[0]] = context_.prng->Draw(function_.values[instr.results[0]].shape);
}

}  // namespace pz::tpu

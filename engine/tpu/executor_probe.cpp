// The executor under a Probe (probe.h): comparisons tried flipped, where a NaN or an infinity is
// born, and the values a failing step made, for `check`'s explanations.
#include "tpu/executor.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "array/element.h"
#include "array/elementwise.h"
#include "support/check.h"

namespace pz::tpu {

using array::Array;
using kernel::Instr;
using kernel::Op;
using kernel::ValueId;

namespace {

// The comparison a strict / non-strict twin of `prim` computes (`>` for `>=`, ...); nullopt for
// other primitives.
std::optional<array::Prim> ComparisonTwin(array::Prim prim) {
  switch (prim) {
    case array::Prim::kLt:
      return array::Prim::kLe;
    case array::Prim::kLe:
      return array::Prim::kLt;
    case array::Prim::kGt:
      return array::Prim::kGe;
    case array::Prim::kGe:
      return array::Prim::kGt;
    default:
      return std::nullopt;
  }
}

bool Elementwise(array::Prim prim) {
  return array::UnaryOpOf(prim) || array::BinaryOpOf(prim) || prim == array::Prim::kSelectN ||
         prim == array::Prim::kClamp;
}

// The value of `operand` (broadcast to a result of rank `index.size()`) at `index`.
double BroadcastValue(const Array& operand, const std::vector<int64_t>& index) {
  const array::Shape& shape = operand.shape();
  size_t skip = index.size() - std::min(index.size(), shape.size());
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t i = shape[d] == 1 ? 0 : index[skip + d];
    flat = flat * shape[d] + i;
  }
  return operand.GetDouble(flat);
}

// The first flat index from `from` on where the contiguous floating array `a` holds a NaN or an
// infinity, or -1.
int64_t NextNonFinite(const Array& a, int64_t from) {
  return array::DispatchDType(a.dtype(), [&](auto tag) -> int64_t {
    constexpr array::DType D = decltype(tag)::value;
    if constexpr (std::is_same_v<array::ComputeOf<D>, float>) {
      const auto* data = a.data<array::StorageOf<D>>();
      for (int64_t i = from, size = a.size(); i < size; ++i) {
        if (!std::isfinite(array::Element<D>::Load(data[i]))) return i;
      }
    }
    return -1;
  });
}

bool AllFinite(const Array& a) {
  return !array::IsFloating(a.dtype()) || NextNonFinite(a.Contiguous(), 0) < 0;
}

}  // namespace

void Executor::RunProbedPrim(const Instr& instr) {
  Probe& probe = *context_.probe;
  std::optional<array::Prim> twin = ComparisonTwin(instr.prim.prim);
  bool flip = twin && std::find(probe.flipped.begin(), probe.flipped.end(), instr.span) !=
                          probe.flipped.end();
  if (flip) {
    array::BinaryInto(*array::BinaryOpOf(*twin), env_[instr.operands[0]], env_[instr.operands[1]],
                      env_[instr.results[0]]);
  } else {
    Probe* saved = context_.probe;
    context_.probe = nullptr;
    RunPrim(instr);
    context_.probe = saved;
  }
  if (probe.trace_nonfinite) TraceNonFinite(instr);
}

void Executor::TraceNonFinite(const Instr& instr) {
  Probe& probe = *context_.probe;
  {
    std::lock_guard<std::mutex> lock(probe.mutex);
    if (probe.nonfinite.found) return;
  }
  bool elementwise = Elementwise(instr.prim.prim);
  // Operands that already held a NaN or an infinity somewhere pass it on: for the primitives
  // that mix elements (sums, products), only finite operands can give birth to one.
  if (!elementwise) {
    for (ValueId id : instr.operands) {
      if (!AllFinite(env_[id])) return;
    }
  }
  for (size_t r = 0; r < instr.results.size(); ++r) {
    if (!array::IsFloating(env_[instr.results[r]].dtype())) continue;
    Array result = env_[instr.results[r]].Contiguous();
    for (int64_t i = NextNonFinite(result, 0); i >= 0; i = NextNonFinite(result, i + 1)) {
      double value = result.GetDouble(i);
      std::vector<int64_t> index = UnravelIndex(i, result.shape());
      std::vector<double> operands;
      bool born = true;
      if (elementwise) {
        for (ValueId id : instr.operands) {
          double v = BroadcastValue(env_[id], index);
          operands.push_back(v);
          // A NaN is born where no operand was NaN; an infinity where every operand was finite.
          if (std::isnan(v) || (std::isinf(value) && std::isinf(v))) born = false;
        }
      }
      if (!born) continue;
      std::lock_guard<std::mutex> lock(probe.mutex);
      if (probe.nonfinite.found) return;
      probe.nonfinite =
          NonFiniteOrigin{.found = true,
                          .span = instr.span,
                          .prim = std::string(array::PrimName(instr.prim.prim)),
                          .kernel = function_.name,
                          .grid_point = context_.grid_point != nullptr ? *context_.grid_point
                                                                       : std::vector<int64_t>{},
                          .element = std::move(index),
                          .operands = std::move(operands),
                          .result = value};
      return;
    }
  }
}

void Executor::Capture(const Instr& instr) {
  Probe& probe = *context_.probe;
  bool value = kernel::IsPrim(instr.op) || instr.op == Op::kConstant ||
               instr.op == Op::kProgramId || instr.op == Op::kLoad || instr.op == Op::kStore;
  bool control = instr.op == Op::kCond || instr.op == Op::kSwitch || instr.op == Op::kFor ||
                 instr.op == Op::kWhile;
  if (!(value || control) || probe.capture_call + 1 != probe.calls_started ||
      context_.grid_point == nullptr || *context_.grid_point != probe.capture_point ||
      probe.captured.size() >= Probe::kMaxCaptured ||
      probe.captured_bytes >= Probe::kMaxCapturedBytes) {
    return;
  }
  std::lock_guard<std::mutex> lock(probe.mutex);
  if (control) {
    // Its results are its region's yields (the branch taken; a loop's last iteration): they
    // come from whatever made those.
    const kernel::Region* body = instr.op == Op::kWhile ? &instr.regions[1] : nullptr;
    for (size_t i = 0; i < instr.results.size(); ++i) {
      int64_t from = -1;
      for (const kernel::Region& region : instr.regions) {
        if (body != nullptr && &region != body) continue;
        if (i >= region.yields.size()) continue;
        auto it = probe.producer.find(region.yields[i]);
        if (it != probe.producer.end()) from = std::max(from, it->second);
      }
      if (from >= 0) {
        probe.producer[instr.results[i]] = from;
      } else {
        probe.producer.erase(instr.results[i]);
      }
    }
    return;
  }
  auto index = static_cast<int64_t>(probe.captured.size());
  CapturedValue entry{.op = instr.op, .ref = instr.ref.ref, .span = instr.span};
  for (ValueId id : instr.operands) {
    auto it = probe.producer.find(id);
    entry.operands.push_back(it == probe.producer.end() ? -1 : it->second);
  }
  if (instr.op == Op::kStore) {
    probe.last_store[instr.ref.ref] = index;
  } else {
    if (instr.op == Op::kLoad) {
      auto it = probe.last_store.find(instr.ref.ref);
      entry.stored_by = it == probe.last_store.end() ? -1 : it->second;
    }
    for (ValueId id : instr.results) {
      const Array& made = env_[id];
      // A copy of its own: the executor reuses storage, and loads may view a buffer that later
      // stores change.
      Array copy = Array::Empty(made.dtype(), made.shape());
      copy.Assign(made);
      probe.captured_bytes += copy.size() * static_cast<int64_t>(array::ItemSize(copy.dtype()));
      entry.results.push_back(std::move(copy));
      probe.producer[id] = index;
    }
  }
  probe.captured.push_back(std::move(entry));
}

}  // namespace pz::tpu

// The tape: slots keyed by the view of storage a value occupies, steps in call order, and the
// backward pass (tape.h).
#include "kernel/tape.h"

#include <fmt/format.h>

#include "array/vjp.h"
#include "eval/array_object.h"
#include "eval/builtin_support.h"

namespace pz::kernel {

using eval::Interpreter;

namespace {

thread_local bool t_jvp_pass = false;

void Accumulate(std::optional<Array>& into, const Array& ct) {
  if (!into) {
    into = ct;
  } else {
    into = array::Binary(array::BinaryOp::kAdd, *into, ct);
  }
}

}  // namespace

Tape* ActiveTape() { return dynamic_cast<Tape*>(array::detail::ActiveRecorder()); }

bool InJvpPass() { return t_jvp_pass; }
JvpPass::JvpPass() { t_jvp_pass = true; }
JvpPass::~JvpPass() { t_jvp_pass = false; }

Array FreshCopy(const Array& a) {
  Array copy = Array::Empty(a.dtype(), a.shape());
  copy.Assign(a);
  copy.set_weak_type(a.weak_type());
  return copy;
}

Array LeafArray(Interpreter& interp, const Value& leaf) {
  return eval::GuardArrayOp(interp, [&] { return eval::ToArray(interp, leaf); });
}

int Tape::Find(const Array& value) {
  if (value.storage() == nullptr) return -1;
  auto it = index_.find(KeyOf(value));
  if (it != index_.end()) return it->second;
  if (storages_.count(value.storage()) != 0 && !problem_) {
    problem_ = fmt::format(
        "a {} view of a differentiated value was made by an operation this emulator does not "
        "record as a primitive",
        AvalString(value));
  }
  return -1;
}

void Tape::Record(array::PrimCall call, const std::vector<Array>& inputs,
                  const std::vector<Array>& outputs) {
  std::vector<int> in;
  bool followed = false;
  for (const Array& a : inputs) {
    in.push_back(Find(a));
    followed = followed || in.back() >= 0;
  }
  if (!followed) return;
  AddStep(Step{.call = std::move(call), .in = std::move(in), .in_values = inputs}, outputs);
}

void Tape::RecordCustom(std::shared_ptr<CustomRule> rule, std::vector<int> in,
                        std::vector<Array> in_values, const std::vector<Array>& outputs) {
  AddStep(Step{.custom = std::move(rule), .in = std::move(in), .in_values = std::move(in_values)},
          outputs);
}

int Tape::NewSlot(const Array& value) {
  slots_.push_back(value);
  int slot = static_cast<int>(slots_.size()) - 1;
  index_[KeyOf(value)] = slot;
  storages_.insert(value.storage());
  return slot;
}

void Tape::AddStep(Step step, const std::vector<Array>& outputs) {
  for (const Array& a : outputs) {
    // Integer and boolean results carry no cotangent: the tape stops following there.
    step.out.push_back(array::Differentiable(a.dtype()) && a.storage() != nullptr ? NewSlot(a)
                                                                                  : -1);
  }
  step.out_values = outputs;
  steps_.push_back(std::move(step));
}

std::vector<std::optional<Array>> Tape::Backward(Interpreter& interp,
                                                 const std::vector<int>& seeded,
                                                 const std::vector<Array>& cotangents,
                                                 const std::vector<int>& wanted) const {
  std::vector<std::optional<Array>> ct(slots_.size());
  for (size_t i = 0; i < seeded.size(); ++i) {
    if (seeded[i] >= 0) Accumulate(ct[static_cast<size_t>(seeded[i])], cotangents[i]);
  }
  for (size_t s = steps_.size(); s-- > 0;) {
    const Step& step = steps_[s];
    std::vector<std::optional<Array>> out_cts;
    bool any = false;
    for (int slot : step.out) {
      out_cts.push_back(slot >= 0 ? ct[static_cast<size_t>(slot)] : std::nullopt);
      any = any || out_cts.back().has_value();
    }
    if (!any) continue;
    std::vector<std::optional<Array>> in_cts;
    if (step.custom) {
      in_cts = CustomBackward(interp, *step.custom, step.out_values, out_cts);
    } else {
      try {
        in_cts = array::Vjp(step.call, step.in_values, step.out_values, out_cts);
      } catch (const array::VjpUnsupported& e) {
        interp.RaiseWithNotes(
            interp.types().not_implemented_error,
            fmt::format("Differentiation rule for '{}' not implemented: {}", e.prim, e.why),
            {"this emulator differentiates jax.numpy arithmetic, reductions, dots, indexing and "
             "shape operations; wrap the rest in jax.custom_vjp with your own backward rule"});
      } catch (const array::ArrayError& e) {
        eval::GuardArrayOp(interp, [&]() -> int { throw e; });
      }
    }
    for (size_t k = 0; k < step.in.size() && k < in_cts.size(); ++k) {
      if (step.in[k] >= 0 && in_cts[k]) Accumulate(ct[static_cast<size_t>(step.in[k])], *in_cts[k]);
    }
  }
  std::vector<std::optional<Array>> result;
  for (int slot : wanted)
    result.push_back(slot >= 0 ? ct[static_cast<size_t>(slot)] : std::nullopt);
  return result;
}

}  // namespace pz::kernel

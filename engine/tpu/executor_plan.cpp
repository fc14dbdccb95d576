// The executor's region plans (executor.h's RegionPlan): what RunRegion does beyond running each
// instruction, decided once per region and run per step.
#include "tpu/executor.h"

#include "array/elementwise.h"
#include "array/fused_rows.h"
#include "array/linalg.h"
#include "array/prims.h"

namespace pz::tpu {

using array::Array;
using kernel::Instr;
using kernel::ValueId;

void Executor::PlanRegion(const kernel::Region& region) {
  const std::vector<Instr>& body = region.body;
  RegionPlan plan;
  plan.in_place.assign(body.size(), 0);
  bool any = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const Instr& instr = body[i];
    for (const kernel::Region& inner : instr.regions) PlanRegion(inner);
    if (!kernel::IsPrim(instr.op)) continue;
    int32_t position = position_.at(&instr);
    if (array::UnaryOpOf(instr.prim.prim) || array::BinaryOpOf(instr.prim.prim)) {
      const kernel::ValueType& type = function_.values[instr.results[0]];
      for (size_t k = 0; k < instr.operands.size() && k < 8; ++k) {
        const kernel::ValueType& operand = function_.values[instr.operands[k]];
        if (last_use_[instr.operands[k]] == position && operand.dtype == type.dtype &&
            operand.shape == type.shape) {
          plan.in_place[i] |= static_cast<uint8_t>(1u << k);
          any = true;
        }
      }
    }
    if (i + 1 >= body.size() || instr.prim.prim != array::Prim::kDotGeneral) continue;
    const Instr& add = body[i + 1];
    if (!kernel::IsPrim(add.op) || add.prim.prim != array::Prim::kAdd) continue;
    ValueId product = instr.results[0];
    bool first = add.operands[0] == product, second = add.operands[1] == product;
    if (first == second || last_use_[product] != position_.at(&add)) continue;
    ValueId addend = add.operands[first ? 1 : 0];
    const kernel::ValueType& type = function_.values[product];
    if (type.dtype != array::DType::kFloat32 || !(function_.values[addend] == type) ||
        !(function_.values[add.results[0]] == type)) {
      continue;
    }
    plan.dot_adds.push_back(
        {.dot = i, .addend = addend, .addend_dies = last_use_[addend] == position_.at(&add)});
    PlanScaledAddend(region, plan.dot_adds.back());
    if (size_t mul = plan.dot_adds.back().mul; mul != kNoMul) {
      if (plan.deferred.empty()) plan.deferred.assign(body.size(), 0);
      plan.deferred[mul] = 1;
    }
    any = true;
  }
  PlanChains(region, plan);
  PlanTakes(region, plan);
  if (any || !plan.chains.empty() || !plan.takes.empty()) plans_[&region] = std::move(plan);
}

void Executor::PlanScaledAddend(const kernel::Region& region, DotAdd& fused) {
  if (!fused.addend_dies) return;
  const std::vector<Instr>& body = region.body;
  const kernel::ValueType& type = function_.values[body[fused.dot].results[0]];
  if (type.shape.size() != 2) return;
  // The addend's mul, earlier in this body.
  size_t mul = fused.dot;
  while (mul-- > 0) {
    if (!body[mul].results.empty() && body[mul].results[0] == fused.addend) break;
  }
  if (mul == kNoMul || !kernel::IsPrim(body[mul].op) || body[mul].prim.prim != array::Prim::kMul) {
    return;
  }
  const Instr& instr = body[mul];
  array::Shape column = {type.shape[0], 1};
  auto is = [&](ValueId id, const array::Shape& shape) {
    return function_.values[id].dtype == array::DType::kFloat32 &&
           function_.values[id].shape == shape;
  };
  size_t x = is(instr.operands[0], type.shape) ? 0 : 1;
  if (!is(instr.operands[x], type.shape) || !is(instr.operands[1 - x], column)) return;
  ValueId scale = instr.operands[1 - x], value = instr.operands[x];
  // Between the mul and the add nothing may read its operands or its result (the mul runs late),
  // nor write a ref (x or the scale may share a buffer's storage, which a store would overwrite
  // without a copy once the mul, their last use, has passed): primitives, constants, program ids
  // and loads only.
  for (size_t j = mul + 1; j <= fused.dot + 1; ++j) {
    kernel::Op op = body[j].op;
    if (!kernel::IsPrim(op) && op != kernel::Op::kConstant && op != kernel::Op::kProgramId &&
        op != kernel::Op::kLoad) {
      return;
    }
    for (ValueId id : body[j].operands) {
      if (id == scale || id == value || (id == fused.addend && j != fused.dot + 1)) return;
    }
  }
  fused.mul = mul;
  fused.scale = scale;
  fused.x = value;
  fused.x_dies = last_use_[value] == position_.at(&instr);
}

void Executor::PlanTakes(const kernel::Region& region, RegionPlan& plan) {
  // A DMA may read or write any buffer while it flies.
  if (!dma_destinations_.empty()) return;
  const std::vector<Instr>& body = region.body;
  for (size_t l = 0; l < body.size(); ++l) {
    const Instr& load = body[l];
    if (load.op != kernel::Op::kLoad || !StaticWhole(load.ref) ||
        function_.refs[load.ref.ref].role != kernel::RefRole::kScratch) {
      continue;
    }
    kernel::RefId ref = load.ref.ref;
    for (size_t k = l + 1; k < body.size(); ++k) {
      const Instr& instr = body[k];
      bool other_ref =
          (instr.op == kernel::Op::kLoad || instr.op == kernel::Op::kStore) && instr.ref.ref != ref;
      if (kernel::IsPrim(instr.op) || instr.op == kernel::Op::kConstant ||
          instr.op == kernel::Op::kProgramId || other_ref) {
        continue;
      }
      if (instr.op == kernel::Op::kStore && instr.ref.ref == ref && StaticWhole(instr.ref)) {
        if (plan.takes.empty()) plan.takes.assign(body.size(), 0);
        plan.takes[l] = 1;
      }
      break;
    }
  }
}

std::optional<array::LastAxisReduction> Executor::LastAxisOf(const Instr& instr,
                                                             const kernel::ValueType& operand) {
  array::ReduceOp op;
  switch (instr.prim.prim) {
    case array::Prim::kReduceSum:
      op = array::ReduceOp::kSum;
      break;
    case array::Prim::kReduceMax:
      op = array::ReduceOp::kMax;
      break;
    case array::Prim::kReduceMin:
      op = array::ReduceOp::kMin;
      break;
    default:
      return std::nullopt;
  }
  const auto& attrs = std::get<array::ReduceAttrs>(instr.prim.attrs);
  return array::LastAxisReduction::For(op, operand.dtype, operand.shape, attrs.axes, attrs.dtype);
}

void Executor::PlanChains(const kernel::Region& region, RegionPlan& plan) {
  const std::vector<Instr>& body = region.body;
  auto is_f32 = [&](ValueId id) { return function_.values[id].dtype == array::DType::kFloat32; };
  // An op a chain may hold, with a float32 result whose rows are worth a pass of their own.
  auto chainable = [&](const Instr& instr) {
    if (!kernel::IsPrim(instr.op) || instr.results.size() != 1 || !is_f32(instr.results[0])) {
      return false;
    }
    const array::Shape& shape = function_.values[instr.results[0]].shape;
    if (shape.empty() || shape.back() < 16) return false;
    for (ValueId id : instr.operands) {
      if (!is_f32(id)) return false;
    }
    if (std::optional<array::UnaryOp> op = array::UnaryOpOf(instr.prim.prim)) {
      return array::Chainable(*op);
    }
    std::optional<array::BinaryOp> op = array::BinaryOpOf(instr.prim.prim);
    return op && array::Chainable(*op);
  };
  std::vector<bool> adds(body.size(), false);  // the adds of dot_adds, and their deferred muls
  for (const DotAdd& fused : plan.dot_adds) {
    adds[fused.dot + 1] = true;
    if (fused.mul != kNoMul) adds[fused.mul] = true;
  }
  for (size_t i = 0; i < body.size(); ++i) {
    if (adds[i] || !chainable(body[i])) continue;
    const Instr& head = body[i];
    const kernel::ValueType& type = function_.values[head.results[0]];
    // The source: an operand of the result's shape (the pass walks its rows).
    ValueId source = head.operands[0];
    if (!(function_.values[source].shape == type.shape)) {
      if (head.operands.size() < 2 || !(function_.values[head.operands[1]].shape == type.shape)) {
        continue;
      }
      source = head.operands[1];
    }
    Chain chain{
        .ops = {i}, .source = source, .source_dies = last_use_[source] == position_.at(&head)};
    // The next op may come after constants (`x * 0.5 - 1.0`), which RunChain sets first.
    for (size_t j = i + 1; j < body.size() && chain.ops.size() < array::kMaxChainSteps; ++j) {
      if (body[j].op == kernel::Op::kConstant) continue;
      ValueId value = body[chain.ops.back()].results[0];
      const Instr& next = body[j];
      if (adds[j] || !chainable(next) || !(function_.values[next.results[0]].shape == type.shape) ||
          last_use_[value] != position_.at(&next)) {
        break;
      }
      size_t reads = 0;
      for (ValueId id : next.operands) reads += id == value ? 1 : 0;
      if (reads != 1) break;
      chain.ops.push_back(j);
    }
    size_t last = chain.ops.back();
    ValueId result = body[last].results[0];
    for (size_t k = last + 1; k < body.size(); ++k) {
      const Instr& instr = body[k];
      if (kernel::IsPrim(instr.op) && instr.operands.size() == 1 && instr.operands[0] == result &&
          is_f32(instr.results[0]) && LastAxisOf(instr, function_.values[result])) {
        chain.taps.push_back(k);
      }
    }
    if (chain.ops.size() >= 2 || !chain.taps.empty()) {
      i = last;
      plan.chains.push_back(std::move(chain));
    }
  }
  if (!plan.chains.empty()) plan.tapped.assign(body.size(), 0);
}

bool Executor::RunChain(const kernel::Region& region, RegionPlan& plan, Chain& chain) {
  if (chain.declined) return false;
  const std::vector<Instr>& body = region.body;
  // The constants among the ops (skipped with them; run again, to the same values, if the chain
  // declines).
  for (size_t i = chain.ops.front() + 1; i < chain.ops.back(); ++i) {
    if (body[i].op == kernel::Op::kConstant) env_[body[i].results[0]] = *body[i].constant;
  }
  ValueId result = body[chain.ops.back()].results[0];
  const kernel::ValueType& type = function_.values[result];
  Array& slot = env_[result];
  // The pass writes into the source's storage when nothing else holds it and nothing reads it
  // later (the source keeps the slot's old storage for the next run); else into the slot's.
  bool take = chain.source_dies && env_[chain.source].Reusable(array::DType::kFloat32, type.shape);
  if (take) {
    std::swap(slot, env_[chain.source]);
  } else {
    F32Slot(result);
  }
  auto value_of = [&](ValueId id) -> const Array* {
    return take && id == chain.source ? &slot : &env_[id];
  };
  std::array<array::ChainStep, array::kMaxChainSteps> steps;
  ValueId value = chain.source;  // the operand each op reads as the value so far
  for (size_t k = 0; k < chain.ops.size(); ++k) {
    const Instr& instr = body[chain.ops[k]];
    array::ChainStep& step = steps[k];
    if (std::optional<array::UnaryOp> op = array::UnaryOpOf(instr.prim.prim)) {
      step.unary = op;
    } else {
      step.binary = *array::BinaryOpOf(instr.prim.prim);
      step.other_first = instr.operands[1] == value;
      step.other = value_of(instr.operands[step.other_first ? 0 : 1]);
    }
    value = instr.results[0];
  }
  std::vector<array::ChainTap>& taps = chain_taps_;
  taps.clear();
  for (size_t t : chain.taps) {
    const Instr& instr = body[t];
    Array& tap_slot = F32Slot(instr.results[0]);
    tap_slot.set_weak_type(false);  // as Reduce gives it
    taps.push_back({*LastAxisOf(instr, type), tap_slot.data<float>()});
  }
  const Array& source = take ? slot : env_[chain.source];
  if (!array::RunChain(source, std::span(steps.data(), chain.ops.size()), slot, taps)) {
    if (take) std::swap(slot, env_[chain.source]);
    chain.declined = true;
    return false;
  }
  slot.set_weak_type(type.weak);
  for (size_t i : chain.ops) Count(body[i]);
  for (size_t t : chain.taps) {
    Count(body[t]);
    plan.tapped[t] = 1;
  }
  return true;
}

bool Executor::RunInPlace(const Instr& instr, uint8_t operands) {
  ValueId result = instr.results[0];
  const kernel::ValueType& type = function_.values[result];
  for (size_t k = 0; k < instr.operands.size(); ++k) {
    ValueId taken = instr.operands[k];
    if ((operands >> k & 1) == 0 || !env_[taken].Reusable(type.dtype, type.shape)) continue;
    // The result's slot takes the operand's storage; the operand (dead from here on) keeps the
    // slot's old storage for its instruction to reuse next time.
    std::swap(env_[result], env_[taken]);
    auto operand = [&](size_t j) -> const Array& {
      return instr.operands[j] == taken ? env_[result] : env_[instr.operands[j]];
    };
    Count(instr);
    try {
      if (std::optional<array::BinaryOp> op = array::BinaryOpOf(instr.prim.prim)) {
        array::BinaryInto(*op, operand(0), operand(1), env_[result]);
      } else {
        array::UnaryInto(*array::UnaryOpOf(instr.prim.prim), operand(0), env_[result]);
      }
    } catch (const array::ArrayError& error) {
      Fail(instr, EmulationError::Kind::kValueError, error.message);
    }
    return true;
  }
  return false;
}

bool Executor::RunDotAdd(const kernel::Region& region, RegionPlan& plan, DotAdd& fused) {
  if (fused.declined) return false;
  if (fused.mul != kNoMul) {
    if (RunAccumulatingProduct(region, fused, true)) return true;
    // The mul runs now as it would have run, and from now on in its place; then the product and
    // the add as they may.
    size_t i = fused.mul;
    fused.mul = kNoMul;
    plan.deferred[i] = 0;
    if (plan.in_place[i] == 0 || !RunInPlace(region.body[i], plan.in_place[i])) {
      RunInstr(region.body[i]);
    }
  }
  return RunAccumulatingProduct(region, fused, false);
}

bool Executor::RunAccumulatingProduct(const kernel::Region& region, DotAdd& fused, bool scaled) {
  const Instr& dot = region.body[fused.dot];
  const Instr& add = region.body[fused.dot + 1];
  const Array& lhs = env_[dot.operands[0]];
  const Array& rhs = env_[dot.operands[1]];
  const Array* scale = scaled ? &env_[fused.scale] : nullptr;
  // What the product is added to: the addend, or x of a scaled one.
  Array& base = env_[scaled ? fused.x : fused.addend];
  bool base_dies = scaled ? fused.x_dies : fused.addend_dies;
  Array& slot = env_[add.results[0]];
  if (base.weak_type() || (scale != nullptr && scale->weak_type())) return false;
  auto shares = [&](const Array& a) {
    return a.SharesStorageWith(lhs) || a.SharesStorageWith(rhs) ||
           (scale != nullptr && a.SharesStorageWith(*scale));
  };
  // The sum goes into the base's storage when nothing else holds it and nothing reads it later
  // (it then swaps with the slot's, for the next step to reuse); else into the slot's, after a
  // copy of the base.
  bool take = base_dies && base.Reusable(array::DType::kFloat32, base.shape()) && !shares(base);
  if (!take && (!slot.Reusable(array::DType::kFloat32, base.shape()) || shares(slot) ||
                slot.SharesStorageWith(base))) {
    slot = Array::Empty(array::DType::kFloat32, base.shape());
  }
  Array& out = take ? base : slot;
  const auto& attrs = std::get<array::DotAttrs>(dot.prim.attrs);
  try {
    if (!array::DotGeneralAccumulate(lhs, rhs, attrs.dims, attrs.preferred_element_type, base, out,
                                     scale)) {
      // What declines (dtypes, layouts, a depth in several panels) declines every step.
      if (!scaled) fused.declined = true;
      return false;
    }
  } catch (const array::ArrayError& error) {
    Fail(dot, EmulationError::Kind::kValueError, error.message);
  }
  if (take) std::swap(slot, base);
  slot.set_weak_type(false);
  if (scaled) Count(region.body[fused.mul]);
  Count(dot);
  Count(add);
  return true;
}

}  // namespace pz::tpu

// The executor's region plans (executor.h's RegionPlan): what RunRegion does beyond running each
// instruction, decided once per region and run per step.
#include "tpu/executor.h"

#include "array/elementwise.h"
#include "array/linalg.h"

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
    any = true;
  }
  if (any) plans_[&region] = std::move(plan);
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

bool Executor::RunDotAdd(const kernel::Region& region, DotAdd& fused) {
  if (fused.declined) return false;
  const Instr& dot = region.body[fused.dot];
  const Instr& add = region.body[fused.dot + 1];
  const Array& lhs = env_[dot.operands[0]];
  const Array& rhs = env_[dot.operands[1]];
  Array& addend = env_[fused.addend];
  Array& slot = env_[add.results[0]];
  if (addend.weak_type()) return false;
  const auto& attrs = std::get<array::DotAttrs>(dot.prim.attrs);
  // The sum goes into the addend's storage when nothing else holds it and nothing reads it
  // later (it then swaps with the slot's, for the next step to reuse); else into the slot's,
  // after a copy of the addend.
  bool take = fused.addend_dies && addend.Reusable(array::DType::kFloat32, addend.shape()) &&
              !addend.SharesStorageWith(lhs) && !addend.SharesStorageWith(rhs);
  if (!take && (!slot.Reusable(array::DType::kFloat32, addend.shape()) ||
                slot.SharesStorageWith(lhs) || slot.SharesStorageWith(rhs))) {
    slot = Array::Empty(array::DType::kFloat32, addend.shape());
  }
  Array& out = take ? addend : slot;
  try {
    if (!array::DotGeneralAccumulate(lhs, rhs, attrs.dims, attrs.preferred_element_type, addend,
                                     out)) {
      // What declines (dtypes, layouts, a depth in several panels) declines every step.
      fused.declined = true;
      return false;
    }
  } catch (const array::ArrayError& error) {
    Fail(dot, EmulationError::Kind::kValueError, error.message);
  }
  if (take) std::swap(slot, addend);
  slot.set_weak_type(false);
  Count(dot);
  Count(add);
  return true;
}

}  // namespace pz::tpu

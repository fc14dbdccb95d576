// Recording: slots keyed by the exact view of storage they occupy, steps in call order, the
// liveness of steps, and replay.
#include "kernel/record.h"

#include <fmt/format.h>

#include <cstring>

#include "support/check.h"

namespace pz::kernel {

namespace {

ValueType TypeOfArray(const array::Array& a) {
  return {.shape = a.shape(), .dtype = a.dtype(), .weak = a.weak_type()};
}

}  // namespace

Recording::Key Recording::KeyOf(const array::Array& a) {
  return {a.storage(), a.offset(), a.shape(), a.strides(), a.dtype()};
}

int Recording::NewSlot(const array::Array& value, int input, int producer) {
  slots_.push_back(
      {.array = value, .type = TypeOfArray(value), .input = input, .producer = producer});
  int slot = static_cast<int>(slots_.size()) - 1;
  if (value.storage() != nullptr) {
    index_[KeyOf(value)] = slot;
    if (input >= 0 || producer >= 0) storages_.insert(value.storage());
  }
  return slot;
}

int Recording::AddInput(const array::Array& value) { return NewSlot(value, inputs_++, -1); }

int Recording::Find(const array::Array& value) {
  auto it = value.storage() != nullptr ? index_.find(KeyOf(value)) : index_.end();
  if (it == index_.end()) {
    if (storages_.count(value.storage()) != 0 && !problem_) {
      problem_ = fmt::format("a {} view of a traced value was made without a primitive",
                             TypeToString(TypeOfArray(value)));
    }
    return NewSlot(value, -1, -1);  // a constant the computation made
  }
  int slot = it->second;
  if (slots_[slot].type.weak != value.weak_type()) {
    // Only the weak type changed (no primitive in our code, convert_element_type in JAX's).
    Step convert;
    convert.call.prim = array::Prim::kConvertElementType;
    convert.call.attrs = array::ConvertAttrs{value.dtype(), value.weak_type()};
    convert.in = {slot};
    steps_.push_back(std::move(convert));
    int fixed = NewSlot(value, -1, static_cast<int>(steps_.size()) - 1);
    steps_.back().out = {fixed};
    return fixed;
  }
  return slot;
}

void Recording::Record(array::PrimCall call, const std::vector<array::Array>& inputs,
                       const std::vector<array::Array>& outputs) {
  Step step{.call = std::move(call)};
  for (const array::Array& a : inputs) step.in.push_back(Find(a));
  steps_.push_back(std::move(step));
  int index = static_cast<int>(steps_.size()) - 1;
  std::vector<int> out;
  for (const array::Array& a : outputs) out.push_back(NewSlot(a, -1, index));
  steps_[index].out = std::move(out);
}

std::vector<bool> Recording::Live(const std::vector<int>& results) const {
  std::vector<bool> live_slot(slots_.size(), false);
  for (int slot : results) live_slot[slot] = true;
  std::vector<bool> live(steps_.size(), false);
  for (size_t s = steps_.size(); s-- > 0;) {
    for (int slot : steps_[s].out) live[s] = live[s] || live_slot[slot];
    if (!live[s]) continue;
    for (int slot : steps_[s].in) live_slot[slot] = true;
  }
  return live;
}

std::vector<array::Array> Recording::Replay(const std::vector<array::Array>& inputs,
                                            const std::vector<int>& results) const {
  std::vector<array::Array> values(slots_.size());
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].input >= 0) {
      values[i] = inputs.at(static_cast<size_t>(slots_[i].input));
    } else if (slots_[i].producer < 0) {
      values[i] = slots_[i].array;
    }
  }
  std::vector<bool> live = Live(results);
  for (size_t s = 0; s < steps_.size(); ++s) {
    if (!live[s]) continue;
    std::vector<array::Array> in;
    for (int slot : steps_[s].in) in.push_back(values[slot]);
    std::vector<array::Array> out = array::RunPrim(steps_[s].call, in);
    PZ_CHECK(out.size() == steps_[s].out.size());
    for (size_t k = 0; k < out.size(); ++k) values[steps_[s].out[k]] = std::move(out[k]);
  }
  std::vector<array::Array> out;
  for (int slot : results) out.push_back(values[slot]);
  return out;
}

bool SameBits(const array::Array& a, const array::Array& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  array::Array x = a.Contiguous();
  array::Array y = b.Contiguous();
  size_t bytes = static_cast<size_t>(x.size()) * array::ItemSize(x.dtype());
  return bytes == 0 || std::memcmp(x.raw(), y.raw(), bytes) == 0;
}

}  // namespace pz::kernel

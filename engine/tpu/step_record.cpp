#include "tpu/step_record.h"

#include <algorithm>

namespace pz::tpu {

void BranchCounter::Count(const kernel::Instr& instr, bool taken) {
  auto [it, added] = index_.try_emplace(&instr, records_.size());
  if (added) records_.push_back({.instr = &instr, .span = instr.span});
  BranchRecord& r = records_[it->second];
  if (!taken) {
    ++r.skipped;
    return;
  }
  ++r.taken;
  if (step_ >= 0) {
    if (static_cast<size_t>(step_) >= r.taken_at.size()) r.taken_at.resize(step_ + 1, false);
    r.taken_at[static_cast<size_t>(step_)] = true;
  }
}

int64_t BranchRecord::LastTakenBefore(int64_t step) const {
  for (auto s = std::min<size_t>(static_cast<size_t>(std::max<int64_t>(step, 0)), taken_at.size());
       s-- > 0;) {
    if (taken_at[s]) return static_cast<int64_t>(s);
  }
  return -1;
}

}  // namespace pz::tpu

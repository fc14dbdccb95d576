#include "tpu/step_record.h"

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
  if (r.first_taken < 0) r.first_taken = step_;
  r.last_taken = step_;
  if (step_ >= 0) {
    if (static_cast<size_t>(step_) >= r.taken_at.size()) r.taken_at.resize(step_ + 1, false);
    r.taken_at[static_cast<size_t>(step_)] = true;
  }
}

}  // namespace pz::tpu

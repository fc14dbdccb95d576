// DMAs of two points into the same elements of a pl.ANY operand (shared_writes.h).
#include "kernel/shared_writes.h"

#include <algorithm>
#include <optional>
#include <set>

#include "kernel/folder.h"

namespace pz::kernel {

namespace {

// One DMA into a judged ref at one grid step, with its destination known.
struct Write {
  const Instr* dma = nullptr;
  size_t step = 0;  // into the walk's list of steps
  RefId ref = -1;
  std::vector<ElementSpan> box;  // per dimension of the base ref
};

// Collects the DMAs into judged refs that run on every path of `region` at one step.
class WriteWalk {
 public:
  WriteWalk(const Function& f, const std::vector<int64_t>& step, size_t step_index,
            const std::set<RefId>& judged, std::vector<Write>& out)
      : f_(f), folder_(f, IdsOf(step)), step_(step_index), judged_(judged), out_(out) {}

  void Walk(const Region& region) {
    for (const Instr& instr : region.body) {
      switch (instr.op) {
        case Op::kDmaStart:
          if (instr.copy.size() == 2 && judged_.count(instr.copy[1].ref) &&
              instr.device_operands == 0 && instr.send_sem.ref < 0) {
            if (std::optional<std::vector<ElementSpan>> box =
                    KnownBox(f_, folder_, instr.copy[1])) {
              out_.push_back(
                  {.dma = &instr, .step = step_, .ref = instr.copy[1].ref, .box = *std::move(box)});
            }
          }
          break;
        case Op::kCond:
        case Op::kSwitch:
          // Only a branch the known program ids decide: the others may not run.
          if (std::optional<int64_t> pick = folder_.Known(instr.operands[0])) {
            Walk(instr.regions[PickedRegion(instr, *pick)]);
          }
          break;
        case Op::kRunScoped:
          for (const Region& r : instr.regions) Walk(r);
          break;
        default:
          // Loops are not walked: their indices are unknown, and they may not run.
          folder_.Note(instr);
          break;
      }
    }
  }

 private:
  const Function& f_;
  Folder folder_;
  size_t step_;
  const std::set<RefId>& judged_;
  std::vector<Write>& out_;
};

}  // namespace

SharedWrite AnyWrittenApart(const Function& kernel, const std::vector<int64_t>& grid,
                            const StepsApart& apart) {
  std::set<RefId> judged;
  for (size_t r = 0; r < kernel.refs.size(); ++r) {
    const RefType& ref = kernel.refs[r];
    if (ref.space == MemorySpace::kAny &&
        (ref.role == RefRole::kInput || ref.role == RefRole::kOutput)) {
      judged.insert(static_cast<RefId>(r));
    }
  }
  if (judged.empty() || std::any_of(grid.begin(), grid.end(), [](int64_t n) { return n <= 0; })) {
    return {};  // nothing to judge, or a grid of no steps
  }
  // Every combination of each axis's first, second, middle and last index.
  std::vector<std::vector<int64_t>> picks;
  for (int64_t n : grid) picks.push_back(SampledIndices(n));
  std::vector<std::vector<int64_t>> steps = EveryCombination(picks);
  // A body with many copies is judged on its first writes only, to keep the pairs few.
  constexpr size_t kMostWrites = 2048;
  std::vector<Write> writes;
  for (size_t s = 0; s < steps.size() && writes.size() < kMostWrites; ++s) {
    WriteWalk(kernel, steps[s], s, judged, writes).Walk(kernel.body);
  }
  for (size_t i = 0; i < writes.size(); ++i) {
    for (size_t j = i + 1; j < writes.size(); ++j) {
      const Write& a = writes[i];
      const Write& b = writes[j];
      if (a.ref != b.ref || a.step == b.step || !apart(steps[a.step], steps[b.step])) continue;
      std::vector<int64_t> element;
      for (size_t d = 0; d < a.box.size(); ++d) {
        std::optional<int64_t> x = CommonIndex(a.box[d], b.box[d]);
        if (!x) break;
        element.push_back(*x);
      }
      if (element.size() != a.box.size()) continue;
      return {.ref = a.ref,
              .first = a.dma,
              .second = b.dma,
              .first_step = steps[a.step],
              .second_step = steps[b.step],
              .element = std::move(element)};
    }
  }
  return {};
}

}  // namespace pz::kernel

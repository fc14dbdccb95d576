// DMAs of two points into the same elements of a pl.ANY operand (shared_writes.h).
#include "kernel/shared_writes.h"

#include <algorithm>
#include <optional>
#include <set>

#include "kernel/folder.h"

namespace pz::kernel {

namespace {

// The elements a DMA's destination reaches along one dimension of its base ref: `size` indices
// from `start`, `stride` apart.
struct Span {
  int64_t start = 0, size = 0, stride = 1;

  bool Has(int64_t x) const {
    return x >= start && (x - start) % stride == 0 && (x - start) / stride < size;
  }
};

// The first index both spans reach, if any.
std::optional<int64_t> Common(const Span& a, const Span& b) {
  if (a.size <= 0 || b.size <= 0) return std::nullopt;
  if (a.stride == 1 && b.stride == 1) {
    int64_t lo = std::max(a.start, b.start);
    int64_t hi = std::min(a.start + a.size, b.start + b.size);
    if (lo < hi) return lo;
    return std::nullopt;
  }
  const Span& few = a.size <= b.size ? a : b;
  const Span& other = a.size <= b.size ? b : a;
  for (int64_t k = 0; k < few.size; ++k) {
    int64_t x = few.start + k * few.stride;
    if (other.Has(x)) return x;
  }
  return std::nullopt;
}

// One DMA into a judged ref at one grid step, with its destination known.
struct Write {
  const Instr* dma = nullptr;
  size_t step = 0;  // into the walk's list of steps
  RefId ref = -1;
  std::vector<Span> box;  // per dimension of the base ref
};

// The destination of `path` in its base ref's coordinates, when every index is known.
std::optional<std::vector<Span>> BoxOf(const Function& f, const Folder& folder,
                                       const RefPath& path) {
  const RefType& ref = f.refs.at(static_cast<size_t>(path.ref));
  std::vector<Span> box;
  std::vector<size_t> view;  // the base dimension each dimension of the current view is
  for (size_t d = 0; d < ref.shape.size(); ++d) {
    box.push_back({.start = 0, .size = ref.shape[d], .stride = 1});
    view.push_back(d);
  }
  for (const Indexer& indexer : path.indexers) {
    if (indexer.size() > view.size()) return std::nullopt;
    std::vector<size_t> next;
    for (size_t i = 0; i < indexer.size(); ++i) {
      const DimIndex& index = indexer[i];
      int64_t start = index.start;
      if (index.dynamic_start != kNoValue) {
        std::optional<int64_t> known = folder.Known(index.dynamic_start);
        if (!known) return std::nullopt;
        start = *known;
      }
      Span& s = box[view[i]];
      s.start += start * s.stride;
      if (index.is_int) {
        s.size = 1;
      } else {
        s.size = index.size;
        s.stride *= std::max<int64_t>(index.stride, 1);
        next.push_back(view[i]);
      }
    }
    for (size_t i = indexer.size(); i < view.size(); ++i) next.push_back(view[i]);
    view = std::move(next);
  }
  return box;
}

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
            if (std::optional<std::vector<Span>> box = BoxOf(f_, folder_, instr.copy[1])) {
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
        std::optional<int64_t> x = Common(a.box[d], b.box[d]);
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

// Checks of the state a grid step may take from another point's steps (carried.h).
#include "kernel/carried.h"

#include <algorithm>
#include <optional>
#include <set>

#include "kernel/folder.h"
#include "kernel/fresh.h"

namespace pz::kernel {

namespace {

// How many grid steps back the walks look for what another point's steps did.
constexpr int kLookBack = 64;

// One part of a semaphore's index: known (a constant, or folded from the known program ids) or
// the value id that computes it.
struct SlotPart {
  std::optional<int64_t> known;
  ValueId value = kNoValue;
};

// A signal the walk has seen and no wait has taken: the semaphore ref and the parts of its index.
struct Signal {
  RefId ref = -1;
  std::vector<SlotPart> slot;
  int64_t serial = 0;  // the walk's count of signals before it
};

enum class Match { kNo, kMaybe, kSame };

// Whether two indices of one semaphore name the same slot: kNo only when some part differs as
// known values; kSame when every part is the same known value or value id.
Match Compare(const std::vector<SlotPart>& a, const std::vector<SlotPart>& b) {
  if (a.size() != b.size()) return Match::kMaybe;
  Match m = Match::kSame;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].known && b[i].known) {
      if (*a[i].known != *b[i].known) return Match::kNo;
    } else if (a[i].known || b[i].known || a[i].value != b[i].value) {
      m = Match::kMaybe;
    }
  }
  return m;
}

// Whether a signal one grid step left may be what a wait of another step waits for: the same
// semaphore, and no part of their indices known at both steps and different (a value id names
// other values at other steps).
bool MayMatchAcrossSteps(const Signal& signal, const Signal& wait) {
  if (signal.ref != wait.ref) return false;
  if (signal.slot.size() != wait.slot.size()) return true;
  for (size_t i = 0; i < signal.slot.size(); ++i) {
    if (signal.slot[i].known && wait.slot[i].known &&
        *signal.slot[i].known != *wait.slot[i].known) {
      return false;
    }
  }
  return true;
}

// The walk of WaitCarriedAcrossPoints over one grid step: the signals (DMA starts, semaphore
// signals) each path has made so far, and the first wait that on some path nothing before it
// can have signalled. Where the walk cannot tell slots apart, or a branch or loop may or may not
// signal, it takes the signal as made, so that what it finds is a wait that cannot be satisfied
// from within the step.
class WaitWalk {
 public:
  WaitWalk(const Function& f, std::map<int, int64_t> known_ids, const std::set<RefId>& skipped)
      : f_(f), folder_(f, std::move(known_ids)), skipped_(skipped) {}

  // The signals a whole step leaves for the steps after it: those `region` makes and does not
  // take itself (its waits left without a signal are not found).
  std::vector<Signal> Leftover(const Region& region) {
    std::vector<Signal> pending;
    ++collecting_;
    Walk(region, pending);
    --collecting_;
    return pending;
  }

  // What the wait Walk last returned waits for.
  const Signal& missing() const { return missing_; }

  // The first wait of `region` left without a signal, or null; `pending` is updated as the
  // region's instructions run.
  const Instr* Walk(const Region& region, std::vector<Signal>& pending) {
    for (const Instr& instr : region.body) {
      switch (instr.op) {
        case Op::kDmaStart:
        case Op::kSemaphoreSignal:
          if (!skipped_.count(instr.ref.ref)) pending.push_back(SignalOf(instr));
          break;
        case Op::kDmaWait:
        case Op::kSemaphoreWait:
          if (skipped_.count(instr.ref.ref)) break;
          if (Signal wanted = SignalOf(instr); !Take(wanted, pending) && collecting_ == 0) {
            missing_ = std::move(wanted);
            return &instr;
          }
          break;
        case Op::kCond:
        case Op::kSwitch: {
          if (std::optional<int64_t> pick = folder_.Known(instr.operands[0])) {
            if (const Instr* w = Walk(instr.regions[PickedRegion(instr, *pick)], pending)) return w;
            break;
          }
          // Either branch may run: each must find its waits' signals, and what any branch
          // signals counts as signalled after it.
          std::vector<Signal> after = pending;
          for (const Region& r : instr.regions) {
            std::vector<Signal> branch = pending;
            if (const Instr* w = Walk(r, branch)) return w;
            Added(pending, branch, after);
          }
          pending = std::move(after);
          break;
        }
        case Op::kFor:
        case Op::kWhile:
        case Op::kRunScoped: {
          // A loop's body runs any number of times: walked once only to collect what it
          // signals, then again with that pending, so that a wait for what the iteration before
          // signalled is satisfied. A scoped region runs once.
          bool loop = instr.op != Op::kRunScoped;
          std::vector<Signal> after = pending;
          for (const Region& r : instr.regions) {
            std::vector<Signal> inside = pending;
            if (loop) {
              ++collecting_;
              Walk(r, inside);
              --collecting_;
              std::vector<Signal> second = pending;
              Added(pending, inside, second);
              inside = std::move(second);
            }
            if (const Instr* w = Walk(r, inside)) return w;
            Added(pending, inside, after);
          }
          pending = std::move(after);
          break;
        }
        default:
          folder_.Note(instr);
          break;
      }
    }
    return nullptr;
  }

 private:
  Signal SignalOf(const Instr& instr) {
    Signal signal{.ref = instr.ref.ref, .serial = serial_++};
    for (const Indexer& indexer : instr.ref.indexers) {
      for (const DimIndex& d : indexer) {
        SlotPart part;
        if (d.dynamic_start == kNoValue) {
          part.known = d.start;
        } else {
          part.known = folder_.Known(d.dynamic_start);
          part.value = d.dynamic_start;
        }
        signal.slot.push_back(part);
      }
    }
    return signal;
  }

  // Takes the pending signal `wait` waits for: one of the same slot, else one that may be.
  static bool Take(const Signal& wait, std::vector<Signal>& pending) {
    auto best = pending.end();
    for (auto it = pending.begin(); it != pending.end(); ++it) {
      if (it->ref != wait.ref) continue;
      Match m = Compare(it->slot, wait.slot);
      if (m == Match::kSame) {
        best = it;
        break;
      }
      if (m == Match::kMaybe && best == pending.end()) best = it;
    }
    if (best == pending.end()) return false;
    pending.erase(best);
    return true;
  }

  // Appends to `into` the signals of `after` that `before` did not hold (those a region made;
  // the ones it took stay pending) and `into` does not hold yet.
  static void Added(const std::vector<Signal>& before, const std::vector<Signal>& after,
                    std::vector<Signal>& into) {
    std::set<int64_t> known;
    for (const Signal& s : before) known.insert(s.serial);
    for (const Signal& s : into) known.insert(s.serial);
    for (const Signal& s : after) {
      if (known.insert(s.serial).second) into.push_back(s);
    }
  }

  const Function& f_;
  Folder folder_;
  const std::set<RefId>& skipped_;
  int collecting_ = 0;  // inside a loop's first walk: waits left without a signal are not found
  Signal missing_;
  int64_t serial_ = 0;
};

// Adds to `boxes` the elements of ref `r` that some path through `region` may read (loads, and
// DMAs of this device out of it) or, with `stores`, write (stores, and DMAs into it), the branches
// the known program ids decide taken as they go. An access whose indices are not all known
// reaches the whole ref.
void AccessBoxes(const Function& f, Folder& folder, const Region& region, RefId r, bool stores,
                 std::vector<std::vector<ElementSpan>>& boxes) {
  auto add = [&](const RefPath& path) {
    std::optional<std::vector<ElementSpan>> box = KnownBox(f, folder, path);
    boxes.push_back(box ? *std::move(box) : *KnownBox(f, folder, RefPath{.ref = r}));
  };
  for (const Instr& instr : region.body) {
    if (instr.op == (stores ? Op::kStore : Op::kLoad) && instr.ref.ref == r) add(instr.ref);
    if (instr.op == Op::kDmaStart && instr.copy.size() == 2 &&
        instr.copy[stores ? 1 : 0].ref == r) {
      add(instr.copy[stores ? 1 : 0]);
    }
    if ((instr.op == Op::kCond || instr.op == Op::kSwitch) && !instr.regions.empty()) {
      if (std::optional<int64_t> pick = folder.Known(instr.operands[0])) {
        AccessBoxes(f, folder, instr.regions[PickedRegion(instr, *pick)], r, stores, boxes);
        continue;
      }
    }
    for (const Region& inner : instr.regions) AccessBoxes(f, folder, inner, r, stores, boxes);
    folder.Note(instr);
  }
}

// The elements of ref `r` that grid step `step` may read, or with `stores` write.
std::vector<std::vector<ElementSpan>> AccessBoxesAt(const Function& f,
                                                    const std::vector<int64_t>& step, RefId r,
                                                    bool stores) {
  Folder folder(f, IdsOf(step));
  std::vector<std::vector<ElementSpan>> boxes;
  AccessBoxes(f, folder, f.body, r, stores, boxes);
  return boxes;
}

// The walk of DrawCarriedAcrossPoints over one grid step: whether the core's generator is seeded
// on every path so far, and the first draw that some path reaches before a seed.
class SeedWalk {
 public:
  SeedWalk(const Function& f, std::map<int, int64_t> known_ids)
      : folder_(f, std::move(known_ids)) {}

  const Instr* Walk(const Region& region, bool& seeded) {
    for (const Instr& instr : region.body) {
      switch (instr.op) {
        case Op::kPrngSeed:
          seeded = true;
          break;
        case Op::kPrngRandomBits:
          if (!seeded) return &instr;
          break;
        case Op::kCond:
        case Op::kSwitch: {
          if (std::optional<int64_t> pick = folder_.Known(instr.operands[0])) {
            if (const Instr* d = Walk(instr.regions[PickedRegion(instr, *pick)], seeded)) return d;
            break;
          }
          bool all = !instr.regions.empty();
          for (const Region& r : instr.regions) {
            bool branch = seeded;
            if (const Instr* d = Walk(r, branch)) return d;
            all = all && branch;
          }
          seeded = seeded || all;
          break;
        }
        case Op::kFor:
        case Op::kWhile:
          // A loop may not run: what it seeds does not count after it.
          for (const Region& r : instr.regions) {
            bool inside = seeded;
            if (const Instr* d = Walk(r, inside)) return d;
          }
          break;
        default:
          for (const Region& r : instr.regions) {
            if (const Instr* d = Walk(r, seeded)) return d;
          }
          folder_.Note(instr);
          break;
      }
    }
    return nullptr;
  }

 private:
  Folder folder_;
};

// The semaphores WaitCarriedAcrossPoints does not judge: those not in the kernel's scratch,
// barrier semaphores, and those a remote copy or a signal to another device names (another
// device's signals reach them).
void CollectSkipped(const Function& f, const Region& region, std::set<RefId>& skipped) {
  for (const Instr& instr : region.body) {
    bool remote = (instr.op == Op::kDmaStart || instr.op == Op::kSemaphoreSignal) &&
                  (instr.device_operands > 0 || instr.send_sem.ref >= 0);
    if (remote) {
      for (const RefPath* path : RefPathsOf(instr)) {
        if (f.refs.at(static_cast<size_t>(path->ref)).space == MemorySpace::kSemaphore) {
          skipped.insert(path->ref);
        }
      }
    }
    for (const Region& inner : instr.regions) CollectSkipped(f, inner, skipped);
  }
}

// The points of `point_axes` in a grid whose steps run in row-major order, and the steps where
// the emulated TPU and a run of each point as a chain apart part ways: those whose step before
// belongs to another point.
class Points {
 public:
  Points(const std::vector<int64_t>& grid, const std::vector<int>& point_axes)
      : grid_(grid), axes_(point_axes) {}

  // The grid step before `step` in row-major order (`step` is never the very first).
  std::vector<int64_t> Before(std::vector<int64_t> step) const {
    for (size_t a = step.size(); a-- > 0;) {
      if (step[a] > 0) {
        --step[a];
        break;
      }
      step[a] = grid_[a] - 1;
    }
    return step;
  }
  // Whether two steps belong to different points.
  bool Apart(const std::vector<int64_t>& a, const std::vector<int64_t>& b) const {
    for (size_t axis = 0; axis < a.size(); ++axis) {
      if (IsPoint(axis) && a[axis] != b[axis]) return true;
    }
    return false;
  }
  // Whether a step is not its point's first (some other axis is past 0): its point resumes
  // there after other points' steps.
  bool Resumes(const std::vector<int64_t>& step) const {
    for (size_t axis = 0; axis < step.size(); ++axis) {
      if (!IsPoint(axis) && step[axis] != 0) return true;
    }
    return false;
  }
  // The steps of other points that the emulated TPU runs after the point of `step` last ran and
  // before `step`, latest first (kLookBack of them at most).
  std::vector<std::vector<int64_t>> OthersSince(const std::vector<int64_t>& step) const {
    std::vector<std::vector<int64_t>> others;
    std::vector<int64_t> t = step;
    while (others.size() < static_cast<size_t>(kLookBack) &&
           std::any_of(t.begin(), t.end(), [](int64_t i) { return i != 0; })) {
      t = Before(t);
      if (!Apart(step, t)) break;  // the point's own step: its chain ran it too
      others.push_back(t);
    }
    return others;
  }
  // The sampled steps (each axis's first, second, middle and last index, in every combination)
  // whose step before belongs to another point: the first steps of points and, where a point
  // axis lies inside another axis, the steps where a point resumes.
  std::vector<std::vector<int64_t>> Entries() const {
    std::vector<std::vector<int64_t>> values;
    for (int64_t n : grid_) values.push_back(SampledIndices(std::max<int64_t>(n, 1)));
    std::vector<std::vector<int64_t>> steps;
    for (std::vector<int64_t>& step : EveryCombination(values)) {
      if (std::all_of(step.begin(), step.end(), [](int64_t i) { return i == 0; })) continue;
      if (Apart(step, Before(step))) steps.push_back(std::move(step));
    }
    return steps;
  }

 private:
  bool IsPoint(size_t axis) const {
    return std::find(axes_.begin(), axes_.end(), static_cast<int>(axis)) != axes_.end();
  }

  const std::vector<int64_t>& grid_;
  const std::vector<int>& axes_;
};

}  // namespace

CarriedScratch ScratchCarriedAcrossPoints(const Function& kernel, const std::vector<int64_t>& grid,
                                          const std::vector<int>& point_axes) {
  Points points(grid, point_axes);
  std::vector<std::vector<int64_t>> steps = points.Entries();
  if (steps.empty()) return {};
  auto walk = [&](RefId r, const std::vector<int64_t>& step) {
    return WrittenWholeBeforeReadAt(kernel, r, IdsOf(step));
  };
  // Whether a step of another point since `step`'s own point's step before it may store into
  // elements of `r` that `step` may read.
  auto stored_between = [&](RefId r, const std::vector<int64_t>& step) {
    std::vector<std::vector<ElementSpan>> reads = AccessBoxesAt(kernel, step, r, false);
    for (const std::vector<int64_t>& t : points.OthersSince(step)) {
      for (const std::vector<ElementSpan>& store : AccessBoxesAt(kernel, t, r, true)) {
        for (const std::vector<ElementSpan>& read : reads) {
          if (Overlap(store, read)) return true;
        }
      }
    }
    return false;
  };
  for (size_t r = 0; r < kernel.refs.size(); ++r) {
    const RefType& ref = kernel.refs[r];
    auto id = static_cast<RefId>(r);
    if (ref.role != RefRole::kScratch || ref.space == MemorySpace::kSemaphore ||
        MovedOtherwise(kernel, id)) {
      continue;
    }
    // Read unwritten at the grid's very first step too: nothing was carried there (the
    // uninitialised-memory detector's business).
    if (!walk(id, std::vector<int64_t>(grid.size(), 0))) continue;
    for (const std::vector<int64_t>& step : steps) {
      if (walk(id, step)) continue;
      // Where the point resumes, its chain holds what its own steps left: only other points'
      // stores since then, into what this step reads, set the two runs apart.
      bool resumes = points.Resumes(step);
      if (!resumes || stored_between(id, step)) {
        return {.ref = id, .step = step, .resumes = resumes};
      }
    }
  }
  return {};
}

CarriedWait WaitCarriedAcrossPoints(const Function& kernel, const std::vector<int64_t>& grid,
                                    const std::vector<int>& point_axes) {
  std::set<RefId> skipped;
  for (size_t r = 0; r < kernel.refs.size(); ++r) {
    const RefType& ref = kernel.refs[r];
    if (ref.space != MemorySpace::kSemaphore || ref.semaphore == SemaphoreKind::kBarrier ||
        (ref.role != RefRole::kScratch && ref.role != RefRole::kScoped)) {
      skipped.insert(static_cast<RefId>(r));
    }
  }
  CollectSkipped(kernel, kernel.body, skipped);
  if (skipped.size() == kernel.refs.size()) return {};
  Points points(grid, point_axes);
  std::vector<std::vector<int64_t>> steps = points.Entries();
  if (steps.empty()) return {};
  auto walk = [&](const std::vector<int64_t>& step) {
    std::vector<Signal> pending;
    return WaitWalk(kernel, IdsOf(step), skipped).Walk(kernel.body, pending);
  };
  // Whether a step of another point since `step`'s own point's step before it may leave a
  // signal that `wanted` (a wait of `step`) would take on the emulated TPU.
  auto signalled_between = [&](const Signal& wanted, const std::vector<int64_t>& step) {
    for (const std::vector<int64_t>& t : points.OthersSince(step)) {
      for (const Signal& left : WaitWalk(kernel, IdsOf(t), skipped).Leftover(kernel.body)) {
        if (MayMatchAcrossSteps(left, wanted)) return true;
      }
    }
    return false;
  };
  // A wait the very first step cannot satisfy either is an error of every run, not a value
  // carried over from another point.
  const Instr* first = walk(std::vector<int64_t>(grid.size(), 0));
  for (const std::vector<int64_t>& step : steps) {
    WaitWalk walker(kernel, IdsOf(step), skipped);
    std::vector<Signal> pending;
    const Instr* w = walker.Walk(kernel.body, pending);
    if (w == nullptr || w == first) continue;
    // Where the point resumes, its chain has what its own steps signalled: only another point's
    // signal in between sets the two runs apart.
    bool resumes = points.Resumes(step);
    if (!resumes || signalled_between(walker.missing(), step)) {
      return {.wait = w, .step = step, .resumes = resumes};
    }
  }
  return {};
}

CarriedDraw DrawCarriedAcrossPoints(const Function& kernel, const std::vector<int64_t>& grid,
                                    const std::vector<int>& point_axes) {
  if (FirstOfOp(kernel.body, Op::kPrngRandomBits) == nullptr) return {};
  Points points(grid, point_axes);
  auto walk = [&](const std::vector<int64_t>& step) {
    bool seeded = false;
    return SeedWalk(kernel, IdsOf(step)).Walk(kernel.body, seeded);
  };
  // A draw the very first step makes unseeded takes nothing from another point.
  if (walk(std::vector<int64_t>(grid.size(), 0)) != nullptr) return {};
  for (const std::vector<int64_t>& step : points.Entries()) {
    if (const Instr* draw = walk(step)) {
      return {.draw = draw, .step = step, .resumes = points.Resumes(step)};
    }
  }
  return {};
}

CarriedInput InputCarriedAcrossPoints(const Function& kernel, const std::vector<int64_t>& grid,
                                      const std::vector<int>& point_axes,
                                      const BlockIndexAt& block_at) {
  std::vector<RefId> stored;
  for (size_t r = 0; r < kernel.refs.size(); ++r) {
    const RefType& ref = kernel.refs[r];
    auto id = static_cast<RefId>(r);
    if ((ref.role != RefRole::kInput && ref.role != RefRole::kPrefetch) ||
        ref.space == MemorySpace::kAny || ref.space == MemorySpace::kSemaphore ||
        MovedOtherwise(kernel, id)) {
      continue;
    }
    if (FirstWriteTo(kernel.body, id) != nullptr) stored.push_back(id);
  }
  if (stored.empty()) return {};
  Points points(grid, point_axes);
  std::vector<std::vector<int64_t>> steps = points.Entries();
  if (steps.empty()) return {};
  for (RefId r : stored) {
    for (const std::vector<int64_t>& step : steps) {
      std::optional<std::vector<int64_t>> block = block_at(r, step);
      if (!block) continue;
      if (WrittenWholeBeforeReadAt(kernel, r, IdsOf(step))) {
        continue;  // the step writes the buffer whole before reading it
      }
      // Another point's stores count only into elements this step may read: elsewhere the
      // block holds what was fetched (or what this point stored) on both.
      std::vector<std::vector<ElementSpan>> reads = AccessBoxesAt(kernel, step, r, false);
      auto stored_into_read = [&](const std::vector<int64_t>& t) {
        for (const std::vector<ElementSpan>& store : AccessBoxesAt(kernel, t, r, true)) {
          for (const std::vector<ElementSpan>& read : reads) {
            if (Overlap(store, read)) return true;
          }
        }
        return false;
      };
      std::vector<int64_t> t = step;
      for (int back = 0; back < kLookBack; ++back) {
        if (std::all_of(t.begin(), t.end(), [](int64_t i) { return i == 0; })) break;
        t = points.Before(t);
        if (block_at(r, t) != block) break;    // fetched afresh at the step after `t`
        if (!points.Apart(step, t)) continue;  // the point's own stores: its chain has them too
        if (stored_into_read(t)) {
          return {.ref = r, .step = step, .store = t, .resumes = points.Resumes(step)};
        }
      }
    }
  }
  return {};
}

}  // namespace pz::kernel

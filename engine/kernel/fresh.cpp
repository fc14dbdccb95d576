// Walks of a kernel's body over what each grid step writes before it reads (fresh.h).
#include "kernel/fresh.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <optional>
#include <set>

#include "array/dtype.h"

namespace pz::kernel {

namespace {

// The integer scalars of a body that the known program ids (and its constants) decide, folded
// as a walk meets their instructions in program order.
class Folder {
 public:
  Folder(const Function& f, std::map<int, int64_t> known_ids) : f_(f), ids_(std::move(known_ids)) {}

  // Records what `instr` (a constant, a program id or a scalar primitive) makes known.
  void Note(const Instr& instr) {
    if (instr.op == Op::kConstant) {
      if (instr.constant && instr.constant->size() == 1 &&
          !array::IsFloating(instr.constant->dtype())) {
        known_[instr.results[0]] = instr.constant->GetInt(0);
      }
    } else if (instr.op == Op::kProgramId) {
      if (auto it = ids_.find(instr.axis); it != ids_.end()) known_[instr.results[0]] = it->second;
    } else if (IsPrim(instr.op)) {
      Fold(instr);
    }
  }

  std::optional<int64_t> Known(ValueId v) const {
    auto it = known_.find(v);
    if (it == known_.end()) return std::nullopt;
    return it->second;
  }

 private:
  void Fold(const Instr& instr) {
    if (instr.results.size() != 1 ||
        !f_.values[static_cast<size_t>(instr.results[0])].shape.empty()) {
      return;
    }
    std::vector<int64_t> x;
    for (ValueId v : instr.operands) {
      std::optional<int64_t> k = Known(v);
      if (!k || !f_.values[static_cast<size_t>(v)].shape.empty()) return;
      x.push_back(*k);
    }
    using array::Prim;
    std::optional<int64_t> r;
    switch (PrimOf(instr.op)) {
      case Prim::kEq:
        r = x[0] == x[1];
        break;
      case Prim::kNe:
        r = x[0] != x[1];
        break;
      case Prim::kLt:
        r = x[0] < x[1];
        break;
      case Prim::kLe:
        r = x[0] <= x[1];
        break;
      case Prim::kGt:
        r = x[0] > x[1];
        break;
      case Prim::kGe:
        r = x[0] >= x[1];
        break;
      case Prim::kAdd:
        r = x[0] + x[1];
        break;
      case Prim::kSub:
        r = x[0] - x[1];
        break;
      case Prim::kMul:
        r = x[0] * x[1];
        break;
      case Prim::kNeg:
        r = -x[0];
        break;
      case Prim::kFloorDivide:
      case Prim::kRemainder:
        // Python's: the quotient rounded down, the remainder with the divisor's sign.
        if (x[1] != 0) {
          int64_t q = x[0] / x[1];
          if ((x[0] % x[1] != 0) && ((x[0] < 0) != (x[1] < 0))) --q;
          r = PrimOf(instr.op) == Prim::kFloorDivide ? q : x[0] - q * x[1];
        }
        break;
      case Prim::kSelectN:
        if (x.size() == 3) r = x[0] != 0 ? x[2] : x[1];
        break;
      case Prim::kAnd:
      case Prim::kLogicalAnd:
        r = x[0] & x[1];
        break;
      case Prim::kOr:
      case Prim::kLogicalOr:
        r = x[0] | x[1];
        break;
      case Prim::kLogicalNot:
        r = x[0] == 0;
        break;
      case Prim::kMax:
        r = std::max(x[0], x[1]);
        break;
      case Prim::kMin:
        r = std::min(x[0], x[1]);
        break;
      case Prim::kCopy:
        r = x[0];
        break;
      case Prim::kConvertElementType:
        if (!array::IsFloating(f_.values[static_cast<size_t>(instr.results[0])].dtype)) {
          r = f_.values[static_cast<size_t>(instr.results[0])].dtype == array::DType::kBool
                  ? int64_t{x[0] != 0}
                  : x[0];
        }
        break;
      default:
        break;
    }
    if (r) known_[instr.results[0]] = *r;
  }

  const Function& f_;
  std::map<int, int64_t> ids_;
  std::map<ValueId, int64_t> known_;
};

// The region of a Cond or Switch that `pick` (its first operand, when known) selects: a cond's
// region 0 when true; a switch's index clamped into range.
size_t PickedRegion(const Instr& instr, int64_t pick) {
  size_t n = instr.regions.size();
  return instr.op == Op::kCond
             ? (pick != 0 ? 0 : 1)
             : static_cast<size_t>(std::clamp<int64_t>(pick, 0, static_cast<int64_t>(n) - 1));
}

// A DMA start or wait between two buffers of this device (not a remote copy).
bool LocalDma(const Instr& instr) {
  return (instr.op == Op::kDmaStart || instr.op == Op::kDmaWait) && instr.send_sem.ref < 0 &&
         instr.device_operands == 0;
}

// The walk of FreshStart: scalars folded where the known program ids decide them, and the
// buffers written whole so far on every path.
class FreshWalk {
 public:
  // With `only`, the walk asks about that ref alone: whether it is written whole before it is
  // read (other refs, stores into inputs and instructions that do not name it do not matter).
  // With `local_dmas` too, a DMA of this device out of that ref reads it at its start, and one
  // into it writes it (whole, when its destination covers it) at its wait.
  FreshWalk(const Function& f, std::map<int, int64_t> known_ids, RefId only = -1,
            bool local_dmas = false)
      : f_(f), folder_(f, std::move(known_ids)), only_(only), local_dmas_(local_dmas) {}

  // False when the region reads a stateful buffer before writing it whole, or does something
  // that keeps state of its own.
  bool Walk(const Region& region, std::set<RefId>& written) {
    for (const Instr& instr : region.body) {
      switch (instr.op) {
        case Op::kConstant:
        case Op::kProgramId:
          folder_.Note(instr);
          break;
        case Op::kLoad:
          if (Stateful(instr.ref.ref) && !written.count(instr.ref.ref)) return false;
          break;
        case Op::kStore: {
          RefRole role = f_.refs.at(static_cast<size_t>(instr.ref.ref)).role;
          bool input = role == RefRole::kInput || role == RefRole::kPrefetch;
          if (input && only_ < 0) return false;
          if (CoversRef(f_, instr.ref)) written.insert(instr.ref.ref);
          break;
        }
        case Op::kCond:
        case Op::kSwitch: {
          if (std::optional<int64_t> pick = folder_.Known(instr.operands[0])) {
            if (!Walk(instr.regions[PickedRegion(instr, *pick)], written)) return false;
            break;
          }
          std::optional<std::set<RefId>> common;
          for (const Region& r : instr.regions) {
            std::set<RefId> branch = written;
            if (!Walk(r, branch)) return false;
            if (!common) {
              common = std::move(branch);
            } else {
              std::set<RefId> both;
              std::set_intersection(common->begin(), common->end(), branch.begin(), branch.end(),
                                    std::inserter(both, both.begin()));
              common = std::move(both);
            }
          }
          if (common) written = std::move(*common);
          break;
        }
        case Op::kFor:
        case Op::kWhile:
          // A loop's writes may not happen: it must not read what is not written before it.
          for (const Region& r : instr.regions) {
            std::set<RefId> inside = written;
            if (!Walk(r, inside)) return false;
          }
          break;
        case Op::kDebugPrint:
          break;
        default:
          if (!IsPrim(instr.op)) {
            if (only_ >= 0 && local_dmas_ && LocalDma(instr)) {
              if (instr.op == Op::kDmaStart && instr.copy[0].ref == only_ &&
                  !written.count(only_)) {
                return false;
              }
              if (instr.op == Op::kDmaWait && instr.copy[1].ref == only_ &&
                  CoversRef(f_, instr.copy[1])) {
                written.insert(only_);
              }
              break;
            }
            // DMAs, semaphores, scoped buffers (their regions too), PRNG.
            if (only_ < 0 || Names(instr, only_)) return false;
            break;
          }
          folder_.Note(instr);
          break;
      }
    }
    return true;
  }

 private:
  // Whether `instr` or an instruction of its regions names ref `r`.
  static bool Names(const Instr& instr, RefId r) {
    for (const RefPath* path : RefPathsOf(instr)) {
      if (path->ref == r) return true;
    }
    for (const Region& region : instr.regions) {
      for (const Instr& inner : region.body) {
        if (Names(inner, r)) return true;
      }
    }
    return false;
  }

  bool Stateful(RefId r) const {
    if (only_ >= 0) return r == only_;
    RefRole role = f_.refs.at(static_cast<size_t>(r)).role;
    return role == RefRole::kScratch || role == RefRole::kOutput;
  }
  const Function& f_;
  Folder folder_;
  RefId only_ = -1;
  bool local_dmas_ = false;
};

// Whether an instruction other than a load or a store (a DMA, a semaphore operation) names ref
// `r`, in `region` or the regions inside it.
bool MovedOtherwise(const Function& f, const Region& region, RefId r) {
  for (const Instr& instr : region.body) {
    // A DMA of this device out of `r`, or into all of it, is followed (FreshWalk's local_dmas).
    bool followed = instr.op == Op::kLoad || instr.op == Op::kStore ||
                    (LocalDma(instr) && instr.copy.size() == 2 &&
                     (instr.copy[1].ref != r || CoversRef(f, instr.copy[1])));
    if (!followed) {
      for (const RefPath* path : RefPathsOf(instr)) {
        if (path->ref == r) return true;
      }
    }
    for (const Region& inner : instr.regions) {
      if (MovedOtherwise(f, inner, r)) return true;
    }
  }
  return false;
}

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

// The walk of WaitCarriedAcrossPoints over one grid step: the signals (DMA starts, semaphore
// signals) each path has made so far, and the first wait that on some path nothing before it
// can have signalled. Where the walk cannot tell slots apart, or a branch or loop may or may not
// signal, it takes the signal as made, so that what it finds is a wait that cannot be satisfied
// from within the step.
class WaitWalk {
 public:
  WaitWalk(const Function& f, std::map<int, int64_t> known_ids, const std::set<RefId>& skipped)
      : f_(f), folder_(f, std::move(known_ids)), skipped_(skipped) {}

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
          if (!Take(SignalOf(instr), pending) && collecting_ == 0) return &instr;
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
  int64_t serial_ = 0;
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

// The first steps of the points of `point_axes` that the walks try, the grid's very first step
// left out: along each axis of more than one point its second, middle and last points as well as
// its first, in every combination, every other axis at 0. Empty when no axis of `point_axes` has
// more than one point.
std::vector<std::vector<int64_t>> PointFirstSteps(const std::vector<int64_t>& grid,
                                                  const std::vector<int>& point_axes) {
  std::vector<std::vector<int64_t>> values(grid.size(), std::vector<int64_t>{0});
  bool points = false;
  for (int a : point_axes) {
    if (a < 0 || static_cast<size_t>(a) >= grid.size() || grid[static_cast<size_t>(a)] <= 1) {
      continue;
    }
    int64_t n = grid[static_cast<size_t>(a)];
    std::set<int64_t> picks = {0, 1, n / 2, n - 1};
    values[static_cast<size_t>(a)].assign(picks.begin(), picks.end());
    points = true;
  }
  std::vector<std::vector<int64_t>> steps;
  if (!points) return steps;
  std::vector<size_t> at(grid.size(), 0);
  while (true) {
    size_t a = 0;
    for (; a < grid.size(); ++a) {
      if (++at[a] < values[a].size()) break;
      at[a] = 0;
    }
    if (a == grid.size()) break;
    std::vector<int64_t> step(grid.size());
    for (size_t d = 0; d < grid.size(); ++d) step[d] = values[d][at[d]];
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace

bool WrittenWholeBeforeRead(const Function& kernel, RefId r) {
  std::set<RefId> written;
  return FreshWalk(kernel, {}, r).Walk(kernel.body, written);
}

bool FreshStart(const Function& kernel, int axis, const std::vector<int>& sequential) {
  std::map<int, int64_t> ids;
  auto at = std::find(sequential.begin(), sequential.end(), axis);
  if (at == sequential.end()) return false;
  for (auto it = at + 1; it != sequential.end(); ++it) ids[*it] = 0;
  std::set<RefId> written;
  return FreshWalk(kernel, std::move(ids)).Walk(kernel.body, written);
}

RefId ScratchCarriedAcrossPoints(const Function& kernel, const std::vector<int64_t>& grid,
                                 const std::vector<int>& point_axes) {
  std::vector<std::vector<int64_t>> steps = PointFirstSteps(grid, point_axes);
  if (steps.empty()) return -1;
  auto walk = [&](RefId r, const std::vector<int64_t>& step) {
    std::map<int, int64_t> ids;
    for (size_t a = 0; a < step.size(); ++a) ids[static_cast<int>(a)] = step[a];
    std::set<RefId> written;
    return FreshWalk(kernel, std::move(ids), r, /*local_dmas=*/true).Walk(kernel.body, written);
  };
  for (size_t r = 0; r < kernel.refs.size(); ++r) {
    const RefType& ref = kernel.refs[r];
    auto id = static_cast<RefId>(r);
    if (ref.role != RefRole::kScratch || ref.space == MemorySpace::kSemaphore ||
        MovedOtherwise(kernel, kernel.body, id)) {
      continue;
    }
    // Read unwritten at the grid's very first step too: nothing was carried there (the
    // uninitialised-memory detector's business).
    if (!walk(id, std::vector<int64_t>(grid.size(), 0))) continue;
    for (const std::vector<int64_t>& step : steps) {
      if (!walk(id, step)) return id;
    }
  }
  return -1;
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
  std::vector<std::vector<int64_t>> steps = PointFirstSteps(grid, point_axes);
  if (steps.empty()) return {};
  auto walk = [&](const std::vector<int64_t>& step) {
    std::map<int, int64_t> ids;
    for (size_t a = 0; a < step.size(); ++a) ids[static_cast<int>(a)] = step[a];
    std::vector<Signal> pending;
    return WaitWalk(kernel, std::move(ids), skipped).Walk(kernel.body, pending);
  };
  // A wait the very first step cannot satisfy either is an error of every run, not a value
  // carried over from another point.
  const Instr* first = walk(std::vector<int64_t>(grid.size(), 0));
  for (const std::vector<int64_t>& step : steps) {
    const Instr* w = walk(step);
    if (w != nullptr && w != first) return {.wait = w, .step = step};
  }
  return {};
}

}  // namespace pz::kernel

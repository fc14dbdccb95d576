// Walks of a kernel's body over what each grid step writes before it reads (fresh.h).
#include "kernel/fresh.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>

#include "kernel/folder.h"

namespace pz::kernel {

namespace {

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
bool MovedIn(const Function& f, const Region& region, RefId r) {
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
      if (MovedIn(f, inner, r)) return true;
    }
  }
  return false;
}

}  // namespace

bool WrittenWholeBeforeRead(const Function& kernel, RefId r) {
  std::set<RefId> written;
  return FreshWalk(kernel, {}, r).Walk(kernel.body, written);
}

bool StoredWholeAt(const Function& kernel, RefId r, std::map<int, int64_t> ids) {
  std::set<RefId> written;
  return FreshWalk(kernel, std::move(ids), r).Walk(kernel.body, written) && written.count(r) > 0;
}

bool FreshStart(const Function& kernel, int axis, const std::vector<int>& sequential) {
  std::map<int, int64_t> ids;
  auto at = std::find(sequential.begin(), sequential.end(), axis);
  if (at == sequential.end()) return false;
  for (auto it = at + 1; it != sequential.end(); ++it) ids[*it] = 0;
  std::set<RefId> written;
  return FreshWalk(kernel, std::move(ids)).Walk(kernel.body, written);
}

bool WrittenWholeBeforeReadAt(const Function& kernel, RefId r, std::map<int, int64_t> ids) {
  std::set<RefId> written;
  return FreshWalk(kernel, std::move(ids), r, /*local_dmas=*/true).Walk(kernel.body, written);
}

bool MovedOtherwise(const Function& kernel, RefId r) { return MovedIn(kernel, kernel.body, r); }

}  // namespace pz::kernel

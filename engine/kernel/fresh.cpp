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

// The walk of FreshStart: scalars folded where the known program ids decide them, and the
// buffers written whole so far on every path.
class FreshWalk {
 public:
  // With `only`, the walk asks about that ref alone: whether it is written whole before it is
  // read (other refs, stores into inputs and instructions that do not name it do not matter).
  FreshWalk(const Function& f, std::map<int, int64_t> known_ids, RefId only = -1)
      : f_(f), ids_(std::move(known_ids)), only_(only) {}

  // False when the region reads a stateful buffer before writing it whole, or does something
  // that keeps state of its own.
  bool Walk(const Region& region, std::set<RefId>& written) {
    for (const Instr& instr : region.body) {
      switch (instr.op) {
        case Op::kConstant:
          if (instr.constant && instr.constant->size() == 1 &&
              !array::IsFloating(instr.constant->dtype())) {
            known_[instr.results[0]] = instr.constant->GetInt(0);
          }
          break;
        case Op::kProgramId:
          if (auto it = ids_.find(instr.axis); it != ids_.end())
            known_[instr.results[0]] = it->second;
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
          std::optional<int64_t> pick = Known(instr.operands[0]);
          size_t n = instr.regions.size();
          if (pick) {
            // Cond: region 0 when true; Switch: the index clamped into range.
            size_t r = instr.op == Op::kCond ? (*pick != 0 ? 0 : 1)
                                             : static_cast<size_t>(std::clamp<int64_t>(
                                                   *pick, 0, static_cast<int64_t>(n) - 1));
            if (!Walk(instr.regions[r], written)) return false;
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
            // DMAs, semaphores, scoped buffers (their regions too), PRNG.
            if (only_ < 0 || Names(instr, only_)) return false;
            break;
          }
          Fold(instr);
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
  std::optional<int64_t> Known(ValueId v) const {
    auto it = known_.find(v);
    if (it == known_.end()) return std::nullopt;
    return it->second;
  }
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
  RefId only_ = -1;
};

// Whether an instruction other than a load or a store (a DMA, a semaphore operation) names ref
// `r`, in `region` or the regions inside it.
bool MovedOtherwise(const Region& region, RefId r) {
  for (const Instr& instr : region.body) {
    if (instr.op != Op::kLoad && instr.op != Op::kStore) {
      for (const RefPath* path : RefPathsOf(instr)) {
        if (path->ref == r) return true;
      }
    }
    for (const Region& inner : instr.regions) {
      if (MovedOtherwise(inner, r)) return true;
    }
  }
  return false;
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
  // A point's first step: every other axis at 0, as is every axis of one point.
  std::map<int, int64_t> known_ids;
  bool points = false;
  for (size_t a = 0; a < grid.size(); ++a) {
    bool point =
        std::find(point_axes.begin(), point_axes.end(), static_cast<int>(a)) != point_axes.end();
    points = points || (point && grid[a] > 1);
    if (!point || grid[a] == 1) known_ids[static_cast<int>(a)] = 0;
  }
  if (!points) return -1;
  for (size_t r = 0; r < kernel.refs.size(); ++r) {
    const RefType& ref = kernel.refs[r];
    auto id = static_cast<RefId>(r);
    if (ref.role != RefRole::kScratch || ref.space == MemorySpace::kSemaphore ||
        MovedOtherwise(kernel.body, id)) {
      continue;
    }
    std::set<RefId> written;
    if (!FreshWalk(kernel, known_ids, id).Walk(kernel.body, written)) return id;
  }
  return -1;
}

}  // namespace pz::kernel

// Folding a body's integer scalars (folder.h).
#include "kernel/folder.h"

#include <algorithm>
#include <set>

#include "array/dtype.h"

namespace pz::kernel {

std::vector<int64_t> SampledIndices(int64_t n) {
  std::set<int64_t> picks = {0, std::min<int64_t>(1, n - 1), n / 2, n - 1};
  return {picks.begin(), picks.end()};
}

std::vector<std::vector<int64_t>> EveryCombination(
    const std::vector<std::vector<int64_t>>& values) {
  std::vector<std::vector<int64_t>> steps;
  if (std::any_of(values.begin(), values.end(), [](const auto& v) { return v.empty(); })) {
    return steps;
  }
  std::vector<size_t> at(values.size(), 0);
  while (true) {
    std::vector<int64_t> step(values.size());
    for (size_t d = 0; d < values.size(); ++d) step[d] = values[d][at[d]];
    steps.push_back(std::move(step));
    size_t a = 0;
    for (; a < values.size(); ++a) {
      if (++at[a] < values[a].size()) break;
      at[a] = 0;
    }
    if (a == values.size()) break;
  }
  return steps;
}

void Folder::Note(const Instr& instr) {
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

void Folder::Fold(const Instr& instr) {
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

std::optional<int64_t> CommonIndex(const ElementSpan& a, const ElementSpan& b) {
  if (a.size <= 0 || b.size <= 0) return std::nullopt;
  if (a.stride == 1 && b.stride == 1) {
    int64_t lo = std::max(a.start, b.start);
    int64_t hi = std::min(a.start + a.size, b.start + b.size);
    if (lo < hi) return lo;
    return std::nullopt;
  }
  const ElementSpan& few = a.size <= b.size ? a : b;
  const ElementSpan& other = a.size <= b.size ? b : a;
  for (int64_t k = 0; k < few.size; ++k) {
    int64_t x = few.start + k * few.stride;
    if (other.Has(x)) return x;
  }
  return std::nullopt;
}

bool Overlap(const std::vector<ElementSpan>& a, const std::vector<ElementSpan>& b) {
  if (a.size() != b.size()) return true;
  for (size_t d = 0; d < a.size(); ++d) {
    if (!CommonIndex(a[d], b[d])) return false;
  }
  return true;
}

std::optional<std::vector<ElementSpan>> KnownBox(const Function& f, const Folder& folder,
                                                 const RefPath& path) {
  const RefType& ref = f.refs.at(static_cast<size_t>(path.ref));
  std::vector<ElementSpan> box;
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
      ElementSpan& s = box[view[i]];
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

size_t PickedRegion(const Instr& instr, int64_t pick) {
  size_t n = instr.regions.size();
  return instr.op == Op::kCond
             ? (pick != 0 ? 0 : 1)
             : static_cast<size_t>(std::clamp<int64_t>(pick, 0, static_cast<int64_t>(n) - 1));
}

std::map<int, int64_t> IdsOf(const std::vector<int64_t>& step) {
  std::map<int, int64_t> ids;
  for (size_t a = 0; a < step.size(); ++a) ids[static_cast<int>(a)] = step[a];
  return ids;
}

}  // namespace pz::kernel

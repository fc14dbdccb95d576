// Dimensions::Walk (split_dimensions.h): which dimensions of a kernel body unify, and which may
// not split, instruction by instruction.
#include "cuda/split_dimensions.h"

#include <algorithm>
#include <cstring>

namespace pz::cuda {

namespace {
using array::Prim;
using array::Shape;
using kernel::Instr;
using kernel::Op;
using kernel::RefId;
using kernel::Region;
using kernel::ValueId;
}  // namespace

bool Dimensions::Walk(const Region& region) {
  for (const Instr& instr : region.body) {
    if (!Visit(instr)) return false;
    for (const Region& r : instr.regions) {
      if (!Walk(r)) return false;
    }
  }
  return true;
}

bool Dimensions::Visit(const Instr& instr) {
  switch (instr.op) {
    case Op::kConstant:
      if (!instr.results.empty() && !Uniform(*instr.constant)) ForbidValue(instr.results[0]);
      return true;
    case Op::kProgramId:
      return true;
    case Op::kLoad:
      Access(instr.ref, instr.results[0]);
      return true;
    case Op::kStore:
      Access(instr.ref, instr.operands[0]);
      return true;
    case Op::kCond:
    case Op::kSwitch:
    case Op::kFor:
    case Op::kWhile:
      // Arrays carried through control flow keep their whole shape.
      for (ValueId v : instr.results) ForbidValue(v);
      for (ValueId v : instr.operands) ForbidValue(v);
      for (const Region& r : instr.regions) {
        for (ValueId v : r.params) ForbidValue(v);
        for (ValueId v : r.yields) ForbidValue(v);
      }
      return true;
    default:
      if (kernel::IsPrim(instr.op)) {
        Primitive(instr);
        return true;
      }
      // DMAs, semaphores, scoped buffers, prints, the core's random numbers.
      return false;
  }
}

bool Dimensions::Uniform(const array::Array& a) {
  if (a.size() <= 1) return true;
  array::Array c = a.Contiguous();
  size_t item = array::ItemSize(c.dtype());
  const std::byte* p = c.raw();
  for (int64_t i = 1; i < c.size(); ++i) {
    if (std::memcmp(p, p + static_cast<size_t>(i) * item, item) != 0) return false;
  }
  return true;
}

void Dimensions::ForbidAll(const Instr& instr) {
  for (ValueId v : instr.operands) ForbidValue(v);
  for (ValueId v : instr.results) ForbidValue(v);
}

void Dimensions::Access(const kernel::RefPath& path, ValueId v) {
  size_t rank = RefRank(path.ref);
  if (path.indexers.size() > 1 || (path.indexers.size() == 1 && path.indexers[0].size() != rank)) {
    ForbidRef(path.ref);
    ForbidValue(v);
    return;
  }
  const Shape& shape = f_.refs[static_cast<size_t>(path.ref)].shape;
  size_t j = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (path.indexers.empty()) {
      if (j < ValueRank(v) && ValueDim(v, j) == shape[d]) {
        Unite(Ref(path.ref, d), Value(v, j));
      } else {
        Forbid(Ref(path.ref, d));
      }
      ++j;
      continue;
    }
    const kernel::DimIndex& index = path.indexers[0][d];
    if (index.is_int) {
      Forbid(Ref(path.ref, d));
      continue;
    }
    if (j < ValueRank(v) && kernel::CoversDimension(index, shape[d])) {
      Unite(Ref(path.ref, d), Value(v, j));
    } else {
      Forbid(Ref(path.ref, d));
      if (j < ValueRank(v)) Forbid(Value(v, j));
    }
    ++j;
  }
  if (j != ValueRank(v)) {
    ForbidRef(path.ref);
    ForbidValue(v);
  }
}

void Dimensions::Broadcasting(const Instr& instr) {
  ValueId result = instr.results[0];
  size_t rank = ValueRank(result);
  for (ValueId v : instr.operands) {
    size_t r = ValueRank(v);
    if (r > rank) {
      ForbidAll(instr);
      return;
    }
    for (size_t d = 0; d < r; ++d) {
      if (ValueDim(v, d) == ValueDim(result, rank - r + d)) {
        Unite(Value(v, d), Value(result, rank - r + d));
      } else {
        Forbid(Value(v, d));
      }
    }
  }
  for (size_t i = 1; i < instr.results.size(); ++i) ForbidValue(instr.results[i]);
}

std::vector<int> Dimensions::Normalized(const std::vector<int>& axes, size_t rank) {
  std::vector<int> out;
  for (int a : axes) out.push_back(a < 0 ? a + static_cast<int>(rank) : a);
  return out;
}

void Dimensions::Primitive(const Instr& instr) {
  Prim p = kernel::PrimOf(instr.op);
  if (instr.results.size() != 1) {
    ForbidAll(instr);
    return;
  }
  ValueId result = instr.results[0];
  if (p >= Prim::kNeg && p <= Prim::kClamp) {
    if (p == Prim::kBitcastConvertType && f_.values[static_cast<size_t>(instr.operands[0])].shape !=
                                              f_.values[static_cast<size_t>(result)].shape) {
      ForbidAll(instr);
      return;
    }
    Broadcasting(instr);
    return;
  }
  // Reductions: the primitives with ReduceAttrs.
  if (const auto* a = std::get_if<array::ReduceAttrs>(&instr.prim.attrs)) {
    ValueId x = instr.operands[0];
    if (!a->axes) {
      ForbidAll(instr);
      return;
    }
    std::vector<int> axes = Normalized(*a->axes, ValueRank(x));
    size_t j = 0;
    for (size_t d = 0; d < ValueRank(x); ++d) {
      bool reduced = std::find(axes.begin(), axes.end(), static_cast<int>(d)) != axes.end();
      if (reduced) Forbid(Value(x, d));
      if (j < ValueRank(result) && (!reduced || a->keepdims)) {
        if (reduced) {
          Forbid(Value(result, j));
        } else {
          Unite(Value(x, d), Value(result, j));
        }
        ++j;
      }
    }
    if (j != ValueRank(result)) ForbidAll(instr);
    return;
  }
  switch (p) {
    case Prim::kBroadcastInDim:
      Broadcasting(instr);
      return;
    case Prim::kDotGeneral: {
      const auto* a = std::get_if<array::DotAttrs>(&instr.prim.attrs);
      if (a == nullptr || instr.operands.size() != 2) {
        ForbidAll(instr);
        return;
      }
      const array::DotDimensionNumbers& dims = a->dims;
      ValueId lhs = instr.operands[0], rhs = instr.operands[1];
      auto in = [](const std::vector<int>& v, size_t d) {
        return std::find(v.begin(), v.end(), static_cast<int>(d)) != v.end();
      };
      size_t j = 0;
      for (size_t i = 0; i < dims.lhs_batch.size() && j < ValueRank(result); ++i, ++j) {
        Unite(Value(lhs, static_cast<size_t>(dims.lhs_batch[i])),
              Value(rhs, static_cast<size_t>(dims.rhs_batch[i])));
        Unite(Value(lhs, static_cast<size_t>(dims.lhs_batch[i])), Value(result, j));
      }
      for (int c : dims.lhs_contracting) Forbid(Value(lhs, static_cast<size_t>(c)));
      for (int c : dims.rhs_contracting) Forbid(Value(rhs, static_cast<size_t>(c)));
      for (ValueId side : {lhs, rhs}) {
        const std::vector<int>& batch = side == lhs ? dims.lhs_batch : dims.rhs_batch;
        const std::vector<int>& contracting =
            side == lhs ? dims.lhs_contracting : dims.rhs_contracting;
        for (size_t d = 0; d < ValueRank(side); ++d) {
          if (in(batch, d) || in(contracting, d)) continue;
          if (j < ValueRank(result)) Unite(Value(side, d), Value(result, j));
          product_slots_.push_back(Value(side, d));
          ++j;
        }
      }
      if (j != ValueRank(result)) ForbidAll(instr);
      return;
    }
    case Prim::kTranspose: {
      const auto* a = std::get_if<array::AxesAttrs>(&instr.prim.attrs);
      ValueId x = instr.operands[0];
      size_t rank = ValueRank(x);
      if (a == nullptr || rank != ValueRank(result)) {
        ForbidAll(instr);
        return;
      }
      std::vector<int> perm(rank);
      if (a->axes) {
        perm = Normalized(*a->axes, rank);
      } else {
        for (size_t d = 0; d < rank; ++d) perm[d] = static_cast<int>(rank - 1 - d);
      }
      for (size_t d = 0; d < rank; ++d)
        Unite(Value(result, d), Value(x, static_cast<size_t>(perm[d])));
      return;
    }
    case Prim::kIota: {
      const auto* a = std::get_if<array::IotaAttrs>(&instr.prim.attrs);
      if (a == nullptr || static_cast<size_t>(a->dimension) >= ValueRank(result)) {
        ForbidAll(instr);
        return;
      }
      Forbid(Value(result, static_cast<size_t>(a->dimension)));
      return;
    }
    default:
      ForbidAll(instr);
      return;
  }
}

}  // namespace pz::cuda

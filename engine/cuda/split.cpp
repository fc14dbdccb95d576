// Grid points split into parts (see split.h): the choice of factors from the body's dimension
// classes (split_dimensions.h) and the rewrite of the kernel and its mapping.
#include "cuda/split.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <stdexcept>

#include "cuda/split_dimensions.h"
#include "tpu/executor.h"

namespace pz::cuda {

namespace {

using array::Prim;
using array::Shape;
using kernel::Instr;
using kernel::Op;
using kernel::RefId;
using kernel::Region;
using kernel::ValueId;

// The rewrite of the kernel: every slot of a split class divided by its factor.
class Rewrite {
 public:
  Rewrite(const Dimensions& dims, const std::map<int, int64_t>& factor,
          const std::vector<int>& new_axis)
      : dims_(dims), factor_(factor), new_axis_(new_axis) {}

  int64_t FactorOf(int slot) const {
    auto it = factor_.find(dims_.Find(slot));
    return it == factor_.end() ? 1 : it->second;
  }

  kernel::Function Kernel(const kernel::Function& f) const {
    kernel::Function g = f;
    for (size_t v = 0; v < g.values.size(); ++v) {
      Shape& s = g.values[v].shape;
      for (size_t d = 0; d < s.size(); ++d)
        s[d] /= FactorOf(dims_.Value(static_cast<ValueId>(v), d));
    }
    for (size_t r = 0; r < g.refs.size(); ++r) {
      Shape& s = g.refs[r].shape;
      for (size_t d = 0; d < s.size(); ++d) s[d] /= FactorOf(dims_.Ref(static_cast<RefId>(r), d));
    }
    RewriteRegion(g, g.body);
    return g;
  }

 private:
  void RewriteRegion(const kernel::Function& g, Region& region) const {
    for (Instr& instr : region.body) {
      switch (instr.op) {
        case Op::kProgramId:
          instr.axis = new_axis_.at(static_cast<size_t>(instr.axis));
          break;
        case Op::kLoad:
        case Op::kStore:
          if (instr.ref.indexers.size() == 1) {
            const Shape& shape = g.refs[static_cast<size_t>(instr.ref.ref)].shape;
            for (size_t d = 0; d < shape.size(); ++d) {
              kernel::DimIndex& index = instr.ref.indexers[0][d];
              if (FactorOf(dims_.Ref(instr.ref.ref, d)) > 1) index.size = shape[d];
            }
          }
          break;
        case Op::kConstant: {
          const kernel::ValueType& t = g.values[static_cast<size_t>(instr.results[0])];
          if (instr.constant && instr.constant->shape() != t.shape) {
            array::Array whole = instr.constant->Contiguous();
            array::Array part = array::Array::Empty(t.dtype, t.shape);
            size_t item = array::ItemSize(t.dtype);
            for (int64_t i = 0; i < part.size(); ++i) {
              std::memcpy(part.raw() + static_cast<size_t>(i) * item, whole.raw(), item);
            }
            instr.constant = std::make_shared<const array::Array>(std::move(part));
          }
          break;
        }
        default:
          if (kernel::IsPrim(instr.op)) {
            const kernel::ValueType& t = g.values[static_cast<size_t>(instr.results[0])];
            if (auto* a = std::get_if<array::ShapeAttrs>(&instr.prim.attrs);
                a != nullptr && kernel::PrimOf(instr.op) == Prim::kBroadcastInDim) {
              a->shape = t.shape;
            }
            if (auto* a = std::get_if<array::IotaAttrs>(&instr.prim.attrs)) a->shape = t.shape;
            std::vector<kernel::ValueType> operands, results;
            for (ValueId v : instr.operands) operands.push_back(g.values[static_cast<size_t>(v)]);
            for (ValueId v : instr.results) results.push_back(g.values[static_cast<size_t>(v)]);
            instr.cost = kernel::PrimCostOf(instr.prim, operands, results);
          }
          break;
      }
      for (Region& r : instr.regions) RewriteRegion(g, r);
    }
  }

  const Dimensions& dims_;
  const std::map<int, int64_t>& factor_;
  const std::vector<int>& new_axis_;
};

// An index map over the split grid: the original's results, each split dimension's block index
// times its factor plus its part's grid index. `part_of[d]` is the new grid axis of result d's
// part (-1: not split), `factor_of[d]` its factor.
std::shared_ptr<const kernel::Function> SplitIndexMap(const kernel::Function& map,
                                                      const std::vector<int>& original_axis,
                                                      const std::vector<int>& part_of,
                                                      const std::vector<int64_t>& factor_of) {
  kernel::Function g = map;
  std::vector<ValueId> params;
  for (int axis : original_axis) {
    if (axis >= 0) {
      params.push_back(map.body.params.at(static_cast<size_t>(axis)));
    } else {
      params.push_back(static_cast<ValueId>(g.values.size()));
      g.values.push_back({.shape = {}, .dtype = array::DType::kInt32});
    }
  }
  g.body.params = params;
  auto add = [&](Instr instr, const kernel::ValueType& type) {
    instr.results = {static_cast<ValueId>(g.values.size())};
    g.values.push_back(type);
    std::vector<kernel::ValueType> operands;
    for (ValueId v : instr.operands) operands.push_back(g.values[static_cast<size_t>(v)]);
    if (kernel::IsPrim(instr.op)) instr.cost = kernel::PrimCostOf(instr.prim, operands, {type});
    g.body.body.push_back(std::move(instr));
    return g.body.body.back().results[0];
  };
  SourceSpan span = map.body.body.empty() ? SourceSpan{} : map.body.body.back().span;
  for (size_t d = 0; d < part_of.size(); ++d) {
    if (part_of[d] < 0) continue;
    ValueId block = g.body.yields.at(d);
    kernel::ValueType type = g.values[static_cast<size_t>(block)];
    ValueId factor =
        add(Instr{.op = Op::kConstant,
                  .constant = std::make_shared<const array::Array>(
                      array::Array::Scalar(type.dtype, static_cast<double>(factor_of[d]))),
                  .span = span},
            type);
    ValueId times = add(Instr{.op = kernel::OpOf(Prim::kMul),
                              .operands = {block, factor},
                              .prim = {.prim = Prim::kMul},
                              .span = span},
                        type);
    ValueId part = params.at(static_cast<size_t>(part_of[d]));
    g.body.yields[d] = add(Instr{.op = kernel::OpOf(Prim::kAdd),
                                 .operands = {times, part},
                                 .prim = {.prim = Prim::kAdd},
                                 .span = span},
                           {.shape = {}, .dtype = array::DType::kInt32});
  }
  return std::make_shared<const kernel::Function>(std::move(g));
}

}  // namespace

std::optional<PointSplit> SplitGridPoints(const kernel::KernelProgram& program,
                                          const kernel::GridMapping& mapping,
                                          const GridSplit& split) {
  if (split.chains >= kTargetChains || mapping.outputs.empty()) return std::nullopt;
  const kernel::Function& f = *program.kernel;
  // A scalar-prefetch ref the kernel stores into is a copy of each CUDA block's own: each part of
  // a point would start from the operand again, and miss the stores of the parts before it.
  // Likewise an input block it stores into, which the step table fetches where the emulated
  // TPU fetches it in the whole grid's order (plan.h's fetch columns).
  for (size_t p = 0; p < mapping.prefetch.size() + mapping.inputs.size(); ++p) {
    if (kernel::FirstWriteTo(f.body, static_cast<RefId>(p)) != nullptr) return std::nullopt;
  }
  Dimensions dims(f);
  if (!dims.Walk(f.body)) return std::nullopt;
  size_t num_prefetch = mapping.prefetch.size();
  size_t num_operands = mapping.inputs.size() + mapping.outputs.size();
  // Ref dimensions -> the operand's array dimensions (squeezed ones have no ref dimension).
  std::vector<std::vector<size_t>> array_dim(f.refs.size());
  for (size_t r = 0; r < f.refs.size(); ++r) {
    const kernel::RefType& ref = f.refs[r];
    bool operand = r >= num_prefetch && r < num_prefetch + num_operands;
    if (ref.space != kernel::MemorySpace::kVmem || ref.role == kernel::RefRole::kPrefetch ||
        ref.role == kernel::RefRole::kScoped) {
      dims.ForbidRef(static_cast<RefId>(r));
      continue;
    }
    if (!operand) continue;
    const kernel::BlockMapping& op = mapping.operand(r - num_prefetch);
    std::vector<size_t> arr;
    for (size_t d = 0; d < op.block.size(); ++d) {
      if (op.block[d].kind != kernel::BlockDim::Kind::kSqueezed) arr.push_back(d);
    }
    if (!op.index_map || arr.size() != ref.shape.size()) {
      dims.ForbidRef(static_cast<RefId>(r));
      continue;
    }
    for (size_t d = 0; d < arr.size(); ++d) {
      if (op.block[arr[d]].kind != kernel::BlockDim::Kind::kBlocked)
        dims.Forbid(dims.Ref(static_cast<RefId>(r), d));
    }
    array_dim[r] = std::move(arr);
  }
  std::vector<bool> forbidden = dims.ForbiddenClasses();
  // Each class's size (-1: its members disagree) and whether a value or ref has two members.
  std::map<int, int64_t> size;
  std::set<int> twice;
  auto note_slots = [&](const Shape& shape, auto slot_of) {
    std::set<int> seen;
    for (size_t d = 0; d < shape.size(); ++d) {
      int root = dims.Find(slot_of(d));
      auto [it, fresh] = size.emplace(root, shape[d]);
      if (!fresh && it->second != shape[d]) it->second = -1;
      if (!seen.insert(root).second) twice.insert(root);
    }
  };
  for (size_t v = 0; v < f.values.size(); ++v) {
    note_slots(f.values[v].shape, [&](size_t d) { return dims.Value(static_cast<ValueId>(v), d); });
  }
  for (size_t r = 0; r < f.refs.size(); ++r) {
    note_slots(f.refs[r].shape, [&](size_t d) { return dims.Ref(static_cast<RefId>(r), d); });
  }
  // Parts of a product's rows or columns keep 128 of them (the tiles of its staged form).
  std::map<int, int64_t> min_part;
  for (int slot : dims.product_slots()) min_part[dims.Find(slot)] = kMinProductPart;
  auto min_part_of = [&](int root) { return min_part.count(root) ? min_part[root] : kMinPart; };
  // Candidates: the classes of the first output's dimensions that every output has.
  RefId first_output = static_cast<RefId>(num_prefetch + mapping.inputs.size());
  std::vector<int> candidates;
  for (size_t d = 0; d < dims.RefRank(first_output); ++d) {
    int root = dims.Find(dims.Ref(first_output, d));
    if (forbidden[static_cast<size_t>(root)] || twice.count(root) ||
        size[root] < 2 * min_part_of(root))
      continue;
    bool everywhere = true;
    for (size_t o = 1; o < mapping.outputs.size() && everywhere; ++o) {
      RefId out = static_cast<RefId>(first_output + static_cast<RefId>(o));
      bool has = false;
      for (size_t e = 0; e < dims.RefRank(out); ++e)
        has = has || dims.Find(dims.Ref(out, e)) == root;
      everywhere = has;
    }
    if (everywhere && std::find(candidates.begin(), candidates.end(), root) == candidates.end()) {
      candidates.push_back(root);
    }
  }
  // Halve the largest part until there are chains enough.
  std::map<int, int64_t> factor;
  int64_t parts = 1;
  while (split.chains * parts < kTargetChains) {
    int best = -1;
    int64_t best_part = 0;
    for (int root : candidates) {
      int64_t fac = factor.count(root) ? factor[root] : 1;
      int64_t part = size[root] / fac;
      if (part % 2 != 0 || part / 2 < min_part_of(root) || (part / 2) % 8 != 0) continue;
      if (part > best_part) {
        best = root;
        best_part = part;
      }
    }
    if (best < 0) break;
    factor[best] = (factor.count(best) ? factor[best] : 1) * 2;
    parts *= 2;
  }
  if (parts == 1) return std::nullopt;

  // The new grid: the part axes (in the order of the first output's dimensions) right after the
  // last parallel axis.
  int insert_at = split.parallel.empty()
                      ? 0
                      : *std::max_element(split.parallel.begin(), split.parallel.end()) + 1;
  std::vector<int> part_roots;
  for (int root : candidates) {
    if (factor.count(root)) part_roots.push_back(root);
  }
  PointSplit out;
  out.parts = parts;
  std::vector<int> new_axis(mapping.grid.size());
  std::vector<int64_t> grid;
  std::vector<std::string> semantics;
  std::vector<bool> parallel(mapping.grid.size(), false);
  for (int a : split.parallel) parallel[static_cast<size_t>(a)] = true;
  std::map<int, int> part_axis;  // class -> its grid axis
  for (size_t a = 0; a <= mapping.grid.size(); ++a) {
    if (static_cast<int>(a) == insert_at) {
      for (int root : part_roots) {
        part_axis[root] = static_cast<int>(grid.size());
        grid.push_back(factor[root]);
        semantics.push_back("parallel");
        out.original_axis.push_back(-1);
      }
    }
    if (a == mapping.grid.size()) break;
    new_axis[a] = static_cast<int>(grid.size());
    grid.push_back(mapping.grid[a]);
    semantics.push_back(parallel[a] ? "parallel" : "arbitrary");
    out.original_axis.push_back(static_cast<int>(a));
  }

  // Index maps must return int32 block indices on the split dimensions.
  Rewrite rewrite(dims, factor, new_axis);
  kernel::GridMapping m = mapping;
  m.grid = grid;
  m.dimension_semantics = semantics;
  std::vector<std::string> described;
  for (size_t k = 0; k < num_operands; ++k) {
    RefId r = static_cast<RefId>(num_prefetch + k);
    kernel::BlockMapping& op =
        k < mapping.inputs.size() ? m.inputs[k] : m.outputs[k - mapping.inputs.size()];
    std::vector<int> part_of(op.block.size(), -1);
    std::vector<int64_t> factor_of(op.block.size(), 1);
    for (size_t d = 0; d < array_dim[static_cast<size_t>(r)].size(); ++d) {
      int64_t fac = rewrite.FactorOf(dims.Ref(r, d));
      if (fac == 1) continue;
      size_t a = array_dim[static_cast<size_t>(r)][d];
      part_of[a] = part_axis.at(dims.Find(dims.Ref(r, d)));
      factor_of[a] = fac;
      op.block[a].size /= fac;
      op.ref_shape[d] /= fac;
      const kernel::Function& map = *op.index_map;
      if (map.body.yields.size() != op.block.size() ||
          map.values[static_cast<size_t>(map.body.yields[a])].dtype != array::DType::kInt32) {
        return std::nullopt;
      }
    }
    if (op.index_map)
      op.index_map = SplitIndexMap(*op.index_map, out.original_axis, part_of, factor_of);
  }
  kernel::Function g = rewrite.Kernel(f);
  for (size_t s = 0; s < m.scratch.size(); ++s) {
    m.scratch[s].shape = g.refs.at(num_prefetch + num_operands + s).shape;
  }
  if (std::optional<std::string> problem = kernel::Verify(g, kernel::TracedVerifyDepth())) {
    // An engine bug. The test suites verify types and stop on it; elsewhere the call runs whole
    // rather than as a kernel that does not hold together.
    if (kernel::TracedVerifyDepth() == kernel::VerifyDepth::kTypes) {
      throw std::logic_error("the kernel split into parts does not verify: " + *problem);
    }
    return std::nullopt;
  }
  for (int root : part_roots) {
    const kernel::RefType& ref = f.refs[static_cast<size_t>(first_output)];
    for (size_t d = 0; d < ref.shape.size(); ++d) {
      if (dims.Find(dims.Ref(first_output, d)) == root) {
        described.push_back(fmt::format("{} dimension {} in {} of {}", ref.name, d, factor[root],
                                        size[root] / factor[root]));
        break;
      }
    }
  }
  out.note = fmt::format("each grid point in {} parts on as many CUDA blocks ({})", parts,
                         fmt::join(described, ", "));
  out.program.kernel = std::make_shared<const kernel::Function>(std::move(g));
  out.mapping = std::move(m);
  return out;
}

int64_t OriginalStep(const PointSplit& split, const std::vector<int64_t>& original_grid,
                     int64_t step) {
  std::vector<int64_t> point = tpu::UnravelIndex(step, split.mapping.grid);
  int64_t linear = 0;
  for (size_t a = 0; a < point.size(); ++a) {
    int axis = split.original_axis[a];
    if (axis < 0) continue;
    linear = linear * original_grid[static_cast<size_t>(axis)] + point[a];
  }
  return linear;
}

}  // namespace pz::cuda

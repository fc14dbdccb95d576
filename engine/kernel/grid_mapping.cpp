// Canonicalising the user's call spec into a GridMapping (see grid_mapping.h): block mappings
// with their traced index maps, aliases, dimension semantics.
#include "kernel/grid_mapping.h"

#include <fmt/format.h>

#include <algorithm>

#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "kernel/records.h"
#include "kernel/trace.h"

namespace pz::kernel {

using eval::Value;

int64_t GridMapping::num_steps() const {
  int64_t total = 1;
  for (int64_t g : grid) total *= g;
  return total;
}

namespace {

// A block_shape entry, canonicalised; raises for anything else.
BlockDim CanonicalBlockDim(const SpecContext& ctx, const Value& e) {
  eval::Interpreter& interp = ctx.interp;
  BlockDim dim;
  if (e.is_none() || AsRecord(e, "Squeezed")) {
    dim.kind = BlockDim::Kind::kSqueezed;
  } else if (e.is_int()) {
    dim.size = e.as_int();
  } else if (auto* b = AsRecord(e, "Blocked")) {
    dim.size = eval::ToIndex(interp, b->Get("block_size"));
  } else if (auto* el = AsRecord(e, "Element")) {
    dim.kind = BlockDim::Kind::kElement;
    dim.size = eval::ToIndex(interp, el->Get("block_size"));
    const Value& padding = el->Get("padding");
    if (!padding.is_none()) {
      std::vector<Value> p = interp.ToVector(padding);
      if (!p.empty()) dim.pad_lo = eval::ToIndex(interp, p[0]);
    }
  } else {
    ctx.TypeError(
        fmt::format("block_shape entries must be ints, None, pl.Squeezed() "
                    "or pl.Element(n), got {}",
                    interp.Repr(e)));
  }
  if (dim.size < 0) ctx.ValueError("block sizes must be non-negative");
  return dim;
}

// Traces `fn` as the index map of `op` (`origin` in messages): grid indices, then the
// scalar-prefetch refs, to one int32 scalar per block dimension.
std::shared_ptr<const Function> TraceIndexMap(const SpecContext& ctx, const GridMapping& mapping,
                                              const Value& fn, const BlockMapping& op,
                                              const std::string& origin) {
  eval::Interpreter& interp = ctx.interp;
  TraceOptions options{.what = "index map",
                       .call_name = ctx.call_name,
                       .grid = mapping.grid,
                       .tpu_rules = ctx.tpu_rules};
  auto trace = std::make_shared<Trace>(interp, FunctionName(fn), options);
  {
    TraceScope scope(*trace);
    std::vector<Value> positional;
    for (size_t d = 0; d < mapping.grid.size(); ++d) {
      ValueId id = trace->NewValue({.shape = {}, .dtype = array::DType::kInt32});
      trace->function().body.params.push_back(id);
      positional.push_back(trace->MakeTracer(id));
    }
    std::vector<Value> refs;
    for (const RefType& type : mapping.prefetch)
      refs.push_back(trace->MakeRef(trace->AddRef(type)));
    size_t next = 0;
    for (const TreeDef& def : mapping.prefetch_trees) {
      positional.push_back(Unflatten(interp, def, refs, next));
    }
    Value result = interp.Call(fn, positional);
    std::vector<Value> items;
    if (result.is(eval::ObjectKind::kTuple) || result.is(eval::ObjectKind::kList)) {
      items = interp.ToVector(result);
    } else {
      items.push_back(result);
    }
    // What the index map returns is its own mistake: blamed on the index map.
    SpecContext at = ctx;
    at.span = op.span;
    if (items.size() != op.block.size()) {
      std::vector<int64_t> dims;
      for (const BlockDim& b : op.block) dims.push_back(b.size);
      at.ValueError(fmt::format(
          "Index map function {} for {} must return {} values to match "
          "block_shape={}, got {}",
          FunctionName(fn), origin, op.block.size(), array::ShapeToString(dims), items.size()));
    }
    for (const Value& item : items) {
      ValueId id;
      if (item.is_int()) {
        id = trace->Constant(array::Array::Scalar(array::DType::kInt32, double(item.as_int())));
      } else {
        std::optional<ValueId> lifted = trace->TryLift(item);
        if (!lifted || !trace->type(*lifted).shape.empty() ||
            !array::IsInteger(trace->type(*lifted).dtype)) {
          at.ValueError(
              fmt::format("Index map function {} for {} must return integer "
                          "scalars, got {}",
                          FunctionName(fn), origin, interp.Repr(item)));
        }
        id = *lifted;
        if (trace->type(id).dtype != array::DType::kInt32) {
          id = trace->Convert(id, array::DType::kInt32);
        }
      }
      trace->function().body.yields.push_back(id);
    }
  }
  auto function = std::make_shared<Function>(std::move(trace->function()));
  if (auto problem = Verify(*function, TracedVerifyDepth())) {
    ctx.Fail(interp.types().runtime_error, "internal error: invalid index map IR: " + *problem);
  }
  return function;
}

}  // namespace

BlockMapping MapBlockSpec(const SpecContext& ctx, const GridMapping& mapping, const BlockSpec* spec,
                          const std::string& name, const array::Shape& shape, array::DType dtype,
                          bool is_output, const std::string& origin) {
  BlockMapping op{
      .name = name, .is_output = is_output, .shape = shape, .dtype = dtype, .span = ctx.span};
  if (spec != nullptr) {
    op.space = spec->memory_space;
    op.spec_span = spec->span;
  }
  if (spec == nullptr || !spec->block_shape) {
    for (int64_t d : shape) op.block.push_back({.kind = BlockDim::Kind::kBlocked, .size = d});
  } else {
    if (spec->block_shape->size() != shape.size()) {
      // Blamed on the BlockSpec that says it, not on the pallas_call.
      SpecContext at = ctx;
      if (spec->span.valid()) at.span = spec->span;
      at.ValueError(
          fmt::format("Block shape for {} (= {}) must have the same number of dimensions as "
                      "the array shape {}.",
                      origin, spec->block_shape_repr, array::ShapeToString(shape)));
    }
    for (const Value& e : *spec->block_shape) op.block.push_back(CanonicalBlockDim(ctx, e));
  }
  for (const BlockDim& b : op.block) {
    if (b.kind != BlockDim::Kind::kSqueezed) op.ref_shape.push_back(b.size);
  }
  if (op.space == MemorySpace::kAny) {
    // Not pipelined: the kernel gets the whole array in HBM.
    op.ref_shape = shape;
    op.block.clear();
    for (int64_t d : shape) op.block.push_back({.kind = BlockDim::Kind::kBlocked, .size = d});
    return op;
  }
  // A block shape without an index map uses block (0, ..., 0) at every step.
  if (spec != nullptr && !spec->index_map.is_none()) {
    op.span = FunctionSpan(spec->index_map, ctx.span);
    op.map_params = ParamNames(spec->index_map);
    op.index_map = TraceIndexMap(ctx, mapping, spec->index_map, op, origin);
  }
  return op;
}

void AddAliases(const SpecContext& ctx, GridMapping& mapping, const Value& aliases) {
  eval::Interpreter& interp = ctx.interp;
  auto* dict = aliases.as<eval::DictObject>();
  if (dict == nullptr) return;
  for (auto& [k, v] : dict->Items()) {
    int64_t in = eval::ToIndex(interp, k), out = eval::ToIndex(interp, v);
    auto n_prefetch = static_cast<int64_t>(mapping.num_index_operands());
    if (in < n_prefetch) ctx.ValueError("Aliasing of scalar prefetch arguments is not supported.");
    int64_t input = in - n_prefetch;
    if (input >= static_cast<int64_t>(mapping.inputs.size()) || out < 0 ||
        out >= static_cast<int64_t>(mapping.outputs.size()) || input < 0) {
      ctx.ValueError(
          fmt::format("input_output_aliases contains the mapping '{}:{}', "
                      "which is out of range",
                      in, out));
    }
    const BlockMapping& i_op = mapping.inputs[static_cast<size_t>(input)];
    const BlockMapping& o_op = mapping.outputs[static_cast<size_t>(out)];
    if (i_op.shape != o_op.shape || i_op.dtype != o_op.dtype) {
      ctx.ValueError(
          fmt::format("input_output_aliases contains the mapping '{}:{}' referring to "
                      "input {} with abstract value {} and output {} with a different "
                      "abstract value {}.",
                      in, out, i_op.name, TypeToString({.shape = i_op.shape, .dtype = i_op.dtype}),
                      o_op.name, TypeToString({.shape = o_op.shape, .dtype = o_op.dtype})));
    }
    mapping.aliases[static_cast<int>(input)] = static_cast<int>(out);
  }
}

void SetDimensionSemantics(const SpecContext& ctx, GridMapping& mapping,
                           const CompilerParams& params) {
  mapping.vmem_limit_bytes = params.vmem_limit_bytes.value_or(0);
  if (!params.dimension_semantics) return;
  const std::vector<std::string>& semantics = *params.dimension_semantics;
  // Checked for its length on a TPU; its leading "parallel" axes are split across cores with
  // `--cores 2`.
  if (ctx.tpu_rules && semantics.size() != mapping.grid.size()) {
    ctx.ValueError(
        fmt::format("Length of grid does not match length of dimension semantics: grid {} "
                    "has {} axes, dimension_semantics has {} entries",
                    array::ShapeToString(mapping.grid), mapping.grid.size(), semantics.size()));
  }
  mapping.dimension_semantics = semantics;
  mapping.semantics_span = params.span;
}

DirectMap AnalyzeIndexMap(const Function& f) {
  DirectMap m;
  std::map<ValueId, int64_t> constants;
  for (const Instr& instr : f.body.body) {
    if (instr.op != Op::kConstant || instr.constant->rank() != 0) return m;
    constants[instr.results[0]] = instr.constant->GetInt(0);
  }
  for (ValueId id : f.body.yields) {
    auto param = std::find(f.body.params.begin(), f.body.params.end(), id);
    if (param != f.body.params.end()) {
      m.entries.emplace_back(static_cast<int>(param - f.body.params.begin()), 0);
    } else if (auto c = constants.find(id); c != constants.end()) {
      m.entries.emplace_back(-1, c->second);
    } else {
      return m;
    }
  }
  m.ok = true;
  return m;
}

// The grid the BlockSpecs walk when every index map passes grid indices straight through (or
// returns constants) and all of them agree on how many blocks each grid axis steps through;
// nullopt when the specs do not say (an index map computes, an axis indexes element offsets)
// or disagree among themselves. A grid that differs from it is the mistake, not the maps.
std::optional<std::vector<int64_t>> GridTheSpecsWalk(const GridMapping& mapping) {
  std::vector<int64_t> need(mapping.grid.size(), -1);
  bool any = false;
  for (size_t k = 0; k < mapping.num_inputs() + mapping.num_outputs(); ++k) {
    const BlockMapping& op = mapping.operand(k);
    if (!op.index_map || op.space == MemorySpace::kAny) continue;
    DirectMap direct = AnalyzeIndexMap(*op.index_map);
    if (!direct.ok || direct.entries.size() != op.block.size()) return std::nullopt;
    for (size_t d = 0; d < direct.entries.size(); ++d) {
      int axis = direct.entries[d].first;
      if (axis < 0) continue;
      const BlockDim& b = op.block[d];
      if (b.kind == BlockDim::Kind::kElement || axis >= static_cast<int>(need.size())) {
        return std::nullopt;
      }
      int64_t size = b.kind == BlockDim::Kind::kSqueezed ? 1 : std::max<int64_t>(b.size, 1);
      int64_t blocks = (op.shape[d] + size - 1) / size;
      int64_t& n = need[static_cast<size_t>(axis)];
      if (n >= 0 && n != blocks) return std::nullopt;
      n = blocks;
      any = true;
    }
  }
  if (!any) return std::nullopt;
  for (size_t a = 0; a < need.size(); ++a) {
    if (need[a] < 0) need[a] = mapping.grid[a];  // an axis no spec follows: any size will do
  }
  return need;
}

std::string GridMismatchMessage(const GridMapping& mapping, const std::vector<int64_t>& walked,
                                const std::vector<int64_t>& index, const BlockMapping& op) {
  return fmt::format(
      "the grid {} does not match the BlockSpecs, which step through {} blocks: out-of-bounds "
      "block index {} for {} {}",
      array::ShapeToString(mapping.grid), array::ShapeToString(walked), array::ShapeToString(index),
      op.is_output ? "output" : "input", op.name);
}

int OutsideDimension(const BlockMapping& op, const BlockWindow& window, bool blocked_past_end) {
  for (size_t d = 0; d < window.start.size(); ++d) {
    int64_t n = op.shape[d];
    bool past = window.start[d] >= n && n > 0 &&
                !(blocked_past_end && op.block[d].kind == BlockDim::Kind::kBlocked);
    if (window.start[d] + window.size[d] <= 0 || past) return static_cast<int>(d);
  }
  return -1;
}

BlockIndexError OutOfBoundsBlock(const GridMapping& mapping, const BlockMapping& op,
                                 const std::vector<int64_t>& point,
                                 const std::vector<int64_t>& index, const BlockWindow& window,
                                 int dimension) {
  const char* role = op.is_output ? "output" : "input";
  // Every BlockSpec agrees on a grid, and it is not this one: the grid is the mistake.
  std::optional<std::vector<int64_t>> walked = GridTheSpecsWalk(mapping);
  if (walked && *walked != mapping.grid) {
    std::vector<int64_t> sorted_grid = mapping.grid, sorted_walk = *walked;
    std::sort(sorted_grid.begin(), sorted_grid.end());
    std::sort(sorted_walk.begin(), sorted_walk.end());
    return {.message = GridMismatchMessage(mapping, *walked, index, op),
            .notes = {fmt::format("grid step {} gives {} block index {}, past the end of {} {}",
                                  array::ShapeToString(point), op.name, array::ShapeToString(index),
                                  role, array::ShapeToString(op.shape)),
                      fmt::format("every BlockSpec's index map is consistent with the grid {}: "
                                  "that is how many blocks each grid axis has to step through",
                                  array::ShapeToString(*walked)),
                      sorted_grid == sorted_walk
                          ? "the grid's axes look swapped: list them in the order the index "
                            "maps take them (`lambda i, j: ...` gets grid axis 0 as i)"
                          : "compute each grid size from the array and block sizes, e.g. "
                            "`pl.cdiv(M, bm)`"},
            .span = mapping.span};
  }
  std::string slices = "[";
  for (size_t d = 0; d < window.start.size(); ++d) {
    slices +=
        fmt::format("{}{}:{}", d ? ", " : "", window.start[d], window.start[d] + window.size[d]);
  }
  slices += "]";
  size_t d = static_cast<size_t>(dimension);
  int64_t n = op.shape[d], size = std::max<int64_t>(window.size[d], 1);
  return {.message = fmt::format(
              "Out-of-bounds block index {} for {} {} in grid step {}: {} {} but the {} has "
              "shape {}",
              array::ShapeToString(index), role, op.name, array::ShapeToString(point),
              op.is_output ? "writing" : "reading", slices, role, array::ShapeToString(op.shape)),
          .notes = {fmt::format("dimension {} has {} elements, so block indices on it must stay "
                                "below {} (block size {})",
                                d, n, (n + size - 1) / size, window.size[d]),
                    "an index map returns block indices, not element offsets; check it against "
                    "the grid (JAX's interpret=True silently clamps this, a TPU reads other "
                    "memory)"},
          .span = op.span};
}

}  // namespace pz::kernel

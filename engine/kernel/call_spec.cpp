// Reading the user's call spec from the Pallas API objects (see call_spec.h).
#include "kernel/call_spec.h"

#include <fmt/format.h>

#include <algorithm>

#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "eval/scope.h"
#include "kernel/records.h"

namespace pz::kernel {

using eval::Value;

void SpecContext::Fail(eval::TypeObject* type, std::string message,
                       std::vector<std::string> notes) const {
  auto ex = interp.NewException(type, {eval::MakeStr(std::move(message))});
  ex->span = span;
  ex->notes = std::move(notes);
  interp.Throw(ex);
}

void SpecContext::ValueError(std::string message, std::vector<std::string> notes) const {
  Fail(interp.types().value_error, std::move(message), std::move(notes));
}

void SpecContext::TypeError(std::string message) const {
  Fail(interp.types().type_error, std::move(message));
}

GridSpec ReadGridSpec(const SpecContext& ctx, const GridSpecArgs& args) {
  eval::Interpreter& interp = ctx.interp;
  GridSpec spec;
  Value grid = args.grid;
  if (args.in_specs_given) spec.in_specs = args.in_specs;
  if (args.out_specs_given) spec.out_specs = args.out_specs;
  spec.scratch_shapes = args.scratch_shapes;
  if (!args.grid_spec.is_none()) {
    auto* record = args.grid_spec.as<RecordObject>();
    if (record == nullptr ||
        (record->type_name() != "GridSpec" && record->type_name() != "PrefetchScalarGridSpec")) {
      ctx.TypeError(
          "grid_spec must be a pl.GridSpec or a "
          "pltpu.PrefetchScalarGridSpec");
    }
    if (args.grid_given) ctx.ValueError("If `grid_spec` is specified, then `grid` must be `()`.");
    if (args.in_specs_given) {
      ctx.ValueError("If `grid_spec` is specified, then `in_specs` must be `no_block_spec`.");
    }
    if (args.out_specs_given) {
      ctx.ValueError("If `grid_spec` is specified, then `out_specs` must be `no_block_spec`.");
    }
    if (args.scratch_given) {
      ctx.ValueError("If `grid_spec` is specified, then `scratch_shapes` must be `()`.");
    }
    grid = record->Get("grid");
    const Value& in_specs = record->Get("in_specs");
    const Value& out_specs = record->Get("out_specs");
    spec.in_specs = in_specs.is_none() ? std::nullopt : std::optional<Value>(in_specs);
    spec.out_specs = out_specs.is_none() ? std::nullopt : std::optional<Value>(out_specs);
    spec.scratch_shapes = record->Get("scratch_shapes");
    if (auto* dict = spec.scratch_shapes.as<eval::DictObject>()) {
      // Grid specs keep scratch as a tuple: a dict contributes its values positionally.
      std::vector<Value> values;
      for (auto& [k, v] : dict->Items()) values.push_back(v);
      spec.scratch_shapes = eval::MakeTuple(std::move(values));
    }
    if (record->type_name() == "PrefetchScalarGridSpec") {
      spec.num_scalar_prefetch = eval::ToIndex(interp, record->Get("num_scalar_prefetch"));
    }
  }
  spec.grid = ReadGrid(ctx, grid);
  return spec;
}

std::vector<int64_t> ReadGrid(const SpecContext& ctx, const Value& grid) {
  eval::Interpreter& interp = ctx.interp;
  std::vector<int64_t> out;
  auto entry = [&](const Value& v) {
    if (v.is_int()) return v.as_int();
    if (auto* a = v.as<eval::ArrayObject>();
        a != nullptr && a->value.rank() == 0 && array::IsInteger(a->value.dtype())) {
      return a->value.GetInt(0);
    }
    ctx.ValueError(
        fmt::format("Grid must be a tuple of integers or jax.Array, got {}", interp.Repr(grid)));
  };
  if (grid.is_none()) return out;
  if (grid.is(eval::ObjectKind::kTuple) || grid.is(eval::ObjectKind::kList)) {
    for (const Value& v : interp.ToVector(grid)) out.push_back(entry(v));
  } else {
    out.push_back(entry(grid));
  }
  for (int64_t g : out) {
    if (g < 0) {
      ctx.ValueError(
          fmt::format("grid sizes must be non-negative, got {}", array::ShapeToString(out)));
    }
  }
  return out;
}

MemorySpace ReadMemorySpace(const SpecContext& ctx, const Value& space) {
  if (space.is_none()) return MemorySpace::kVmem;
  std::optional<Value> name = ctx.interp.TryGetAttr(space, "name");
  std::string n = name && name->as<eval::StrObject>() ? name->as<eval::StrObject>()->value : "";
  if (n == "VMEM") return MemorySpace::kVmem;
  if (n == "SMEM") return MemorySpace::kSmem;
  if (n == "ANY" || n == "HBM") return MemorySpace::kAny;
  if (n == "SEMAPHORE") return MemorySpace::kSemaphore;
  ctx.ValueError(fmt::format("unsupported memory space {}", ctx.interp.Repr(space)));
}

BlockSpec ReadBlockSpec(const SpecContext& ctx, const Value& value) {
  const RecordObject* record = AsRecord(value, "BlockSpec");
  BlockSpec spec;
  spec.span = record->span;
  spec.index_map = record->Get("index_map");
  spec.memory_space = ReadMemorySpace(ctx, record->Get("memory_space"));
  const Value& block_shape = record->Get("block_shape");
  if (!block_shape.is_none()) {
    spec.block_shape_repr = ctx.interp.Repr(block_shape);
    spec.block_shape = ctx.interp.ToVector(block_shape);
  }
  return spec;
}

CompilerParams ReadCompilerParams(const SpecContext& ctx, const Value& params) {
  CompilerParams out;
  auto* record = params.as<RecordObject>();
  if (record == nullptr) return out;
  const Value& limit = record->Get("vmem_limit_bytes");
  if (limit.is_int()) out.vmem_limit_bytes = limit.as_int();
  const Value& semantics = record->Get("dimension_semantics");
  if (semantics.is_none()) return out;
  out.dimension_semantics.emplace();
  for (const Value& entry : ctx.interp.ToVector(semantics)) {
    out.dimension_semantics->push_back(ctx.interp.Str(entry));
  }
  out.span = record->span;
  return out;
}

std::vector<std::string> ParamNames(const Value& fn) {
  if (auto* f = fn.as<eval::FunctionObject>()) {
    std::vector<std::string> names;
    if (f->code->params != nullptr) {
      for (const lang::Param& p : f->code->params->params) names.push_back(p.name);
    }
    return names;
  }
  if (auto* partial = fn.as<eval::PartialObject>()) {
    std::vector<std::string> names = ParamNames(partial->func);
    size_t skip = std::min(partial->args.size(), names.size());
    names.erase(names.begin(), names.begin() + static_cast<long>(skip));
    for (const auto& kw : partial->keywords) {
      names.erase(std::remove(names.begin(), names.end(), kw.first), names.end());
    }
    return names;
  }
  return {};
}

std::string FunctionName(const Value& fn) {
  if (auto* f = fn.as<eval::FunctionObject>()) return f->code->name;
  if (auto* partial = fn.as<eval::PartialObject>()) return FunctionName(partial->func);
  return "kernel";
}

namespace {

// The first `return VALUE` in `block`, looking into compound statements but not into nested
// functions or classes.
const lang::Stmt* FirstValueReturn(const lang::Block& block) {
  for (const lang::StmtPtr& stmt : block) {
    const lang::Stmt* found = nullptr;
    std::visit(
        [&](const auto& node) {
          using T = std::decay_t<decltype(node)>;
          if constexpr (std::is_same_v<T, lang::Return>) {
            if (node.value != nullptr) found = stmt.get();
          } else if constexpr (std::is_same_v<T, lang::If> || std::is_same_v<T, lang::For> ||
                               std::is_same_v<T, lang::While>) {
            found = FirstValueReturn(node.body);
            if (found == nullptr) found = FirstValueReturn(node.orelse);
          } else if constexpr (std::is_same_v<T, lang::With>) {
            found = FirstValueReturn(node.body);
          } else if constexpr (std::is_same_v<T, lang::Try>) {
            found = FirstValueReturn(node.body);
            for (const lang::ExceptHandler& h : node.handlers) {
              if (found == nullptr) found = FirstValueReturn(h.body);
            }
            if (found == nullptr) found = FirstValueReturn(node.orelse);
            if (found == nullptr) found = FirstValueReturn(node.finalbody);
          }
        },
        stmt->node);
    if (found != nullptr) return found;
  }
  return nullptr;
}

}  // namespace

SourceSpan ReturnSpan(const Value& fn, SourceSpan fallback) {
  if (auto* partial = fn.as<eval::PartialObject>()) return ReturnSpan(partial->func, fallback);
  auto* f = fn.as<eval::FunctionObject>();
  if (f == nullptr) return fallback;
  if (f->code->lambda_body != nullptr) return f->code->lambda_body->span;
  if (f->code->body == nullptr) return fallback;
  const lang::Stmt* ret = FirstValueReturn(*f->code->body);
  return ret != nullptr ? ret->span : fallback;
}

SourceSpan FunctionSpan(const Value& fn, SourceSpan fallback) {
  if (auto* f = fn.as<eval::FunctionObject>()) return f->code->span;
  if (auto* partial = fn.as<eval::PartialObject>()) return FunctionSpan(partial->func, fallback);
  return fallback;
}

}  // namespace pz::kernel

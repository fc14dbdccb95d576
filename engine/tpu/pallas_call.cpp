#include "tpu/pallas_call.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "eval/scope.h"
#include "kernel/control_flow.h"
#include "kernel/dma_api.h"
#include "kernel/modules.h"
#include "kernel/pytree.h"
#include "kernel/records.h"
#include "kernel/trace.h"
#include "support/check.h"
#include "tpu/call_report.h"
#include "tpu/lint.h"
#include "tpu/pipeline.h"

namespace pz::tpu {

using eval::CallArgs;
using eval::Interpreter;
using eval::Value;
using kernel::AsRecord;
using kernel::MemorySpace;
using kernel::RecordObject;
using kernel::TreeDef;

EmulatorSession* SessionOf(Interpreter& interp) {
  return static_cast<EmulatorSession*>(interp.extension_state("tpu.session").get());
}

namespace {

// The parameter names of a kernel function, for messages ("x_ref"); empty when unknown.
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

SourceSpan FunctionSpan(const Value& fn, SourceSpan fallback) {
  if (auto* f = fn.as<eval::FunctionObject>()) return f->code->span;
  if (auto* partial = fn.as<eval::PartialObject>()) return FunctionSpan(partial->func, fallback);
  return fallback;
}

class PallasCallObject final : public eval::Object {
 public:
  PallasCallObject() : Object(eval::ObjectKind::kExtension) {}
  std::string_view type_name() const override { return "pallas_call"; }
  std::string Repr(Interpreter& interp) const override {
    return fmt::format("<pallas_call {}>", name);
  }
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override;
  void ClearReferences() override {
    kernel_fn = out_shape = grid_spec = grid = in_specs = out_specs = scratch_shapes = aliases =
        compiler_params = Value();
  }

  Value kernel_fn, out_shape, grid_spec, grid, in_specs, out_specs, scratch_shapes, aliases,
      compiler_params;
  bool in_specs_given = false, out_specs_given = false, grid_given = false, scratch_given = false;
  bool debug = false;
  std::string name;
  SourceSpan span;
  EmulatorSession* session = nullptr;
};

// Everything a call needs that comes from the arguments and specs.
struct Builder {
  Interpreter& interp;
  PallasCallObject& call;
  const EmulatorOptions& options;
  CallPlan plan;
  std::vector<std::string> param_names;
  size_t next_param = 0;

  [[noreturn]] void Fail(eval::TypeObject* type, std::string message,
                         std::vector<std::string> notes = {}) {
    auto ex = interp.NewException(type, {eval::MakeStr(std::move(message))});
    ex->span = call.span;
    ex->notes = std::move(notes);
    interp.Throw(ex);
  }
  eval::TypeObject* ValueError() { return interp.types().value_error; }
  eval::TypeObject* TypeError() { return interp.types().type_error; }

  std::string NextName(const std::string& fallback) {
    if (next_param < param_names.size()) return param_names[next_param++];
    ++next_param;
    return fallback;
  }

  std::vector<int64_t> Grid(const Value& grid) {
    std::vector<int64_t> out;
    auto entry = [&](const Value& v) {
      if (v.is_int()) return v.as_int();
      if (auto* a = v.as<eval::ArrayObject>();
          a != nullptr && a->value.rank() == 0 && array::IsInteger(a->value.dtype())) {
        return a->value.GetInt(0);
      }
      Fail(ValueError(),
           fmt::format("Grid must be a tuple of integers or jax.Array, got {}", interp.Repr(grid)));
    };
    if (grid.is_none()) return out;
    if (grid.is(eval::ObjectKind::kTuple) || grid.is(eval::ObjectKind::kList)) {
      for (const Value& v : interp.ToVector(grid)) out.push_back(entry(v));
    } else {
      out.push_back(entry(grid));
    }
    for (int64_t g : out) {
      if (g < 0)
        Fail(ValueError(),
             fmt::format("grid sizes must be non-negative, got {}", TupleString(out)));
    }
    return out;
  }

  MemorySpace SpaceOf(const Value& space) {
    if (space.is_none()) return MemorySpace::kVmem;
    std::optional<Value> name = interp.TryGetAttr(space, "name");
    std::string n = name && name->as<eval::StrObject>() ? name->as<eval::StrObject>()->value : "";
    if (n == "VMEM") return MemorySpace::kVmem;
    if (n == "SMEM") return MemorySpace::kSmem;
    if (n == "ANY" || n == "HBM") return MemorySpace::kAny;
    if (n == "SEMAPHORE") return MemorySpace::kSemaphore;
    Fail(ValueError(), fmt::format("unsupported memory space {}", interp.Repr(space)));
  }

  // An operand from its array type and BlockSpec (nullptr: no spec, the whole array in VMEM).
  Operand MakeOperand(const std::string& name, const array::Shape& shape, array::DType dtype,
                      RecordObject* spec, bool is_output, const std::string& origin) {
    Operand op{
        .name = name, .is_output = is_output, .shape = shape, .dtype = dtype, .span = call.span};
    Value block_shape, index_map;
    if (spec != nullptr) {
      block_shape = spec->Get("block_shape");
      index_map = spec->Get("index_map");
      op.space = SpaceOf(spec->Get("memory_space"));
    }
    if (block_shape.is_none()) {
      for (int64_t d : shape) op.block.push_back({.kind = BlockDim::Kind::kBlocked, .size = d});
    } else {
      std::vector<Value> entries = interp.ToVector(block_shape);
      if (entries.size() != shape.size()) {
        Fail(ValueError(),
             fmt::format("Block shape for {} (= {}) must have the same number of dimensions as "
                         "the array shape {}.",
                         origin, interp.Repr(block_shape), array::ShapeToString(shape)));
      }
      for (const Value& e : entries) {
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
          Fail(TypeError(), fmt::format("block_shape entries must be ints, None, pl.Squeezed() "
                                        "or pl.Element(n), got {}",
                                        interp.Repr(e)));
        }
        if (dim.size < 0) Fail(ValueError(), "block sizes must be non-negative");
        op.block.push_back(dim);
      }
    }
    for (const BlockDim& b : op.block) {
      if (b.kind != BlockDim::Kind::kSqueezed) op.ref_shape.push_back(b.size);
    }
    if (op.space == MemorySpace::kAny) {
      op.ref_shape = shape;
      op.block.clear();
      for (int64_t d : shape) op.block.push_back({.kind = BlockDim::Kind::kBlocked, .size = d});
      return op;
    }
    if (!index_map.is_none()) {
      op.span = FunctionSpan(index_map, call.span);
      op.map_params = ParamNames(index_map);
      op.index_map = TraceIndexMap(index_map, op, origin);
    } else if (plan.grid.empty() == false && block_shape.is_none() == false) {
      // A block shape without an index map uses block (0, ..., 0) at every step.
    }
    return op;
  }

  std::vector<kernel::RefType> prefetch_types;
  std::vector<TreeDef> prefetch_defs;

  std::shared_ptr<const kernel::Function> TraceIndexMap(const Value& fn, const Operand& op,
                                                        const std::string& origin) {
    kernel::TraceOptions options{.what = "index map",
                                 .call_name = call.name,
                                 .grid = plan.grid,
                                 .tpu_rules = this->options.semantics == Semantics::kTpu};
    auto trace = std::make_shared<kernel::Trace>(interp, FunctionName(fn), options);
    {
      kernel::TraceScope scope(*trace);
      std::vector<Value> positional;
      for (size_t d = 0; d < plan.grid.size(); ++d) {
        kernel::ValueId id = trace->NewValue({.shape = {}, .dtype = array::DType::kInt32});
        trace->function().body.params.push_back(id);
        positional.push_back(trace->MakeTracer(id));
      }
      std::vector<Value> refs;
      for (const kernel::RefType& type : prefetch_types)
        refs.push_back(trace->MakeRef(trace->AddRef(type)));
      size_t next = 0;
      for (const TreeDef& def : prefetch_defs) {
        positional.push_back(kernel::Unflatten(interp, def, refs, next));
      }
      Value result = interp.Call(fn, positional);
      std::vector<Value> items;
      if (result.is(eval::ObjectKind::kTuple) || result.is(eval::ObjectKind::kList)) {
        items = interp.ToVector(result);
      } else {
        items.push_back(result);
      }
      if (items.size() != op.block.size()) {
        Fail(ValueError(),
             fmt::format("Index map function {} for {} must return {} values to match "
                         "block_shape={}, got {}",
                         FunctionName(fn), origin, op.block.size(), TupleString([&] {
                           std::vector<int64_t> dims;
                           for (const BlockDim& b : op.block) dims.push_back(b.size);
                           return dims;
                         }()),
                         items.size()));
      }
      for (const Value& item : items) {
        kernel::ValueId id;
        if (item.is_int()) {
          id = trace->Constant(array::Array::Scalar(array::DType::kInt32, double(item.as_int())));
        } else {
          std::optional<kernel::ValueId> lifted = trace->TryLift(item);
          if (!lifted || !trace->type(*lifted).shape.empty() ||
              !array::IsInteger(trace->type(*lifted).dtype)) {
            Fail(ValueError(), fmt::format("Index map function {} for {} must return integer "
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
    auto function = std::make_shared<kernel::Function>(std::move(trace->function()));
    if (auto problem = kernel::Verify(*function)) {
      Fail(interp.types().runtime_error, "internal error: invalid index map IR: " + *problem);
    }
    return function;
  }
};

// Flattens the spec pytree: BlockSpec records (and the no-spec marker) are leaves.
TreeDef FlattenSpecs(Interpreter& interp, const Value& specs, std::vector<Value>& leaves) {
  return kernel::Flatten(interp, specs, leaves);
}

Value ToTupleIfList(const Value& v) {
  if (auto* list = v.as<eval::ListObject>()) return eval::MakeTuple(list->items);
  return v;
}

std::optional<Value> PallasCallObject::Call(Interpreter& interp, CallArgs& args) {
  if (!args.keywords.empty()) {
    interp.Raise(interp.types().type_error,
                 "a pallas_call takes its operands positionally (no keyword arguments)");
  }
  const EmulatorOptions& options = session->options;
  Builder b{.interp = interp, .call = *this, .options = options};

  // ---- Grid spec ---------------------------------------------------------------------------
  Value grid_v = grid, in_specs_v = in_specs, out_specs_v = out_specs, scratch_v = scratch_shapes;
  bool has_in_specs = in_specs_given, has_out_specs = out_specs_given;
  int64_t num_prefetch = 0;
  if (!grid_spec.is_none()) {
    auto* spec = grid_spec.as<RecordObject>();
    if (spec == nullptr ||
        (spec->type_name() != "GridSpec" && spec->type_name() != "PrefetchScalarGridSpec")) {
      b.Fail(interp.types().type_error,
             "grid_spec must be a pl.GridSpec or a "
             "pltpu.PrefetchScalarGridSpec");
    }
    if (grid_given)
      b.Fail(b.ValueError(), "If `grid_spec` is specified, then `grid` must be `()`.");
    if (in_specs_given) {
      b.Fail(b.ValueError(),
             "If `grid_spec` is specified, then `in_specs` must be `no_block_spec`.");
    }
    if (out_specs_given) {
      b.Fail(b.ValueError(),
             "If `grid_spec` is specified, then `out_specs` must be `no_block_spec`.");
    }
    if (scratch_given) {
      b.Fail(b.ValueError(), "If `grid_spec` is specified, then `scratch_shapes` must be `()`.");
    }
    grid_v = spec->Get("grid");
    in_specs_v = spec->Get("in_specs");
    out_specs_v = spec->Get("out_specs");
    scratch_v = spec->Get("scratch_shapes");
    if (scratch_v.as<eval::DictObject>() != nullptr) {
      // Grid specs keep scratch as a tuple: a dict contributes its values positionally.
      std::vector<Value> values;
      for (auto& [k, v] : scratch_v.as<eval::DictObject>()->Items()) values.push_back(v);
      scratch_v = eval::MakeTuple(std::move(values));
    }
    has_in_specs = !in_specs_v.is_none();
    has_out_specs = !out_specs_v.is_none();
    if (spec->type_name() == "PrefetchScalarGridSpec") {
      num_prefetch = eval::ToIndex(interp, spec->Get("num_scalar_prefetch"));
    }
  }
  b.plan.name = name;
  b.plan.span = span;
  b.plan.grid = b.Grid(grid_v);
  b.param_names = ParamNames(kernel_fn);

  // ---- Operands ----------------------------------------------------------------------------
  if (static_cast<int64_t>(args.positional.size()) < num_prefetch) {
    b.Fail(b.ValueError(), fmt::format("the pallas_call expects {} scalar-prefetch operands "
                                       "first, got {} arguments",
                                       num_prefetch, args.positional.size()));
  }
  std::vector<array::Array> prefetch_arrays;
  for (int64_t i = 0; i < num_prefetch; ++i) {
    std::vector<Value> leaves;
    b.prefetch_defs.push_back(kernel::Flatten(interp, args.positional[i], leaves));
    std::string pname = b.NextName(fmt::format("prefetch {}", i));
    for (size_t k = 0; k < leaves.size(); ++k) {
      array::Array a = eval::ToArray(interp, leaves[k]);
      a.set_weak_type(false);
      prefetch_arrays.push_back(a);
      b.prefetch_types.push_back(
          {.name = leaves.size() == 1 ? pname : fmt::format("{}[{}]", pname, k),
           .shape = a.shape(),
           .dtype = a.dtype(),
           .space = MemorySpace::kSmem,
           .role = kernel::RefRole::kPrefetch,
           .operand = static_cast<int>(b.prefetch_types.size())});
    }
  }
  b.plan.prefetch = b.prefetch_types;
  std::vector<Value> input_args(args.positional.begin() + num_prefetch, args.positional.end());
  Value inputs_tree = eval::MakeTuple(input_args);
  std::vector<Value> input_leaves;
  TreeDef inputs_def = kernel::Flatten(interp, inputs_tree, input_leaves);
  std::vector<array::Array> input_arrays;
  for (const Value& leaf : input_leaves) {
    if (leaf.as<eval::ArrayObject>() == nullptr && !leaf.is_number()) {
      b.Fail(b.TypeError(),
             fmt::format("pallas_call operands must be arrays, got {}", interp.TypeName(leaf)));
    }
    array::Array a = eval::ToArray(interp, leaf);
    a.set_weak_type(false);
    input_arrays.push_back(a);
  }
  // in_specs: one BlockSpec per input (same pytree), or none at all.
  std::vector<Value> in_spec_leaves;
  if (has_in_specs) {
    Value specs = ToTupleIfList(in_specs_v);
    if (!specs.is(eval::ObjectKind::kTuple)) {
      if (input_args.size() == 1) {
        specs = eval::MakeTuple({specs});
      } else {
        b.Fail(b.ValueError(), "`in_specs` must be a tuple or a list");
      }
    }
    TreeDef spec_def = FlattenSpecs(interp, specs, in_spec_leaves);
    if (!kernel::SameStructure(spec_def, inputs_def, interp)) {
      b.Fail(b.ValueError(), "Pytree for `in_specs` and `inputs` do not match.",
             {fmt::format("in_specs has structure {} ({} specs) but the inputs have structure {} "
                          "({} arrays)",
                          spec_def.ToString(interp), in_spec_leaves.size(),
                          inputs_def.ToString(interp), input_leaves.size()),
              "give one BlockSpec per input, in the order the inputs are passed"});
    }
  }
  // Input refs: names follow the kernel's parameters (one per top-level argument).
  {
    size_t leaf = 0;
    for (size_t a = 0; a < input_args.size(); ++a) {
      std::vector<Value> sub;
      kernel::Flatten(interp, input_args[a], sub);
      std::string pname = b.NextName(fmt::format("input {}", a));
      for (size_t k = 0; k < sub.size(); ++k, ++leaf) {
        RecordObject* spec = nullptr;
        if (has_in_specs) {
          spec = AsRecord(in_spec_leaves[leaf], "BlockSpec");
          if (spec == nullptr) {
            b.Fail(b.TypeError(), fmt::format("in_specs entries must be pl.BlockSpec, got {}",
                                              interp.Repr(in_spec_leaves[leaf])));
          }
        }
        std::string name = sub.size() == 1 ? pname : fmt::format("{}[{}]", pname, k);
        b.plan.inputs.push_back(b.MakeOperand(name, input_arrays[leaf].shape(),
                                              input_arrays[leaf].dtype(), spec, false,
                                              fmt::format("input {}", name)));
      }
    }
  }
  // Outputs.
  Value out_tree = ToTupleIfList(out_shape);
  std::vector<Value> out_leaves;
  TreeDef out_def = kernel::Flatten(interp, out_tree, out_leaves);
  std::vector<Value> out_spec_leaves;
  if (has_out_specs) {
    Value specs = ToTupleIfList(out_specs_v);
    TreeDef spec_def = FlattenSpecs(interp, specs, out_spec_leaves);
    if (!kernel::SameStructure(spec_def, out_def, interp)) {
      b.Fail(b.ValueError(), "Pytree for `out_specs` and `out_shape` do not match.",
             {fmt::format("out_specs has structure {} but out_shape has structure {}",
                          spec_def.ToString(interp), out_def.ToString(interp))});
    }
  }
  std::vector<std::pair<array::Shape, array::DType>> out_types;
  for (const Value& leaf : out_leaves) {
    std::optional<Value> shape = interp.TryGetAttr(leaf, "shape");
    std::optional<Value> dtype = interp.TryGetAttr(leaf, "dtype");
    if (!shape || !dtype) {
      b.Fail(b.TypeError(), fmt::format("out_shape entries need .shape and .dtype (use "
                                        "jax.ShapeDtypeStruct), got {}",
                                        interp.Repr(leaf)));
    }
    out_types.emplace_back(eval::ToShape(interp, *shape), eval::ToDType(interp, *dtype));
  }
  {
    // Output parameter names: one per top-level entry of a tuple out_shape, else one.
    std::vector<TreeDef> tops;
    if (out_def.kind == TreeDef::Kind::kTuple) {
      tops = out_def.children;
    } else {
      tops.push_back(out_def);
    }
    size_t leaf = 0;
    for (size_t o = 0; o < tops.size(); ++o) {
      std::string pname = b.NextName(fmt::format("output {}", o));
      size_t n = tops[o].num_leaves();
      for (size_t k = 0; k < n; ++k, ++leaf) {
        RecordObject* spec = nullptr;
        if (has_out_specs) {
          spec = AsRecord(out_spec_leaves[leaf], "BlockSpec");
          if (spec == nullptr) {
            b.Fail(b.TypeError(), fmt::format("out_specs entries must be pl.BlockSpec, got {}",
                                              interp.Repr(out_spec_leaves[leaf])));
          }
        }
        std::string name = n == 1 ? pname : fmt::format("{}[{}]", pname, k);
        b.plan.outputs.push_back(b.MakeOperand(name, out_types[leaf].first, out_types[leaf].second,
                                               spec, true, fmt::format("output {}", name)));
      }
    }
  }
  // Scratch.
  std::vector<Value> scratch_positional;
  std::vector<std::pair<std::string, Value>> scratch_keywords;
  auto add_scratch = [&](const Value& s, const std::string& fallback) {
    kernel::RefType type = kernel::ScratchRefType(interp, s, fallback, kernel::RefRole::kScratch);
    type.operand = static_cast<int>(b.plan.scratch.size());
    b.plan.scratch.push_back(std::move(type));
  };
  if (auto* dict = scratch_v.as<eval::DictObject>()) {
    for (auto& [key, value] : dict->Items()) {
      std::string key_name = interp.Str(key);
      add_scratch(value, key_name);
      scratch_keywords.emplace_back(key_name, Value());
    }
  } else if (!scratch_v.is_none()) {
    for (const Value& s : interp.ToVector(scratch_v)) {
      add_scratch(s, b.NextName(fmt::format("scratch {}", b.plan.scratch.size())));
    }
  }
  // Aliases.
  if (auto* dict = aliases.as<eval::DictObject>()) {
    for (auto& [k, v] : dict->Items()) {
      int64_t in = eval::ToIndex(interp, k), out = eval::ToIndex(interp, v);
      int64_t n_prefetch = static_cast<int64_t>(prefetch_arrays.size());
      if (in < n_prefetch) {
        b.Fail(b.ValueError(), "Aliasing of scalar prefetch arguments is not supported.");
      }
      int64_t input = in - n_prefetch;
      if (input >= static_cast<int64_t>(b.plan.inputs.size()) || out < 0 ||
          out >= static_cast<int64_t>(b.plan.outputs.size()) || input < 0) {
        b.Fail(b.ValueError(), fmt::format("input_output_aliases contains the mapping '{}:{}', "
                                           "which is out of range",
                                           in, out));
      }
      const Operand& i_op = b.plan.inputs[input];
      const Operand& o_op = b.plan.outputs[out];
      if (i_op.shape != o_op.shape || i_op.dtype != o_op.dtype) {
        b.Fail(
            b.ValueError(),
            fmt::format("input_output_aliases contains the mapping '{}:{}' referring to "
                        "input {} with abstract value {} and output {} with a different "
                        "abstract value {}.",
                        in, out, i_op.name,
                        kernel::TypeToString({.shape = i_op.shape, .dtype = i_op.dtype}), o_op.name,
                        kernel::TypeToString({.shape = o_op.shape, .dtype = o_op.dtype})));
      }
      b.plan.aliases[static_cast<int>(input)] = static_cast<int>(out);
    }
  }
  // Dimension semantics: checked for its length on a TPU; its leading "parallel" axes are
  // split across cores with `--cores 2`.
  if (auto* params = compiler_params.as<RecordObject>()) {
    const Value& semantics = params->Get("dimension_semantics");
    if (!semantics.is_none() && options.semantics == Semantics::kTpu &&
        static_cast<size_t>(interp.Len(semantics)) != b.plan.grid.size()) {
      b.Fail(b.ValueError(),
             fmt::format("Length of grid does not match length of dimension semantics: grid {} "
                         "has {} axes, dimension_semantics has {} entries",
                         TupleString(b.plan.grid), b.plan.grid.size(), interp.Len(semantics)));
    }
    if (!semantics.is_none()) {
      for (const Value& entry : interp.ToVector(semantics)) {
        b.plan.dimension_semantics.push_back(interp.Str(entry));
      }
      b.plan.semantics_span = params->span;
    }
  }

  // ---- Trace the kernel ----------------------------------------------------------------------
  kernel::TraceOptions trace_options{.what = "kernel",
                                     .call_name = name,
                                     .grid = b.plan.grid,
                                     .tpu_rules = options.semantics == Semantics::kTpu};
  auto trace = std::make_shared<kernel::Trace>(interp, name, trace_options);
  {
    kernel::TraceScope scope(*trace);
    std::vector<Value> prefetch_refs, input_refs, output_refs, scratch_refs;
    for (const kernel::RefType& t : b.prefetch_types) {
      prefetch_refs.push_back(trace->MakeRef(trace->AddRef(t)));
    }
    auto add_operand = [&](const Operand& op, kernel::RefRole role, int index) {
      return trace->MakeRef(trace->AddRef({.name = op.name,
                                           .shape = op.ref_shape,
                                           .dtype = op.dtype,
                                           .space = op.space,
                                           .role = role,
                                           .operand = index}));
    };
    for (size_t i = 0; i < b.plan.inputs.size(); ++i) {
      input_refs.push_back(add_operand(b.plan.inputs[i], kernel::RefRole::kInput, int(i)));
    }
    for (size_t i = 0; i < b.plan.outputs.size(); ++i) {
      output_refs.push_back(add_operand(b.plan.outputs[i], kernel::RefRole::kOutput, int(i)));
    }
    for (const kernel::RefType& t : b.plan.scratch) {
      scratch_refs.push_back(trace->MakeRef(trace->AddRef(t)));
    }
    CallArgs kernel_args{.span = interp.current_span()};
    size_t next = 0;
    for (const TreeDef& def : b.prefetch_defs) {
      kernel_args.positional.push_back(kernel::Unflatten(interp, def, prefetch_refs, next));
    }
    next = 0;
    for (const TreeDef& def : inputs_def.children) {
      kernel_args.positional.push_back(kernel::Unflatten(interp, def, input_refs, next));
    }
    next = 0;
    if (out_def.kind == TreeDef::Kind::kTuple) {
      for (const TreeDef& def : out_def.children) {
        kernel_args.positional.push_back(kernel::Unflatten(interp, def, output_refs, next));
      }
    } else {
      kernel_args.positional.push_back(kernel::Unflatten(interp, out_def, output_refs, next));
    }
    if (!scratch_keywords.empty()) {
      for (size_t k = 0; k < scratch_keywords.size(); ++k) {
        kernel_args.keywords.emplace_back(scratch_keywords[k].first, scratch_refs[k]);
      }
    } else {
      for (const Value& r : scratch_refs) kernel_args.positional.push_back(r);
    }
    Value returned = interp.Call(kernel_fn, std::move(kernel_args));
    if (!returned.is_none()) {
      std::vector<Value> leaves;
      TreeDef def = kernel::Flatten(interp, returned, leaves);
      b.Fail(b.ValueError(),
             fmt::format("The kernel function in the pallas_call {} should return None. It "
                         "returns a PyTree: {}",
                         name, def.ToString(interp)),
             {"kernels write their results into the output refs (`o_ref[...] = value`) instead "
              "of returning them"});
    }
  }
  auto function = std::make_shared<kernel::Function>(std::move(trace->function()));
  if (auto problem = kernel::Verify(*function)) {
    b.Fail(interp.types().runtime_error, "internal error: invalid kernel IR: " + *problem);
  }
  b.plan.kernel = function;
  if (options.dump_ir || debug) {
    const SourceManager& sources = interp.sources();
    auto line_of = [&](SourceSpan s) {
      std::string where = FormatLocation(s, sources);  // path:line:col; the path is noise here
      size_t colon = where.rfind(':', where.rfind(':') - 1);
      return "line " + where.substr(colon + 1);
    };
    interp.Print(kernel::Print(*function, line_of));
    for (const Operand& op : b.plan.inputs) {
      if (op.index_map)
        interp.Print("index map of " + op.name + ": " + kernel::Print(*op.index_map, line_of));
    }
    for (const Operand& op : b.plan.outputs) {
      if (op.index_map)
        interp.Print("index map of " + op.name + ": " + kernel::Print(*op.index_map, line_of));
    }
  }

  if (options.lint) Lint(b.plan, *session);

  // ---- Run ---------------------------------------------------------------------------------
  b.plan.line_of = [&interp](SourceSpan s) {
    std::string where = FormatLocation(s, interp.sources());  // path:line:col
    size_t colon = where.rfind(':', where.rfind(':') - 1);
    return "line " + where.substr(colon + 1, where.rfind(':') - colon - 1);
  };
  CallResult result;
  BlockTrace* blocks = nullptr;
  if (options.record_blocks && session->calls.size() < EmulatorSession::kMaxCallRecords) {
    session->calls.push_back(RecordCall(b.plan, interp.sources()));
    blocks = &session->calls.back().trace;
  }
  try {
    std::function<void()> tick = [&interp] { interp.Step(); };
    result = RunCall(b.plan, prefetch_arrays, input_arrays, options, tick, blocks);
  } catch (const EmulationError& error) {
    const eval::BuiltinTypes& t = interp.types();
    eval::TypeObject* type = error.kind == EmulationError::Kind::kIndexError   ? t.index_error
                             : error.kind == EmulationError::Kind::kValueError ? t.value_error
                             : error.kind == EmulationError::Kind::kTypeError  ? t.type_error
                                                                               : t.runtime_error;
    auto ex = interp.NewException(type, {eval::MakeStr(error.message)});
    ex->span = error.span;
    ex->notes = error.notes;
    ex->related = error.related;
    interp.Throw(ex);
  }

  // ---- Report --------------------------------------------------------------------------------
  ReportWarnings(b.plan, result, span, *session);
  if (options.stats) {
    session->stats.push_back({.name = name,
                              .span = span,
                              .counters = result.counters,
                              .core_counters = result.core_counters,
                              .core_steps = result.core_steps,
                              .grid = b.plan.grid,
                              .megacore_note = result.megacore_note});
  }

  bool has_dma_semaphores =
      std::any_of(b.plan.scratch.begin(), b.plan.scratch.end(), [](const kernel::RefType& ref) {
        return ref.space == MemorySpace::kSemaphore && ref.semaphore == kernel::SemaphoreKind::kDma;
      });
  std::vector<Value> outputs;
  for (size_t o = 0; o < result.outputs.size(); ++o) {
    outputs.push_back(eval::WrapArray(std::move(result.outputs[o])));
    const Operand& op = b.plan.outputs[o];
    OutputRecord record{.serial = outputs.back().as<eval::ArrayObject>()->serial,
                        .call = name,
                        .call_span = span,
                        .operand = op.name,
                        .grid = b.plan.grid,
                        .writer = std::move(result.writer[o]),
                        .uninitialized = result.uninitialized,
                        .uninitialized_is_padding = InputPadding(b.plan, result.uninitialized.ref),
                        .has_dma_semaphores = has_dma_semaphores,
                        .counters = result.counters};
    record.counters.timeline.clear();
    record.dma = op.space == MemorySpace::kAny;
    if (op.space == MemorySpace::kAny) {
      // Written by DMAs: blocks of the shape they wrote, when uniform; else the whole array.
      record.block =
          result.dma_blocks[o].size() == op.shape.size() ? result.dma_blocks[o] : op.shape;
    }
    for (size_t d = 0; d < op.block.size() && op.space != MemorySpace::kAny; ++d) {
      const BlockDim& dim = op.block[d];
      record.block.push_back(dim.kind == BlockDim::Kind::kSqueezed ? 1 : dim.size);
      if (dim.kind == BlockDim::Kind::kElement) record.blocked = false;
    }
    if (session->outputs.size() >= EmulatorSession::kMaxOutputRecords) {
      session->outputs.erase(session->outputs.begin());
    }
    session->outputs.push_back(std::move(record));
  }
  return kernel::Unflatten(interp, out_def, outputs);
}

}  // namespace

void InstallPallas(Interpreter& interp, const EmulatorOptions& options) {
  auto session = std::make_shared<EmulatorSession>();
  session->options = options;
  EmulatorSession* raw = session.get();
  interp.extension_state("tpu.session") = session;
  kernel::InstallKernelModules(interp);
  auto pl = interp.FindModule("jax.experimental.pallas");
  pl->Set("pallas_call", interp.MakeBuiltin("pallas_call", [raw](Interpreter& interp,
                                                                 CallArgs& args) {
    auto bound = eval::BindArgs(
        interp, "pallas_call", args,
        {"kernel", "out_shape=", "*", "grid_spec=", "grid=", "in_specs=", "out_specs=",
         "scratch_shapes=", "input_output_aliases=", "debug=", "interpret=", "name=",
         "compiler_params=", "cost_estimate=", "metadata=", "backend="});
    auto call = std::make_shared<PallasCallObject>();
    call->session = raw;
    call->span = interp.current_span();
    call->kernel_fn = *bound[0];
    if (!eval::IsCallable(interp, call->kernel_fn)) {
      interp.Raise(interp.types().type_error, "the kernel passed to pallas_call must be callable");
    }
    if (!bound[1] || bound[1]->is_none()) {
      interp.Raise(interp.types().type_error,
                   "pallas_call() missing required argument: "
                   "'out_shape'");
    }
    call->out_shape = *bound[1];
    call->grid_spec = bound[2].value_or(Value());
    call->grid_given = bound[3].has_value() &&
                       !(bound[3]->is(eval::ObjectKind::kTuple) && interp.Len(*bound[3]) == 0);
    call->grid = bound[3].value_or(eval::MakeTuple({}));
    call->in_specs_given = bound[4].has_value() && !bound[4]->is_none();
    call->in_specs = bound[4].value_or(Value());
    call->out_specs_given = bound[5].has_value() && !bound[5]->is_none();
    call->out_specs = bound[5].value_or(Value());
    call->scratch_given = bound[6].has_value() &&
                          !(bound[6]->is(eval::ObjectKind::kTuple) && interp.Len(*bound[6]) == 0) &&
                          !bound[6]->is_none();
    call->scratch_shapes = bound[6].value_or(Value());
    call->aliases = bound[7].value_or(Value());
    call->debug = bound[8] && interp.Truthy(*bound[8]);
    call->name =
        bound[10] && !bound[10]->is_none() ? interp.Str(*bound[10]) : FunctionName(call->kernel_fn);
    call->compiler_params = bound[11].value_or(Value());
    interp.Track(call);
    return Value(call);
  }));
}

const OutputRecord* FindOutputRecord(const EmulatorSession& session, uint64_t serial) {
  for (const OutputRecord& record : session.outputs) {
    if (record.serial == serial) return &record;
  }
  return nullptr;
}

}  // namespace pz::tpu

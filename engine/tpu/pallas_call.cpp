// `pl.pallas_call` (see pallas_call.h): binds the arguments, flattens the operand pytrees, reads
// the call spec and canonicalises it (kernel/call_spec.h, kernel/grid_mapping.h), traces the
// kernel (kernel/program.h), runs it on the TpuBackend and keeps what the session reports.
#include "tpu/pallas_call.h"

#include <fmt/format.h>

#include <algorithm>

#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "kernel/autodiff.h"
#include "kernel/call_spec.h"
#include "kernel/dma_api.h"
#include "kernel/grid_mapping.h"
#include "kernel/modules.h"
#include "kernel/program.h"
#include "kernel/pytree.h"
#include "kernel/records.h"
#include "tpu/call_report.h"
#include "tpu/interpret_mode.h"
#include "tpu/lint.h"
#include "tpu/megacore.h"
#include "tpu/tpu_backend.h"
#include "tpu/tpu_info.h"

namespace pz::tpu {

using eval::CallArgs;
using eval::Interpreter;
using eval::Value;
using kernel::AsRecord;
using kernel::BlockMapping;
using kernel::GridMapping;
using kernel::MemorySpace;
using kernel::SpecContext;
using kernel::TreeDef;

EmulatorSession* SessionOf(Interpreter& interp) { return interp.FindState<EmulatorSession>(); }

namespace {

class PallasCallObject final : public eval::Object {
 public:
  PallasCallObject() : Object(eval::ObjectKind::kExtension) {}
  std::string_view type_name() const override { return "pallas_call"; }
  std::string Repr(Interpreter& interp) const override {
    return fmt::format("<pallas_call {}>", name);
  }
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override;
  void ClearReferences() override {
    kernel_fn = out_shape = aliases = compiler_params = interpret = Value();
    spec_args = kernel::GridSpecArgs();
  }

  Value kernel_fn, out_shape, aliases, compiler_params;
  Value interpret;  // the call's `interpret=` (True, an InterpretParams, or None)
  kernel::GridSpecArgs spec_args;
  bool debug = false;
  std::string name;
  SourceSpan span;
  EmulatorSession* session = nullptr;
};

// The kernel's parameter names, handed out in order (prefetch, inputs, outputs, scratch) to
// name the refs in messages; `fallback` once they run out.
struct ParamNamer {
  std::vector<std::string> names;
  size_t next = 0;
  std::string Next(const std::string& fallback) {
    if (next < names.size()) return names[next++];
    ++next;
    return fallback;
  }
};

Value ToTupleIfList(const Value& v) {
  if (auto* list = v.as<eval::ListObject>()) return eval::MakeTuple(list->items);
  return v;
}

// The scalar-prefetch operands (the first `count` arguments): whole arrays in SMEM.
void AddPrefetch(const SpecContext& ctx, const std::vector<Value>& args, int64_t count,
                 ParamNamer& namer, GridMapping& mapping, kernel::CallOperands& operands) {
  Interpreter& interp = ctx.interp;
  if (static_cast<int64_t>(args.size()) < count) {
    ctx.ValueError(
        fmt::format("the pallas_call expects {} scalar-prefetch operands "
                    "first, got {} arguments",
                    count, args.size()));
  }
  for (int64_t i = 0; i < count; ++i) {
    std::vector<Value> leaves;
    mapping.prefetch_trees.push_back(kernel::Flatten(interp, args[i], leaves));
    std::string pname = namer.Next(fmt::format("prefetch {}", i));
    for (size_t k = 0; k < leaves.size(); ++k) {
      array::Array a = eval::ToArray(interp, leaves[k]);
      a.set_weak_type(false);
      operands.prefetch.push_back(a);
      mapping.prefetch.push_back(
          {.name = leaves.size() == 1 ? pname : fmt::format("{}[{}]", pname, k),
           .shape = a.shape(),
           .dtype = a.dtype(),
           .space = MemorySpace::kSmem,
           .role = kernel::RefRole::kPrefetch,
           .operand = static_cast<int>(mapping.prefetch.size())});
    }
  }
}

// The BlockSpec leaves of `specs` (a pytree) that must match `def`, one per operand leaf; empty
// when no specs were given.
std::vector<Value> SpecLeaves(const SpecContext& ctx, const std::optional<Value>& specs,
                              size_t num_args, const TreeDef& def, size_t num_leaves, bool inputs) {
  Interpreter& interp = ctx.interp;
  std::vector<Value> leaves;
  if (!specs) return leaves;
  Value tree = ToTupleIfList(*specs);
  if (inputs && !tree.is(eval::ObjectKind::kTuple)) {
    if (num_args != 1) ctx.ValueError("`in_specs` must be a tuple or a list");
    tree = eval::MakeTuple({tree});
  }
  TreeDef spec_def = kernel::Flatten(interp, tree, leaves);
  if (kernel::SameStructure(spec_def, def, interp)) return leaves;
  if (inputs) {
    ctx.ValueError(
        "Pytree for `in_specs` and `inputs` do not match.",
        {fmt::format("in_specs has structure {} ({} specs) but the inputs have "
                     "structure {} ({} arrays)",
                     spec_def.ToString(interp), leaves.size(), def.ToString(interp), num_leaves),
         "give one BlockSpec per input, in the order the inputs are passed"});
  }
  ctx.ValueError("Pytree for `out_specs` and `out_shape` do not match.",
                 {fmt::format("out_specs has structure {} but out_shape has structure {}",
                              spec_def.ToString(interp), def.ToString(interp))});
}

// The typed BlockSpec of leaf `leaf` of `leaves` (nullopt without specs).
std::optional<kernel::BlockSpec> SpecOf(const SpecContext& ctx, const std::vector<Value>& leaves,
                                        size_t leaf, bool has_specs, const char* what) {
  if (!has_specs) return std::nullopt;
  if (AsRecord(leaves[leaf], "BlockSpec") == nullptr) {
    ctx.TypeError(fmt::format("{} entries must be pl.BlockSpec, got {}", what,
                              ctx.interp.Repr(leaves[leaf])));
  }
  return kernel::ReadBlockSpec(ctx, leaves[leaf]);
}

// The inputs (the arguments after the scalar-prefetch ones) and their block mappings; names
// follow the kernel's parameters (one per top-level argument).
void AddInputs(const SpecContext& ctx, const std::vector<Value>& input_args,
               const std::optional<Value>& in_specs, ParamNamer& namer, GridMapping& mapping,
               kernel::CallOperands& operands, kernel::KernelSignature& signature) {
  Interpreter& interp = ctx.interp;
  std::vector<Value> input_leaves;
  TreeDef inputs_def = kernel::Flatten(interp, eval::MakeTuple(input_args), input_leaves);
  signature.inputs = inputs_def.children;
  for (const Value& leaf : input_leaves) {
    if (leaf.as<eval::ArrayObject>() == nullptr && !leaf.is_number()) {
      ctx.TypeError(
          fmt::format("pallas_call operands must be arrays, got {}", interp.TypeName(leaf)));
    }
    array::Array a = eval::ToArray(interp, leaf);
    a.set_weak_type(false);
    operands.inputs.push_back(a);
  }
  std::vector<Value> spec_leaves =
      SpecLeaves(ctx, in_specs, input_args.size(), inputs_def, input_leaves.size(), true);
  size_t leaf = 0;
  for (size_t a = 0; a < input_args.size(); ++a) {
    std::vector<Value> sub;
    kernel::Flatten(interp, input_args[a], sub);
    std::string pname = namer.Next(fmt::format("input {}", a));
    for (size_t k = 0; k < sub.size(); ++k, ++leaf) {
      std::optional<kernel::BlockSpec> spec =
          SpecOf(ctx, spec_leaves, leaf, in_specs.has_value(), "in_specs");
      std::string name = sub.size() == 1 ? pname : fmt::format("{}[{}]", pname, k);
      const array::Array& array = operands.inputs[leaf];
      mapping.inputs.push_back(kernel::MapBlockSpec(ctx, mapping, spec ? &*spec : nullptr, name,
                                                    array.shape(), array.dtype(), false,
                                                    fmt::format("input {}", name)));
    }
  }
}

// The outputs (from out_shape) and their block mappings; one kernel parameter per top-level
// entry of a tuple out_shape, else one.
void AddOutputs(const SpecContext& ctx, const Value& out_shape,
                const std::optional<Value>& out_specs, ParamNamer& namer, GridMapping& mapping,
                kernel::KernelSignature& signature) {
  Interpreter& interp = ctx.interp;
  std::vector<Value> out_leaves;
  TreeDef out_def = kernel::Flatten(interp, ToTupleIfList(out_shape), out_leaves);
  signature.outputs = out_def;
  std::vector<Value> spec_leaves = SpecLeaves(ctx, out_specs, 0, out_def, out_leaves.size(), false);
  std::vector<std::pair<array::Shape, array::DType>> out_types;
  for (const Value& leaf : out_leaves) {
    std::optional<Value> shape = interp.TryGetAttr(leaf, "shape");
    std::optional<Value> dtype = interp.TryGetAttr(leaf, "dtype");
    if (!shape || !dtype) {
      ctx.TypeError(
          fmt::format("out_shape entries need .shape and .dtype (use "
                      "jax.ShapeDtypeStruct), got {}",
                      interp.Repr(leaf)));
    }
    out_types.emplace_back(eval::ToShape(interp, *shape), eval::ToDType(interp, *dtype));
  }
  std::vector<TreeDef> tops;
  if (out_def.kind == TreeDef::Kind::kTuple) {
    tops = out_def.children;
  } else {
    tops.push_back(out_def);
  }
  size_t leaf = 0;
  for (size_t o = 0; o < tops.size(); ++o) {
    std::string pname = namer.Next(fmt::format("output {}", o));
    size_t n = tops[o].num_leaves();
    for (size_t k = 0; k < n; ++k, ++leaf) {
      std::optional<kernel::BlockSpec> spec =
          SpecOf(ctx, spec_leaves, leaf, out_specs.has_value(), "out_specs");
      std::string name = n == 1 ? pname : fmt::format("{}[{}]", pname, k);
      mapping.outputs.push_back(kernel::MapBlockSpec(ctx, mapping, spec ? &*spec : nullptr, name,
                                                     out_types[leaf].first, out_types[leaf].second,
                                                     true, fmt::format("output {}", name)));
    }
  }
}

// The scratch refs; a dict gives them to the kernel by keyword.
void AddScratch(const SpecContext& ctx, const Value& scratch_shapes, ParamNamer& namer,
                GridMapping& mapping, kernel::KernelSignature& signature) {
  Interpreter& interp = ctx.interp;
  auto add = [&](const Value& s, const std::string& fallback) {
    kernel::RefType type = kernel::ScratchRefType(interp, s, fallback, kernel::RefRole::kScratch);
    type.operand = static_cast<int>(mapping.scratch.size());
    mapping.scratch.push_back(std::move(type));
  };
  if (auto* dict = scratch_shapes.as<eval::DictObject>()) {
    for (auto& [key, value] : dict->Items()) {
      std::string key_name = interp.Str(key);
      add(value, key_name);
      signature.scratch_keywords.push_back(key_name);
    }
  } else if (!scratch_shapes.is_none()) {
    for (const Value& entry : interp.ToVector(scratch_shapes)) {
      std::vector<Value> leaves;
      signature.scratch.push_back(kernel::Flatten(interp, entry, leaves));
      for (const Value& s : leaves) {
        add(s, namer.Next(fmt::format("scratch {}", mapping.scratch.size())));
      }
    }
  }
}

// Raises a backend's error as the Python exception of its kind.
[[noreturn]] void Raise(Interpreter& interp, kernel::CallError& error) {
  const eval::BuiltinTypes& t = interp.types();
  eval::TypeObject* type = error.kind == kernel::CallError::Kind::kIndexError   ? t.index_error
                           : error.kind == kernel::CallError::Kind::kValueError ? t.value_error
                           : error.kind == kernel::CallError::Kind::kTypeError  ? t.type_error
                                                                                : t.runtime_error;
  auto ex = interp.NewException(type, {eval::MakeStr(error.message)});
  ex->span = error.span;
  ex->notes = std::move(error.notes);
  ex->related = std::move(error.related);
  interp.Throw(ex);
}

// What stands for the TPU's report when another backend ran a call: no counters, no findings.
const TpuReport kNoTpuReport;

// Attaches each output's record (for `check`) to the array the call returns.
void RecordOutputs(const kernel::Function& kernel, const GridMapping& mapping,
                   kernel::CallOutcome& outcome, const std::vector<Value>& outputs,
                   const TpuReport& report) {
  bool has_dma_semaphores =
      std::any_of(mapping.scratch.begin(), mapping.scratch.end(), [](const kernel::RefType& ref) {
        return ref.space == MemorySpace::kSemaphore && ref.semaphore == kernel::SemaphoreKind::kDma;
      });
  for (size_t o = 0; o < outputs.size(); ++o) {
    const BlockMapping& op = mapping.outputs[o];
    auto shared = std::make_shared<OutputRecord>();
    OutputRecord& record = *shared;
    record.call = mapping.name;
    record.call_span = mapping.span;
    record.operand = op.name;
    record.grid = mapping.grid;
    record.writer = std::move(outcome.writer[o]);
    record.uninitialized = report.uninitialized;
    record.uninitialized_is_padding = InputPadding(mapping, report.uninitialized.ref);
    record.has_dma_semaphores = has_dma_semaphores;
    record.counters = report.counters;
    auto ref = static_cast<kernel::RefId>(mapping.prefetch.size() + mapping.inputs.size() + o);
    if (const kernel::Instr* write = kernel::FirstWriteTo(kernel.body, ref)) {
      record.first_write = write->span;
    }
    record.counters.timeline.clear();
    record.measured = &report != &kNoTpuReport;
    record.dma = op.space == MemorySpace::kAny;
    if (op.space == MemorySpace::kAny) {
      // Written by DMAs: blocks of the shape they wrote, when uniform; else the whole array.
      record.block = o < report.dma_blocks.size() && report.dma_blocks[o].size() == op.shape.size()
                         ? report.dma_blocks[o]
                         : op.shape;
    }
    for (size_t d = 0; d < op.block.size() && op.space != MemorySpace::kAny; ++d) {
      const kernel::BlockDim& dim = op.block[d];
      record.block.push_back(dim.kind == kernel::BlockDim::Kind::kSqueezed ? 1 : dim.size);
      if (dim.kind == kernel::BlockDim::Kind::kElement) record.blocked = false;
    }
    outputs[o].as<eval::ArrayObject>()->origin = std::move(shared);
  }
}

std::optional<Value> PallasCallObject::Call(Interpreter& interp, CallArgs& args) {
  if (!args.keywords.empty()) {
    interp.Raise(interp.types().type_error,
                 "a pallas_call takes its operands positionally (no keyword arguments)");
  }
  EmulatorOptions options = OptionsForCall(interp, *session, interpret, session->options);
  const SpecContext ctx{.interp = interp,
                        .span = span,
                        .call_name = name,
                        .tpu_rules = options.semantics == Semantics::kTpu};

  // ---- The call spec, canonicalised ----------------------------------------------------------
  kernel::GridSpec grid_spec = kernel::ReadGridSpec(ctx, spec_args);
  GridMapping mapping{.name = name, .span = span, .grid = grid_spec.grid};
  ParamNamer namer{.names = kernel::ParamNames(kernel_fn)};
  kernel::CallOperands operands;
  kernel::KernelSignature signature;
  AddPrefetch(ctx, args.positional, grid_spec.num_scalar_prefetch, namer, mapping, operands);
  std::vector<Value> input_args(args.positional.begin() + grid_spec.num_scalar_prefetch,
                                args.positional.end());
  AddInputs(ctx, input_args, grid_spec.in_specs, namer, mapping, operands, signature);
  {
    std::vector<array::Array> all = operands.prefetch;
    all.insert(all.end(), operands.inputs.begin(), operands.inputs.end());
    kernel::CheckNotDifferentiated(interp, "pallas_call", all);
  }
  // The kernel's own steps are not part of a differentiation that may be listening.
  array::ScopedPrimRecorder not_differentiated(nullptr);
  AddOutputs(ctx, out_shape, grid_spec.out_specs, namer, mapping, signature);
  AddScratch(ctx, grid_spec.scratch_shapes, namer, mapping, signature);
  kernel::AddAliases(ctx, mapping, aliases);
  kernel::SetDimensionSemantics(ctx, mapping, kernel::ReadCompilerParams(ctx, compiler_params));

  // ---- The kernel --------------------------------------------------------------------------
  kernel::KernelProgram program = kernel::TraceKernel(ctx, kernel_fn, mapping, signature);
  if (options.dump_ir || debug) kernel::PrintProgram(interp, program, mapping);
  if (options.lint) Lint(program, mapping, operands, *session);
  // The emulated run checks the points of "parallel" axes for values passed on in scratch: the
  // leading ones, which a megacore splits, for `--lint`; every one, each point a CUDA block of its
  // own, for `--emit-cuda`.
  options.carry_axes = options.lint || options.on_trace ? ParallelAxes(mapping, !options.on_trace)
                                                        : std::vector<int>{};

  // ---- Run ---------------------------------------------------------------------------------
  kernel::RunOptions run{
      .tick = [&interp] { interp.Step(); },
      .line_of =
          [&interp](SourceSpan s) {
            std::string where = FormatLocation(s, interp.sources());  // path:line:col
            size_t colon = where.rfind(':', where.rfind(':') - 1);
            return "line " + where.substr(colon + 1, where.rfind(':') - colon - 1);
          },
      .zero_uninitialized = options.zero_uninitialized};
  if (options.record_blocks && session->calls.size() < EmulatorSession::kMaxCallRecords) {
    session->calls.push_back(RecordCall(program, mapping, interp.sources()));
    run.blocks = &session->calls.back().trace;
  }
  if (options.probe != nullptr) ++options.probe->calls_started;
  kernel::CallOutcome outcome;
  try {
    // (`--emit-cuda` fails where the call cannot become CUDA: an error at the call like the run's.)
    std::vector<kernel::CallWarning> traced;
    if (options.on_trace) traced = options.on_trace(program, mapping, operands, run);
    outcome = options.backend ? options.backend->Run(program, mapping, operands, run)
                              : TpuBackend(options).Run(program, mapping, operands, run);
    for (kernel::CallWarning& w : traced) outcome.warnings.push_back(std::move(w));
  } catch (kernel::CallError& error) {
    Raise(interp, error);
  }

  // ---- Report --------------------------------------------------------------------------------
  const auto* tpu_report = dynamic_cast<const TpuReport*>(outcome.report.get());
  const TpuReport& report = tpu_report ? *tpu_report : kNoTpuReport;
  ReportWarnings(*program.kernel, mapping, outcome, report, span, *session);
  if (options.stats) {
    session->stats.push_back(
        {.name = name,
         .span = span,
         .counters = report.counters,
         .core_counters = report.core_counters,
         .core_steps = report.core_steps,
         .grid = mapping.grid,
         .semantics = mapping.dimension_semantics,
         .input_dtype = mapping.inputs.empty()
                            ? std::string()
                            : std::string(array::DTypeName(mapping.inputs[0].dtype)),
         .megacore_note = report.megacore_note,
         .backend_summary =
             tpu_report || !outcome.report ? std::string() : outcome.report->Summary()});
  }
  std::vector<Value> outputs;
  for (array::Array& out : outcome.outputs) outputs.push_back(eval::WrapArray(std::move(out)));
  RecordOutputs(*program.kernel, mapping, outcome, outputs, report);
  return kernel::Unflatten(interp, signature.outputs, outputs);
}

}  // namespace

EmulatorSession& InstallPallas(Interpreter& interp, const EmulatorOptions& options) {
  auto session = std::make_shared<EmulatorSession>();
  session->options = options;
  EmulatorSession* raw = session.get();
  interp.SetState(session);
  kernel::InstallKernelModules(interp);
  InstallInterpretMode(interp, *raw);
  InstallTpuInfo(interp, *raw);
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
    kernel::GridSpecArgs& spec = call->spec_args;
    spec.grid_spec = bound[2].value_or(Value());
    spec.grid_given = bound[3].has_value() &&
                      !(bound[3]->is(eval::ObjectKind::kTuple) && interp.Len(*bound[3]) == 0);
    spec.grid = bound[3].value_or(eval::MakeTuple({}));
    spec.in_specs_given = bound[4].has_value() && !bound[4]->is_none();
    spec.in_specs = bound[4].value_or(Value());
    spec.out_specs_given = bound[5].has_value() && !bound[5]->is_none();
    spec.out_specs = bound[5].value_or(Value());
    spec.scratch_given = bound[6].has_value() &&
                         !(bound[6]->is(eval::ObjectKind::kTuple) && interp.Len(*bound[6]) == 0) &&
                         !bound[6]->is_none();
    spec.scratch_shapes = bound[6].value_or(Value());
    call->aliases = bound[7].value_or(Value());
    call->debug = bound[8] && interp.Truthy(*bound[8]);
    call->interpret = bound[9].value_or(Value());
    call->name = bound[10] && !bound[10]->is_none() ? interp.Str(*bound[10])
                                                    : kernel::FunctionName(call->kernel_fn);
    call->compiler_params = bound[11].value_or(Value());
    interp.Track(call);
    return Value(call);
  }));
  return *raw;
}

const OutputRecord* OutputRecordOf(const eval::ArrayObject& array) {
  return dynamic_cast<const OutputRecord*>(array.origin.get());
}

}  // namespace pz::tpu

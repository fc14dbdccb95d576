// Tracing a pallas_call's kernel body into a KernelProgram (see program.h).
#include "kernel/program.h"

#include <fmt/format.h>

#include "eval/builtin_support.h"
#include "kernel/trace.h"
#include "support/diagnostic.h"

namespace pz::kernel {

using eval::Value;

KernelProgram TraceKernel(const SpecContext& ctx, const Value& kernel_fn,
                          const GridMapping& mapping, const KernelSignature& signature) {
  eval::Interpreter& interp = ctx.interp;
  TraceOptions trace_options{.what = "kernel",
                             .call_name = ctx.call_name,
                             .grid = mapping.grid,
                             .tpu_rules = ctx.tpu_rules};
  auto trace = std::make_shared<Trace>(interp, ctx.call_name, trace_options);
  {
    TraceScope scope(*trace);
    std::vector<Value> prefetch_refs, input_refs, output_refs, scratch_refs;
    for (const RefType& t : mapping.prefetch) {
      prefetch_refs.push_back(trace->MakeRef(trace->AddRef(t)));
    }
    auto add_operand = [&](const BlockMapping& op, RefRole role, int index) {
      return trace->MakeRef(trace->AddRef({.name = op.name,
                                           .shape = op.ref_shape,
                                           .dtype = op.dtype,
                                           .space = op.space,
                                           .role = role,
                                           .operand = index,
                                           .spec = op.spec_span}));
    };
    for (size_t i = 0; i < mapping.inputs.size(); ++i) {
      input_refs.push_back(add_operand(mapping.inputs[i], RefRole::kInput, int(i)));
    }
    for (size_t i = 0; i < mapping.outputs.size(); ++i) {
      output_refs.push_back(add_operand(mapping.outputs[i], RefRole::kOutput, int(i)));
    }
    for (const RefType& t : mapping.scratch) {
      scratch_refs.push_back(trace->MakeRef(trace->AddRef(t)));
    }
    eval::CallArgs kernel_args{.span = interp.current_span()};
    size_t next = 0;
    for (const TreeDef& def : mapping.prefetch_trees) {
      kernel_args.positional.push_back(Unflatten(interp, def, prefetch_refs, next));
    }
    next = 0;
    for (const TreeDef& def : signature.inputs) {
      kernel_args.positional.push_back(Unflatten(interp, def, input_refs, next));
    }
    next = 0;
    if (signature.outputs.kind == TreeDef::Kind::kTuple) {
      for (const TreeDef& def : signature.outputs.children) {
        kernel_args.positional.push_back(Unflatten(interp, def, output_refs, next));
      }
    } else {
      kernel_args.positional.push_back(Unflatten(interp, signature.outputs, output_refs, next));
    }
    if (!signature.scratch_keywords.empty()) {
      for (size_t k = 0; k < signature.scratch_keywords.size(); ++k) {
        kernel_args.keywords.emplace_back(signature.scratch_keywords[k], scratch_refs[k]);
      }
    } else {
      next = 0;
      for (const TreeDef& def : signature.scratch) {
        kernel_args.positional.push_back(Unflatten(interp, def, scratch_refs, next));
      }
    }
    Value returned = interp.Call(kernel_fn, std::move(kernel_args));
    if (!returned.is_none()) {
      std::vector<Value> leaves;
      TreeDef def = Flatten(interp, returned, leaves);
      // Blamed on the `return` that hands the value back.
      SpecContext at = ctx;
      at.span = ReturnSpan(kernel_fn, ctx.span);
      at.ValueError(
          fmt::format("The kernel function in the pallas_call {} should return None. It "
                      "returns a PyTree: {}",
                      ctx.call_name, def.ToString(interp)),
          {"kernels write their results into the output refs (`o_ref[...] = value`) instead "
           "of returning them"});
    }
  }
  auto function = std::make_shared<Function>(std::move(trace->function()));
  if (auto problem = Verify(*function, TracedVerifyDepth())) {
    ctx.Fail(interp.types().runtime_error, "internal error: invalid kernel IR: " + *problem);
  }
  return KernelProgram{.kernel = function};
}

void PrintProgram(eval::Interpreter& interp, const KernelProgram& program,
                  const GridMapping& mapping) {
  const SourceManager& sources = interp.sources();
  auto line_of = [&](SourceSpan s) {
    std::string where = FormatLocation(s, sources);  // path:line:col; the path is noise here
    size_t colon = where.rfind(':', where.rfind(':') - 1);
    return "line " + where.substr(colon + 1);
  };
  interp.Print(Print(*program.kernel, line_of));
  for (const std::vector<BlockMapping>* group : {&mapping.inputs, &mapping.outputs}) {
    for (const BlockMapping& op : *group) {
      if (op.index_map) {
        interp.Print("index map of " + op.name + ": " + Print(*op.index_map, line_of));
      }
    }
  }
}

}  // namespace pz::kernel

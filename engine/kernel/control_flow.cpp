// Control flow for kernels and host code: lax.fori_loop, lax.while_loop, lax.cond, lax.switch,
// pl.when, pl.loop, plus pl.program_id / pl.num_programs / pl.cdiv / pl.multiple_of and the
// debug printers. Outside a trace they run eagerly (JAX semantics on concrete values); inside
// one they trace their bodies into regions.
#include "kernel/control_flow.h"

#include <fmt/format.h>

#include "eval/builtin_support.h"
#include "kernel/pytree.h"
#include "kernel/trace.h"

namespace pz::kernel {

using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

Trace* CurrentTrace(Interpreter& interp) { return dynamic_cast<Trace*>(interp.trace_hooks()); }

namespace {

std::string Types(const Trace& trace, const std::vector<ValueId>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) {
    s += (i ? ", " : "") + TypeToString(trace.type(ids[i]));
  }
  return "[" + s + "]";
}

// Lifts every leaf of `tree` (raising TypeError naming `what` for non-array leaves).
std::vector<ValueId> LiftLeaves(Trace& trace, const std::vector<Value>& leaves,
                                std::string_view what) {
  std::vector<ValueId> ids;
  for (const Value& leaf : leaves) ids.push_back(trace.Lift(leaf, what));
  return ids;
}

std::vector<ValueType> StrongTypes(const Trace& trace, const std::vector<ValueId>& ids) {
  std::vector<ValueType> types;
  for (ValueId id : ids) {
    ValueType t = trace.type(id);
    t.weak = false;
    types.push_back(t);
  }
  return types;
}

// Yields `ids` for results of `types`: same shapes and dtypes (weak types are made strong with a
// cast-free retype, as JAX promotes weak carries); raises `error` otherwise.
std::vector<ValueId> MatchTypes(Trace& trace, const std::vector<ValueId>& ids,
                                const std::vector<ValueType>& types, const std::string& error) {
  Interpreter& interp = trace.interp();
  bool ok = ids.size() == types.size();
  for (size_t i = 0; ok && i < ids.size(); ++i) {
    const ValueType& t = trace.type(ids[i]);
    ok = t.shape == types[i].shape && t.dtype == types[i].dtype;
  }
  if (!ok) {
    std::string expected;
    for (size_t i = 0; i < types.size(); ++i) expected += (i ? ", " : "") + TypeToString(types[i]);
    interp.Raise(interp.types().type_error,
                 fmt::format("{}: expected [{}], got {}", error, expected, Types(trace, ids)));
  }
  return ids;
}

std::vector<Value> Tracers(Trace& trace, const std::vector<ValueId>& ids) {
  std::vector<Value> values;
  for (ValueId id : ids) values.push_back(trace.MakeTracer(id));
  return values;
}

bool IsStatic(const Value& value) { return !(value.is_object() && value.object()->IsTracer()); }

ValueId IntScalar(Trace& trace, const Value& value, std::string_view what) {
  ValueId id = trace.Lift(value, what);
  const ValueType& t = trace.type(id);
  if (!t.shape.empty() || !array::IsInteger(t.dtype)) {
    trace.interp().Raise(
        trace.interp().types().type_error,
        fmt::format("{} must be an integer scalar, got {}", what, TypeToString(t)));
  }
  if (t.dtype != array::DType::kInt32 || t.weak) {
    id = trace.Convert(id, array::DType::kInt32);
  }
  return id;
}

}  // namespace

Value ForiLoop(Interpreter& interp, const Value& lower, const Value& upper, const Value& body,
               const Value& init, int64_t unroll) {
  Trace* trace = CurrentTrace(interp);
  if (trace == nullptr) {
    int64_t lo = eval::ToIndex(interp, lower);
    int64_t hi = eval::ToIndex(interp, upper);
    Value carry = init;
    for (int64_t i = lo; i < hi; ++i) {
      interp.Step();
      carry = interp.Call(body, std::vector<Value>{Value::Int(i), carry});
    }
    return carry;
  }
  ValueId lo = IntScalar(*trace, lower, "the lower bound of fori_loop");
  ValueId hi = IntScalar(*trace, upper, "the upper bound of fori_loop");
  std::vector<Value> leaves;
  TreeDef def = Flatten(interp, init, leaves);
  std::vector<ValueId> inits = LiftLeaves(*trace, leaves, "a fori_loop carry");
  std::vector<ValueType> carry_types = StrongTypes(*trace, inits);
  std::vector<ValueType> param_types{{.shape = {}, .dtype = array::DType::kInt32}};
  param_types.insert(param_types.end(), carry_types.begin(), carry_types.end());
  Region region = trace->TraceRegion(param_types, [&](std::vector<Value> params) {
    std::vector<Value> carry(params.begin() + 1, params.end());
    Value result = interp.Call(body, std::vector<Value>{params[0], Unflatten(interp, def, carry)});
    std::vector<Value> out_leaves;
    TreeDef out_def = Flatten(interp, result, out_leaves);
    if (!SameStructure(def, out_def, interp)) {
      interp.Raise(interp.types().type_error,
                   fmt::format("body_fun output and input must have the same structure: the "
                               "carry is {} but body_fun returned {}",
                               def.ToString(interp), out_def.ToString(interp)));
    }
    return MatchTypes(*trace, LiftLeaves(*trace, out_leaves, "a fori_loop carry"), carry_types,
                      "body_fun output and input must have identical types");
  });
  std::vector<ValueId> operands{lo, hi};
  operands.insert(operands.end(), inits.begin(), inits.end());
  Instr& instr = trace->Emit(Op::kFor, operands, carry_types);
  instr.unroll = unroll;
  instr.regions.push_back(std::move(region));
  return Unflatten(interp, def, Tracers(*trace, instr.results));
}

Value WhileLoop(Interpreter& interp, const Value& cond, const Value& body, const Value& init) {
  Trace* trace = CurrentTrace(interp);
  if (trace == nullptr) {
    Value carry = init;
    while (interp.Truthy(interp.Call(cond, std::vector<Value>{carry}))) {
      interp.Step();
      carry = interp.Call(body, std::vector<Value>{carry});
    }
    return carry;
  }
  std::vector<Value> leaves;
  TreeDef def = Flatten(interp, init, leaves);
  std::vector<ValueId> inits = LiftLeaves(*trace, leaves, "a while_loop carry");
  std::vector<ValueType> carry_types = StrongTypes(*trace, inits);
  Region cond_region = trace->TraceRegion(carry_types, [&](std::vector<Value> params) {
    Value pred = interp.Call(cond, std::vector<Value>{Unflatten(interp, def, params)});
    ValueId id = trace->Lift(pred, "the result of cond_fun");
    const ValueType& t = trace->type(id);
    if (!t.shape.empty() || t.dtype != array::DType::kBool) {
      interp.Raise(interp.types().type_error,
                   fmt::format("cond_fun must return a boolean scalar, but got output type(s) "
                               "[{}]",
                               TypeToString(t)));
    }
    return std::vector<ValueId>{id};
  });
  Region body_region = trace->TraceRegion(carry_types, [&](std::vector<Value> params) {
    Value result = interp.Call(body, std::vector<Value>{Unflatten(interp, def, params)});
    std::vector<Value> out_leaves;
    TreeDef out_def = Flatten(interp, result, out_leaves);
    if (!SameStructure(def, out_def, interp)) {
      interp.Raise(interp.types().type_error,
                   fmt::format("body_fun output and input must have the same structure: the "
                               "carry is {} but body_fun returned {}",
                               def.ToString(interp), out_def.ToString(interp)));
    }
    return MatchTypes(*trace, LiftLeaves(*trace, out_leaves, "a while_loop carry"), carry_types,
                      "body_fun output and input must have identical types");
  });
  Instr& instr = trace->Emit(Op::kWhile, inits, carry_types);
  instr.regions.push_back(std::move(cond_region));
  instr.regions.push_back(std::move(body_region));
  return Unflatten(interp, def, Tracers(*trace, instr.results));
}

namespace {

// Traces each branch (called with `operands`) into a region; all must agree on the result.
Value Branches(Interpreter& interp, Trace& trace, Op op, ValueId selector,
               const std::vector<Value>& branches, const std::vector<Value>& operands,
               const char* fn_name) {
  std::optional<TreeDef> def;
  std::vector<ValueType> types;
  std::vector<Region> regions;
  for (size_t b = 0; b < branches.size(); ++b) {
    regions.push_back(trace.TraceRegion({}, [&](std::vector<Value>) {
      Value result = interp.Call(branches[b], operands);
      std::vector<Value> leaves;
      TreeDef out = Flatten(interp, result, leaves);
      std::vector<ValueId> ids = LiftLeaves(trace, leaves, "a branch result");
      if (!def) {
        def = out;
        types = StrongTypes(trace, ids);
        return ids;
      }
      if (!SameStructure(*def, out, interp)) {
        interp.Raise(interp.types().type_error,
                     fmt::format("{} branches must return the same structure: {} and {}", fn_name,
                                 def->ToString(interp), out.ToString(interp)));
      }
      return MatchTypes(trace, ids, types,
                        fmt::format("{} branch outputs must have identical types", fn_name));
    }));
  }
  Instr& instr = trace.Emit(op, {selector}, types);
  instr.regions = std::move(regions);
  return Unflatten(interp, *def, Tracers(trace, instr.results));
}

}  // namespace

Value Cond(Interpreter& interp, const Value& pred, const Value& true_fun, const Value& false_fun,
           const std::vector<Value>& operands) {
  Trace* trace = CurrentTrace(interp);
  if (trace == nullptr) {
    return interp.Call(interp.Truthy(pred) ? true_fun : false_fun, operands);
  }
  ValueId id = trace->Lift(pred, "the predicate of lax.cond");
  const ValueType& t = trace->type(id);
  if (!t.shape.empty()) {
    interp.Raise(interp.types().type_error,
                 fmt::format("Pred must be a scalar, got {}", TypeToString(t)));
  }
  return Branches(interp, *trace, Op::kCond, id, {true_fun, false_fun}, operands, "lax.cond");
}

Value Switch(Interpreter& interp, const Value& index, const std::vector<Value>& branches,
             const std::vector<Value>& operands) {
  if (branches.empty()) {
    interp.Raise(interp.types().value_error, "Empty branch sequence");
  }
  Trace* trace = CurrentTrace(interp);
  if (trace == nullptr) {
    int64_t i = eval::ToIndex(interp, index);
    i = std::clamp<int64_t>(i, 0, static_cast<int64_t>(branches.size()) - 1);
    return interp.Call(branches[i], operands);
  }
  ValueId id = IntScalar(*trace, index, "the index of lax.switch");
  return Branches(interp, *trace, Op::kSwitch, id, branches, operands, "lax.switch");
}

void When(Interpreter& interp, const Value& condition, const Value& body) {
  Trace* trace = CurrentTrace(interp);
  if (trace == nullptr || IsStatic(condition)) {
    if (interp.Truthy(condition)) interp.Call(body, std::vector<Value>{});
    return;
  }
  ValueId id = trace->Lift(condition, "the condition of pl.when");
  const ValueType& t = trace->type(id);
  if (!t.shape.empty()) {
    interp.Raise(interp.types().type_error,
                 fmt::format("the condition of pl.when must be a scalar, got {}", TypeToString(t)));
  }
  Region then = trace->TraceRegion({}, [&](std::vector<Value>) {
    interp.Call(body, std::vector<Value>{});
    return std::vector<ValueId>{};
  });
  Instr& instr = trace->Emit(Op::kCond, {id}, {});
  instr.regions.push_back(std::move(then));
  instr.regions.emplace_back();
}

void DebugPrint(Interpreter& interp, const std::string& format, const std::vector<Value>& args,
                const std::vector<std::pair<std::string, Value>>& kwargs) {
  auto render = [format](Interpreter& interp, std::vector<Value> positional,
                         std::vector<std::pair<std::string, Value>> keywords) {
    Value method = interp.GetAttr(eval::MakeStr(format), "format");
    Value text = interp.Call(method, CallArgs{.positional = std::move(positional),
                                              .keywords = std::move(keywords),
                                              .span = interp.current_span()});
    interp.Print(interp.Str(text) + "\n");
  };
  Trace* trace = CurrentTrace(interp);
  if (trace == nullptr) {
    render(interp, args, kwargs);
    return;
  }
  // Traced: array-like arguments become operands, the rest stay as given.
  std::vector<ValueId> operands;
  std::vector<int> where;  // per operand: positional index, or -(keyword index + 1)
  for (size_t i = 0; i < args.size(); ++i) {
    if (std::optional<ValueId> id = trace->TryLift(args[i])) {
      operands.push_back(*id);
      where.push_back(static_cast<int>(i));
    }
  }
  for (size_t i = 0; i < kwargs.size(); ++i) {
    if (std::optional<ValueId> id = trace->TryLift(kwargs[i].second)) {
      operands.push_back(*id);
      where.push_back(-static_cast<int>(i) - 1);
    }
  }
  Instr& instr = trace->Emit(Op::kDebugPrint, operands, {});
  instr.text = format;
  Interpreter* ip = &interp;
  // Operand positions are refilled at every run; drop the tracers so the IR does not keep its
  // trace alive.
  std::vector<Value> args_template = args;
  auto kwargs_template = kwargs;
  for (int w : where) {
    if (w >= 0) {
      args_template[w] = Value();
    } else {
      kwargs_template[-w - 1].second = Value();
    }
  }
  instr.callback = std::make_shared<const CallbackFn>(
      [render, args = std::move(args_template), kwargs = std::move(kwargs_template), where,
       ip](const std::vector<array::Array>& values) {
        std::vector<Value> positional = args;
        auto keywords = kwargs;
        for (size_t k = 0; k < where.size(); ++k) {
          Value v = eval::WrapArray(values[k]);
          if (where[k] >= 0) {
            positional[where[k]] = v;
          } else {
            keywords[-where[k] - 1].second = v;
          }
        }
        render(*ip, std::move(positional), std::move(keywords));
      });
}

void RunPrint(const Instr& print, const std::vector<array::Array>& values) {
  try {
    (*print.callback)(values);
  } catch (eval::PyError& error) {
    if (error.exception && print.span.valid()) {
      error.exception->span = print.span;
      error.exception->traceback.clear();
    }
    throw;
  }
}

}  // namespace pz::kernel

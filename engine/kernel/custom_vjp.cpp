// jax.custom_vjp under a differentiation: the fwd rule runs and the call is kept as one step of
// the tape, whose backward pass calls the bwd rule and checks what it returns as JAX does.
#include <fmt/format.h>

#include "array/creation.h"
#include "array/vjp.h"
#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "eval/scope.h"
#include "kernel/autodiff.h"
#include "kernel/tape.h"

namespace pz::kernel {

using eval::CallArgs;
using eval::Interpreter;

namespace {

// The arguments of a call to `fun` as positions (JAX's resolve_kwargs): keywords bound to the
// parameters they name, defaults filled in.
std::vector<Value> ResolvePositions(Interpreter& interp, const Value& fun, const CallArgs& args,
                                    std::vector<std::string>* names) {
  auto* function = fun.as<eval::FunctionObject>();
  if (function == nullptr || function->code->params == nullptr) {
    if (!args.keywords.empty()) {
      interp.Raise(interp.types().type_error,
                   "keyword arguments could not be resolved to positions");
    }
    return args.positional;
  }
  const auto& params = function->code->params->params;
  std::vector<std::optional<Value>> values;
  for (size_t i = 0; i < params.size(); ++i) {
    const lang::Param& p = params[i];
    if (p.kind != lang::ParamKind::kPositionalOnly && p.kind != lang::ParamKind::kNormal &&
        p.kind != lang::ParamKind::kKeywordOnly) {
      break;
    }
    if (names) names->push_back(p.name);
    std::optional<Value> v;
    if (i < args.positional.size()) v = args.positional[i];
    for (const auto& [name, value] : args.keywords) {
      if (name == p.name) v = value;
    }
    if (!v && function->has_default[i]) v = function->defaults[i];
    if (!v) {
      interp.Raise(interp.types().type_error,
                   fmt::format("missing a required argument: '{}'", p.name));
    }
    values.push_back(v);
  }
  if (args.positional.size() > values.size()) {
    interp.Raise(interp.types().type_error, "too many positional arguments");
  }
  for (const auto& [name, value] : args.keywords) {
    bool known = false;
    for (size_t i = 0; i < values.size(); ++i) known = known || params[i].name == name;
    if (!known) {
      interp.Raise(interp.types().type_error,
                   fmt::format("got an unexpected keyword argument '{}'", name));
    }
  }
  std::vector<Value> positional;
  for (auto& v : values) positional.push_back(*v);
  return positional;
}

std::string FunctionName(Interpreter& interp, const Value& fun) {
  std::optional<Value> name = interp.TryGetAttr(fun, "__name__");
  return name && name->as<eval::StrObject>() ? interp.Str(*name) : interp.Repr(fun);
}

// Appends to `cts` the cotangents of the leaves of an argument of structure `arg` from a bwd
// rule's entry for it (structure `got`, None as leaves): a None gives none for the whole
// subtree it stands for. False when the structures differ.
bool MatchCotangent(const TreeDef& arg, const TreeDef& got, const std::vector<Value>& leaves,
                    size_t& next, std::vector<std::optional<Array>>& cts) {
  if (got.kind == TreeDef::Kind::kLeaf && leaves[next].is_none()) {
    ++next;
    cts.resize(cts.size() + arg.num_leaves());
    return true;
  }
  if (arg.kind == TreeDef::Kind::kLeaf) {
    if (got.kind != TreeDef::Kind::kLeaf) return false;
    auto* a = leaves[next++].as<eval::ArrayObject>();
    if (a == nullptr) return false;
    cts.push_back(a->value);
    return true;
  }
  if (arg.kind != got.kind || arg.children.size() != got.children.size()) return false;
  for (size_t i = 0; i < arg.children.size(); ++i) {
    if (!MatchCotangent(arg.children[i], got.children[i], leaves, next, cts)) return false;
  }
  return true;
}

// Which differentiable argument (its index) holds leaf `leaf` of `args`.
size_t LeafArgument(const TreeDef& args, size_t leaf) {
  for (size_t i = 0; i < args.children.size(); ++i) {
    size_t n = args.children[i].num_leaves();
    if (leaf < n) return i;
    leaf -= n;
  }
  return 0;
}

}  // namespace

std::vector<std::optional<Array>> CustomBackward(Interpreter& interp, const CustomRule& rule,
                                                 const std::vector<Array>& out_values,
                                                 const std::vector<std::optional<Array>>& cts) {
  if (rule.linear) {
    // custom_jvp: the transpose of the rule's tangent map.
    std::vector<int> seeded;
    std::vector<Array> seeds;
    for (size_t i = 0; i < cts.size() && i < rule.linear_out.size(); ++i) {
      if (!cts[i] || rule.linear_out[i] < 0) continue;
      seeded.push_back(rule.linear_out[i]);
      seeds.push_back(*cts[i]);
    }
    (void)out_values;
    return rule.linear->Backward(interp, seeded, seeds, rule.linear_in);
  }
  if (InJvpPass()) {
    interp.Raise(interp.types().type_error,
                 "can't apply forward-mode autodiff (jvp) to a custom_vjp function.");
  }
  std::vector<Value> ct_leaves;
  for (size_t i = 0; i < rule.out_leaves.size(); ++i) {
    if (cts[i]) {
      ct_leaves.push_back(eval::WrapArray(*cts[i]));
    } else {
      const Array& out = out_values[i];
      ct_leaves.push_back(eval::WrapArray(array::Zeros(out.shape(), out.dtype())));
    }
  }
  size_t next = 0;
  Value ct_tree = Unflatten(interp, rule.out_def, ct_leaves, next);
  std::vector<Value> call = rule.nondiff;
  call.push_back(rule.residuals);
  call.push_back(ct_tree);
  Value result;
  {
    array::ScopedPrimRecorder paused(nullptr);
    result = interp.Call(rule.bwd, std::move(call));
  }
  size_t num_args = rule.args_def.children.size();
  std::vector<Value> entries;
  bool tuple =
      result.as<eval::TupleObject>() != nullptr || result.as<eval::ListObject>() != nullptr;
  if (tuple) entries = interp.ToVector(result);
  std::vector<Value> ignored;
  TreeDef got_def = Flatten(interp, result, ignored);
  if (!tuple || entries.size() != num_args) {
    const TreeDef& got = got_def;
    interp.Raise(interp.types().type_error,
                 fmt::format("Custom VJP bwd rule must produce an output with the same container "
                             "(pytree) structure as the args tuple of the primal function, and in "
                             "particular must produce a tuple of length equal to the number of "
                             "arguments to the primal function, but got bwd output structure "
                             "PyTreeDef({}) "
                             "for primal input structure PyTreeDef({}).",
                             got.ToString(interp), rule.args_def.ToString(interp)));
  }
  // Each entry matched against its argument's structure; None stands for zeros of a whole
  // subtree, as in JAX.
  Value none_is_leaf = interp.MakeBuiltin("is_none", [](Interpreter& interp, CallArgs& args) {
    return Value::Bool(eval::OneArg(interp, "is_none", args).is_none());
  });
  std::vector<std::optional<Array>> in_cts;
  for (size_t i = 0; i < num_args; ++i) {
    const TreeDef& arg_def = rule.args_def.children[i];
    std::vector<Value> leaves;
    TreeDef def = Flatten(interp, entries[i], leaves, none_is_leaf);
    size_t next = 0;
    if (!MatchCotangent(arg_def, def, leaves, next, in_cts)) {
      interp.Raise(interp.types().type_error,
                   fmt::format("Custom VJP bwd rule must produce an output with the same "
                               "container (pytree) structure as the args tuple of the primal "
                               "function, and in particular must produce a tuple of length equal "
                               "to the number of arguments to the primal function, but got bwd "
                               "output structure PyTreeDef({}) for primal input structure "
                               "PyTreeDef({}).",
                               got_def.ToString(interp), rule.args_def.ToString(interp)));
    }
  }
  for (size_t k = 0; k < in_cts.size(); ++k) {
    const Value& primal = rule.arg_leaves[k];
    auto* p = primal.as<eval::ArrayObject>();
    if (!in_cts[k]) continue;
    if (p == nullptr || !array::Differentiable(p->value.dtype())) {
      in_cts[k].reset();
      continue;
    }
    const Array& g = *in_cts[k];
    if (!array::SameDims(g.shape(), p->value.shape())) {
      interp.Raise(
          interp.types().value_error,
          fmt::format("Custom VJP bwd rule must produce an output with the same type "
                      "as the args tuple of the primal function, but at output[{}] "
                      "the bwd rule produced an output of type {} corresponding to an "
                      "input of type {}, so the shapes do not match",
                      LeafArgument(rule.args_def, k), AvalString(g), AvalString(p->value)));
    }
    if (g.dtype() != p->value.dtype()) in_cts[k] = g.AsType(p->value.dtype());
  }
  return in_cts;
}

namespace {

// A custom-derivative function called while a differentiation listens: its arguments as
// positions, split into the nondiff ones and the differentiable ones (flattened), and the tape
// slots of the latter. `followed` is false when the tape follows none of them.
struct FollowedCall {
  std::vector<Value> positional;
  std::shared_ptr<CustomRule> rule;
  std::vector<int> in;
  std::vector<Array> in_values;
  bool followed = false;
};

FollowedCall ReadFollowedCall(Interpreter& interp, Tape& tape, const Value& fun,
                              const Value& nondiff_argnums, const Value& nondiff_argnames,
                              CallArgs& args) {
  FollowedCall call;
  std::vector<std::string> names;
  call.positional = ResolvePositions(interp, fun, args, &names);
  std::vector<bool> nondiff(call.positional.size(), false);
  if (!nondiff_argnums.is_none()) {
    for (const Value& n : interp.ToVector(nondiff_argnums)) {
      int64_t at = n.as_int();
      if (at >= 0 && at < static_cast<int64_t>(nondiff.size())) {
        nondiff[static_cast<size_t>(at)] = true;
      }
    }
  }
  if (!nondiff_argnames.is_none()) {
    for (const Value& n : interp.ToVector(nondiff_argnames)) {
      std::string name = interp.Str(n);
      for (size_t i = 0; i < names.size() && i < nondiff.size(); ++i) {
        if (names[i] == name) nondiff[i] = true;
      }
    }
  }
  call.rule = std::make_shared<CustomRule>();
  call.rule->name = FunctionName(interp, fun);
  std::vector<Value> diff_args;
  for (size_t i = 0; i < call.positional.size(); ++i) {
    (nondiff[i] ? call.rule->nondiff : diff_args).push_back(call.positional[i]);
  }
  call.rule->args_def = Flatten(interp, eval::MakeTuple(diff_args), call.rule->arg_leaves);
  for (const Value& leaf : call.rule->arg_leaves) {
    auto* a = leaf.as<eval::ArrayObject>();
    int slot = a != nullptr ? tape.Find(a->value) : -1;
    call.followed = call.followed || slot >= 0;
    call.in.push_back(slot);
    call.in_values.push_back(a != nullptr ? a->value : Array());
  }
  return call;
}

// The output leaves of a custom call, each with storage of its own, so that an output that is
// an input passed through is followed as the output.
std::vector<Array> FreshOutputs(std::vector<Value>& leaves) {
  std::vector<Array> outputs;
  for (Value& leaf : leaves) {
    auto* a = leaf.as<eval::ArrayObject>();
    if (a == nullptr) {
      outputs.emplace_back();
      continue;
    }
    Array copy = FreshCopy(a->value);
    outputs.push_back(copy);
    leaf = eval::WrapArray(copy);
  }
  return outputs;
}

}  // namespace

std::optional<Value> CallCustomVjp(Interpreter& interp, const Value& fun, const Value& fwd,
                                   const Value& bwd, const Value& nondiff_argnums,
                                   const Value& nondiff_argnames, CallArgs& args) {
  Tape* tape = ActiveTape();
  if (tape == nullptr) return std::nullopt;
  FollowedCall call = ReadFollowedCall(interp, *tape, fun, nondiff_argnums, nondiff_argnames, args);
  if (!call.followed) return std::nullopt;
  std::shared_ptr<CustomRule>& rule = call.rule;
  std::vector<Value>& positional = call.positional;
  std::vector<int>& in = call.in;
  std::vector<Array>& in_values = call.in_values;
  if (fwd.is_none() || bwd.is_none()) {
    interp.Raise(
        interp.types().attribute_error,
        fmt::format("No VJP defined for custom_vjp function {} using defvjp.", rule->name));
  }
  Value result;
  {
    array::ScopedPrimRecorder paused(nullptr);
    result = interp.Call(fwd, positional);
  }
  bool pair =
      (result.as<eval::TupleObject>() != nullptr || result.as<eval::ListObject>() != nullptr) &&
      interp.Len(result) == 2;
  if (!pair) {
    std::string fwd_name = FunctionName(interp, fwd);
    interp.Raise(interp.types().type_error,
                 fmt::format("Custom VJP fwd rule {} for function {} must produce a pair (list or "
                             "tuple of length two) where the first element represents the primal "
                             "output (equal to those of the custom_vjp-decorated function {}) and "
                             "the second element represents residuals (i.e. values stored from "
                             "the forward pass for use on the backward pass), but instead of a "
                             "pair the fwd rule {} produced {}.",
                             fwd_name, rule->name, rule->name, fwd_name, interp.Str(result)));
  }
  std::vector<Value> items = interp.ToVector(result);
  rule->residuals = items[1];
  rule->bwd = bwd;
  rule->out_def = Flatten(interp, items[0], rule->out_leaves);
  std::vector<Array> outputs = FreshOutputs(rule->out_leaves);
  tape->RecordCustom(rule, std::move(in), std::move(in_values), outputs);
  size_t next = 0;
  return Unflatten(interp, rule->out_def, rule->out_leaves, next);
}

std::optional<Value> CallCustomJvp(Interpreter& interp, const Value& fun, const Value& jvp,
                                   const Value& nondiff_argnums, CallArgs& args) {
  Tape* tape = ActiveTape();
  if (tape == nullptr) return std::nullopt;
  FollowedCall call = ReadFollowedCall(interp, *tape, fun, nondiff_argnums, Value(), args);
  if (!call.followed) return std::nullopt;
  CustomRule& rule = *call.rule;
  if (jvp.is_none()) {
    interp.Raise(interp.types().attribute_error,
                 fmt::format("No JVP defined for custom_jvp function {} using defjvp.", rule.name));
  }
  if (jvp.as<eval::TupleObject>() != nullptr) {
    interp.RaiseWithNotes(interp.types().not_implemented_error,
                          fmt::format("the rules of custom_jvp function {} were given with "
                                      "defjvps, which this emulator does not differentiate with",
                                      rule.name),
                          {"give one rule with defjvp: `@f.defjvp` on a function of (primals, "
                           "tangents)"});
  }
  // The jvp rule runs on the primals and on zero tangents that a tape of its own follows: the
  // tangent outputs are a linear function of the tangents, and that tape's backward pass is
  // its transpose.
  rule.linear = std::make_shared<Tape>();
  std::vector<Value> tangent_leaves;
  for (const Value& leaf : rule.arg_leaves) {
    Array primal = LeafArray(interp, leaf);
    Array tangent = array::Zeros(primal.shape(), primal.dtype());
    rule.linear_in.push_back(array::Differentiable(tangent.dtype()) ? rule.linear->AddInput(tangent)
                                                                    : -1);
    tangent_leaves.push_back(eval::WrapArray(tangent));
  }
  size_t next = 0;
  Value tangents = Unflatten(interp, rule.args_def, tangent_leaves, next);
  std::vector<Value> primal_args;
  {
    std::vector<Value> leaves = rule.arg_leaves;
    size_t at = 0;
    Value primals = Unflatten(interp, rule.args_def, leaves, at);
    primal_args = rule.nondiff;
    primal_args.push_back(primals);
    primal_args.push_back(tangents);
  }
  Value result;
  {
    array::ScopedPrimRecorder listen(rule.linear.get());
    result = interp.Call(jvp, std::move(primal_args));
  }
  bool pair =
      (result.as<eval::TupleObject>() != nullptr || result.as<eval::ListObject>() != nullptr) &&
      interp.Len(result) == 2;
  if (!pair) {
    interp.Raise(interp.types().type_error,
                 fmt::format("Custom JVP rule {} for function {} must produce a pair (list or "
                             "tuple of length two) representing primal and tangent outputs, but "
                             "got {}.",
                             FunctionName(interp, jvp), rule.name, interp.Repr(result)));
  }
  std::vector<Value> items = interp.ToVector(result);
  std::vector<Value> tangent_out;
  rule.out_def = Flatten(interp, items[0], rule.out_leaves);
  TreeDef tangent_def = Flatten(interp, items[1], tangent_out);
  if (!SameStructure(rule.out_def, tangent_def, interp)) {
    interp.Raise(interp.types().type_error,
                 fmt::format("Custom JVP rule must produce primal and tangent outputs with equal "
                             "container (pytree) structures, but got {} and {} respectively.",
                             rule.out_def.ToString(interp), tangent_def.ToString(interp)));
  }
  for (const Value& leaf : tangent_out) {
    auto* a = leaf.as<eval::ArrayObject>();
    rule.linear_out.push_back(a != nullptr ? rule.linear->Find(a->value) : -1);
  }
  std::vector<Array> outputs = FreshOutputs(rule.out_leaves);
  tape->RecordCustom(call.rule, std::move(call.in), std::move(call.in_values), outputs);
  next = 0;
  return Unflatten(interp, rule.out_def, rule.out_leaves, next);
}

}  // namespace pz::kernel

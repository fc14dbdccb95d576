// jax.grad, jax.value_and_grad, jax.vjp, jax.jvp and lax.stop_gradient on a tape of the
// primitives an eager run calls (see autodiff.h).
#include "kernel/autodiff.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_set>

#include "array/creation.h"
#include "array/prims.h"
#include "array/vjp.h"
#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "eval/scope.h"
#include "kernel/pytree.h"
#include "kernel/transforms.h"
#include "support/check.h"

namespace pz::kernel {

using array::Array;
using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

namespace {

// `float32[3,4]`: an abstract value as JAX's messages print it.
std::string AvalString(const Array& a) {
  std::string dims;
  for (size_t i = 0; i < a.shape().size(); ++i) {
    dims += fmt::format("{}{}", i ? "," : "", a.shape()[i]);
  }
  return fmt::format("{}[{}]", array::DTypeName(a.dtype()), dims);
}

// A copy of `a` in storage of its own (a differentiated input must not share its identity with
// the caller's value).
Array FreshCopy(const Array& a) {
  Array copy = Array::Empty(a.dtype(), a.shape());
  copy.Assign(a);
  copy.set_weak_type(a.weak_type());
  return copy;
}

// ---- The tape --------------------------------------------------------------------------------

// What a jax.custom_vjp call keeps for its backward pass.
struct CustomRule {
  std::string name;           // the function's name, for messages
  Value bwd;                  // bwd(*nondiff, residuals, cotangents)
  std::vector<Value> nondiff;  // the nondiff arguments, in order
  Value residuals;
  TreeDef args_def;            // the tuple of differentiable arguments
  std::vector<Value> arg_leaves;  // its leaves
  TreeDef out_def;
  std::vector<Value> out_leaves;
};

class Tape final : public array::PrimRecorder {
 public:
  struct Step {
    array::PrimCall call;
    std::shared_ptr<CustomRule> custom;  // set for a custom_vjp call
    std::vector<int> in, out;            // slots; -1 for a value the tape does not follow
    std::vector<Array> in_values, out_values;
  };

  // A new followed value (an input of the differentiated function).
  int AddInput(const Array& value) { return NewSlot(value); }

  // The slot of a followed value, or -1.
  int Find(const Array& value) {
    if (value.storage() == nullptr) return -1;
    auto it = index_.find(KeyOf(value));
    if (it != index_.end()) return it->second;
    if (storages_.count(value.storage()) != 0 && !problem_) {
      problem_ = fmt::format(
          "a {} view of a differentiated value was made by an operation this emulator does not "
          "record as a primitive",
          AvalString(value));
    }
    return -1;
  }

  void Record(array::PrimCall call, const std::vector<Array>& inputs,
              const std::vector<Array>& outputs) override {
    std::vector<int> in;
    bool followed = false;
    for (const Array& a : inputs) {
      in.push_back(Find(a));
      followed = followed || in.back() >= 0;
    }
    if (!followed) return;
    AddStep(Step{.call = std::move(call), .in = std::move(in), .in_values = inputs}, outputs);
  }

  void RecordCustom(std::shared_ptr<CustomRule> rule, std::vector<int> in,
                    std::vector<Array> in_values, const std::vector<Array>& outputs) {
    AddStep(Step{.custom = std::move(rule), .in = std::move(in), .in_values = std::move(in_values)},
            outputs);
  }

  const std::optional<std::string>& problem() const { return problem_; }
  const Array& value(int slot) const { return slots_[static_cast<size_t>(slot)]; }

  // The cotangents of `wanted` slots given those of `seeded` slots (cotangents[i] for
  // seeded[i]); nullopt where a wanted slot receives none (it does not affect the seeded ones).
  std::vector<std::optional<Array>> Backward(Interpreter& interp, const std::vector<int>& seeded,
                                             const std::vector<Array>& cotangents,
                                             const std::vector<int>& wanted) const;

 private:
  using Key = std::tuple<const void*, int64_t, array::Shape, std::vector<int64_t>, array::DType>;
  static Key KeyOf(const Array& a) {
    return {a.storage(), a.offset(), a.shape(), a.strides(), a.dtype()};
  }
  int NewSlot(const Array& value) {
    slots_.push_back(value);
    int slot = static_cast<int>(slots_.size()) - 1;
    index_[KeyOf(value)] = slot;
    storages_.insert(value.storage());
    return slot;
  }
  void AddStep(Step step, const std::vector<Array>& outputs) {
    for (const Array& a : outputs) {
      // Integer and boolean results carry no cotangent: the tape stops following there.
      step.out.push_back(array::Differentiable(a.dtype()) && a.storage() != nullptr ? NewSlot(a)
                                                                                    : -1);
    }
    step.out_values = outputs;
    steps_.push_back(std::move(step));
  }

  std::vector<Array> slots_;
  std::vector<Step> steps_;
  std::map<Key, int> index_;
  std::unordered_set<const void*> storages_;
  std::optional<std::string> problem_;
};

// Set while jax.jvp records a backward pass (custom_vjp rules have no forward mode).
thread_local bool t_jvp_pass = false;

// The tape listening on this thread, or nullptr.
Tape* ActiveTape() { return dynamic_cast<Tape*>(array::detail::ActiveRecorder()); }

// The cotangents of a custom_vjp step's differentiable argument leaves, from its bwd rule.
std::vector<std::optional<Array>> CustomBackward(Interpreter& interp, const CustomRule& rule,
                                                 const std::vector<Array>& out_values,
                                                 const std::vector<std::optional<Array>>& cts);

void Accumulate(std::optional<Array>& into, const Array& ct) {
  if (!into) {
    into = ct;
  } else {
    into = array::Binary(array::BinaryOp::kAdd, *into, ct);
  }
}

std::vector<std::optional<Array>> Tape::Backward(Interpreter& interp,
                                                 const std::vector<int>& seeded,
                                                 const std::vector<Array>& cotangents,
                                                 const std::vector<int>& wanted) const {
  std::vector<std::optional<Array>> ct(slots_.size());
  for (size_t i = 0; i < seeded.size(); ++i) {
    if (seeded[i] >= 0) Accumulate(ct[static_cast<size_t>(seeded[i])], cotangents[i]);
  }
  for (size_t s = steps_.size(); s-- > 0;) {
    const Step& step = steps_[s];
    std::vector<std::optional<Array>> out_cts;
    bool any = false;
    for (int slot : step.out) {
      out_cts.push_back(slot >= 0 ? ct[static_cast<size_t>(slot)] : std::nullopt);
      any = any || out_cts.back().has_value();
    }
    if (!any) continue;
    std::vector<std::optional<Array>> in_cts;
    if (step.custom) {
      in_cts = CustomBackward(interp, *step.custom, step.out_values, out_cts);
    } else {
      try {
        in_cts = array::Vjp(step.call, step.in_values, step.out_values, out_cts);
      } catch (const array::VjpUnsupported& e) {
        interp.RaiseWithNotes(
            interp.types().not_implemented_error,
            fmt::format("Differentiation rule for '{}' not implemented: {}", e.prim, e.why),
            {"this emulator differentiates jax.numpy arithmetic, reductions, dots, indexing and "
             "shape operations; wrap the rest in jax.custom_vjp with your own backward rule"});
      } catch (const array::ArrayError& e) {
        eval::GuardArrayOp(interp, [&]() -> int { throw e; });
      }
    }
    for (size_t k = 0; k < step.in.size() && k < in_cts.size(); ++k) {
      if (step.in[k] >= 0 && in_cts[k]) Accumulate(ct[static_cast<size_t>(step.in[k])], *in_cts[k]);
    }
  }
  std::vector<std::optional<Array>> result;
  for (int slot : wanted) result.push_back(slot >= 0 ? ct[static_cast<size_t>(slot)] : std::nullopt);
  return result;
}

// ---- Running a function on a tape -------------------------------------------------------------

// A function run on a tape: its differentiated arguments and its output.
struct Linearized {
  std::shared_ptr<Tape> tape;
  std::vector<TreeDef> arg_defs;          // one per differentiated argument
  std::vector<std::vector<Value>> arg_leaves;  // their leaves (fresh arrays)
  std::vector<std::vector<int>> arg_slots;
  Value out;                  // the output (without aux)
  std::optional<Value> aux;
  TreeDef out_def;
  std::vector<Value> out_leaves;
  std::vector<int> out_slots;  // -1 for a leaf the tape does not follow
};

// A leaf of a differentiated argument as the array the function receives (JAX's canonical
// dtype: Python scalars are weak float32 / int32).
Array LeafArray(Interpreter& interp, const Value& leaf) {
  return eval::GuardArrayOp(interp, [&] { return eval::ToArray(interp, leaf); });
}

Linearized Linearize(Interpreter& interp, const Value& fun, CallArgs args,
                     const std::vector<size_t>& argnums, bool has_aux, std::string_view who,
                     bool require_float) {
  Linearized lin;
  lin.tape = std::make_shared<Tape>();
  Tape* outer = ActiveTape();
  for (size_t argnum : argnums) {
    std::vector<Value> leaves;
    TreeDef def = Flatten(interp, args.positional[argnum], leaves);
    std::vector<int> slots;
    for (Value& leaf : leaves) {
      Array a = LeafArray(interp, leaf);
      if (outer != nullptr && outer->Find(a) >= 0) {
        interp.RaiseWithNotes(
            interp.types().not_implemented_error,
            fmt::format("{} of a value that an enclosing differentiation follows (higher-order "
                        "differentiation) is not supported by this emulator",
                        who),
            {"differentiate once: compute the inner derivative by hand or with a custom_vjp"});
      }
      if (require_float && !array::Differentiable(a.dtype())) {
        interp.Raise(interp.types().type_error,
                     fmt::format("{} requires real- or complex-valued inputs (input dtype that is "
                                 "a sub-dtype of np.inexact), but got {}. If you want to use "
                                 "Boolean- or integer-valued inputs, use vjp or set allow_int to "
                                 "True.",
                                 who, array::DTypeName(a.dtype())));
      }
      Array copy = FreshCopy(a);
      slots.push_back(array::Differentiable(copy.dtype()) ? lin.tape->AddInput(copy) : -1);
      leaf = eval::WrapArray(copy);
    }
    size_t next = 0;
    args.positional[argnum] = Unflatten(interp, def, leaves, next);
    lin.arg_defs.push_back(std::move(def));
    lin.arg_leaves.push_back(std::move(leaves));
    lin.arg_slots.push_back(std::move(slots));
  }
  Value result;
  {
    array::ScopedPrimRecorder listen(lin.tape.get());
    result = interp.Call(fun, std::move(args));
  }
  lin.out = result;
  if (has_aux) {
    bool pair = (result.as<eval::TupleObject>() != nullptr ||
                 result.as<eval::ListObject>() != nullptr) &&
                interp.Len(result) == 2;
    if (!pair) {
      interp.Raise(interp.types().type_error,
                   fmt::format("expected function with aux output to return a two-element tuple, "
                               "but got type {} with value {}",
                               fmt::format("<class '{}'>", interp.TypeOf(result)->name), interp.Repr(result)));
    }
    std::vector<Value> items = interp.ToVector(result);
    lin.out = items[0];
    lin.aux = items[1];
  }
  lin.out_def = Flatten(interp, lin.out, lin.out_leaves);
  for (const Value& leaf : lin.out_leaves) {
    auto* a = leaf.as<eval::ArrayObject>();
    lin.out_slots.push_back(a != nullptr ? lin.tape->Find(a->value) : -1);
  }
  if (lin.tape->problem()) {
    interp.RaiseWithNotes(
        interp.types().not_implemented_error,
        fmt::format("{} cannot differentiate this function: {}", who, *lin.tape->problem()),
        {"build the function from jax.numpy and jax.lax operations, or give the step a "
         "jax.custom_vjp"});
  }
  return lin;
}

// The cotangents of the differentiated arguments, as the arguments' pytrees (zeros where the
// output does not depend on a leaf).
std::vector<Value> ArgCotangents(Interpreter& interp, const Linearized& lin,
                                 const std::vector<Array>& out_cts) {
  std::vector<int> wanted;
  for (const auto& slots : lin.arg_slots) wanted.insert(wanted.end(), slots.begin(), slots.end());
  std::vector<std::optional<Array>> cts =
      lin.tape->Backward(interp, lin.out_slots, out_cts, wanted);
  std::vector<Value> result;
  size_t k = 0;
  for (size_t i = 0; i < lin.arg_defs.size(); ++i) {
    std::vector<Value> leaves;
    for (const Value& leaf : lin.arg_leaves[i]) {
      const Array& a = leaf.as<eval::ArrayObject>()->value;
      std::optional<Array>& ct = cts[k++];
      Array g = ct ? *ct : array::Zeros(a.shape(), a.dtype());
      if (g.dtype() != a.dtype()) g = g.AsType(a.dtype());
      g.set_weak_type(a.weak_type());
      leaves.push_back(eval::WrapArray(g));
    }
    size_t next = 0;
    result.push_back(Unflatten(interp, lin.arg_defs[i], leaves, next));
  }
  return result;
}

// argnums as a list, and whether it was a single int.
std::pair<std::vector<size_t>, bool> ArgNums(Interpreter& interp, const Value& spec,
                                             size_t num_args, std::string_view who) {
  std::vector<int64_t> raw;
  bool single = spec.is_int();
  if (single) {
    raw.push_back(spec.as_int());
  } else {
    for (const Value& v : interp.ToVector(spec)) {
      if (!v.is_int()) interp.Raise(interp.types().type_error, "argnums must be ints");
      raw.push_back(v.as_int());
    }
  }
  std::vector<size_t> nums;
  for (int64_t n : raw) {
    int64_t at = n < 0 ? n + static_cast<int64_t>(num_args) : n;
    if (at < 0 || at >= static_cast<int64_t>(num_args)) {
      int64_t max = *std::max_element(raw.begin(), raw.end());
      interp.Raise(interp.types().type_error,
                   fmt::format("differentiating with respect to argnums={} requires at least {} "
                               "positional arguments to be passed by the caller, but got only {} "
                               "positional arguments.",
                               interp.Repr(spec), max + 1, num_args));
    }
    nums.push_back(static_cast<size_t>(at));
  }
  (void)who;
  return {nums, single};
}

// ---- jax.grad / jax.value_and_grad -------------------------------------------------------------

Value MakeGrad(Interpreter& interp, Value fun, Value argnums, bool has_aux, bool with_value) {
  std::string who = with_value ? "value_and_grad" : "grad";
  return interp.MakeBuiltin(who, [=](Interpreter& interp, CallArgs& args) -> Value {
    auto [nums, single] = ArgNums(interp, argnums, args.positional.size(), who);
    Linearized lin = Linearize(interp, fun, args, nums, has_aux, "grad", true);
    const Value& out = lin.out;
    auto* out_array = out.as<eval::ArrayObject>();
    if (lin.out_leaves.size() != 1 || (out_array == nullptr && !out.is_number())) {
      interp.Raise(interp.types().type_error,
                   fmt::format("Gradient only defined for scalar-output functions. Output was {}.",
                               interp.Repr(out)));
    }
    Array value = LeafArray(interp, out);
    if (value.rank() != 0) {
      interp.Raise(interp.types().type_error,
                   fmt::format("Gradient only defined for scalar-output functions. Output had "
                               "shape: {}.",
                               array::ShapeToString(value.shape())));
    }
    if (!array::Differentiable(value.dtype())) {
      interp.Raise(interp.types().type_error,
                   fmt::format("grad requires real-valued outputs (output dtype that is a "
                               "sub-dtype of np.floating), but got {}. For differentiation of "
                               "functions with integer outputs, use jax.vjp directly.",
                               array::DTypeName(value.dtype())));
    }
    Array one = array::Ones({}, value.dtype());
    std::vector<Value> grads = ArgCotangents(interp, lin, {one});
    Value g = single ? grads[0] : eval::MakeTuple(grads);
    if (!with_value) return has_aux ? eval::MakeTuple({g, *lin.aux}) : g;
    Value primal = has_aux ? eval::MakeTuple({out, *lin.aux}) : out;
    return eval::MakeTuple({primal, g});
  });
}

Value Grad(Interpreter& interp, CallArgs& args, bool with_value) {
  auto bound = eval::BindArgs(interp, with_value ? "value_and_grad" : "grad", args,
                              {"fun", "argnums=", "has_aux=", "holomorphic=", "allow_int=",
                               "reduce_axes="});
  if (!eval::IsCallable(interp, *bound[0])) {
    interp.Raise(interp.types().type_error,
                 fmt::format("Expected a callable value, got {}", interp.Repr(*bound[0])));
  }
  bool has_aux = bound[2] && interp.Truthy(*bound[2]);
  return MakeGrad(interp, *bound[0], bound[1].value_or(Value::Int(0)), has_aux, with_value);
}

// ---- jax.vjp ------------------------------------------------------------------------------------

Value Vjp(Interpreter& interp, CallArgs& args) {
  if (args.positional.empty()) {
    interp.Raise(interp.types().type_error, "vjp() missing 1 required positional argument: 'fun'");
  }
  bool has_aux = false;
  for (const auto& [name, value] : args.keywords) {
    if (name == "has_aux") {
      has_aux = interp.Truthy(value);
    } else if (name != "reduce_axes") {
      interp.Raise(interp.types().type_error,
                   fmt::format("vjp() got an unexpected keyword argument '{}'", name));
    }
  }
  Value fun = args.positional[0];
  CallArgs call{.positional = std::vector<Value>(args.positional.begin() + 1, args.positional.end()),
                .span = args.span};
  std::vector<size_t> nums;
  for (size_t i = 0; i < call.positional.size(); ++i) nums.push_back(i);
  auto lin = std::make_shared<Linearized>(Linearize(interp, fun, call, nums, has_aux, "vjp", false));
  Value pullback = interp.MakeBuiltin("vjp_fun", [lin](Interpreter& interp, CallArgs& args) {
    Value ct = eval::OneArg(interp, "vjp_fun", args);
    std::vector<Value> leaves;
    TreeDef def = Flatten(interp, ct, leaves);
    if (!SameStructure(def, lin->out_def, interp)) {
      interp.Raise(interp.types().type_error,
                   fmt::format("Tree structure of cotangent input {}, does not match structure of "
                               "primal output {}.",
                               def.ToString(interp), lin->out_def.ToString(interp)));
    }
    std::vector<Array> cts;
    for (size_t i = 0; i < leaves.size(); ++i) {
      Array c = LeafArray(interp, leaves[i]);
      Array primal = LeafArray(interp, lin->out_leaves[i]);
      if (!array::SameDims(c.shape(), primal.shape()) || c.dtype() != primal.dtype()) {
        interp.Raise(interp.types().value_error,
                     fmt::format("unexpected JAX type (e.g. shape/dtype) for argument to VJP "
                                 "function: got {}, but expected {} because the corresponding "
                                 "output of the differentiated function had JAX type {}",
                                 AvalString(c), AvalString(primal), AvalString(primal)));
      }
      cts.push_back(c);
    }
    return eval::MakeTuple(ArgCotangents(interp, *lin, cts));
  });
  if (has_aux) return eval::MakeTuple({lin->out, pullback, *lin->aux});
  return eval::MakeTuple({lin->out, pullback});
}

// ---- jax.jvp ------------------------------------------------------------------------------------

// The Jacobian-vector product as the vjp of the backward pass: the backward pass maps output
// cotangents u to input cotangents J^T u, linearly; recorded on a second tape with u as its
// input, its own backward pass at input cotangents t gives J t.
Value Jvp(Interpreter& interp, CallArgs& args) {
  auto bound = eval::BindArgs(interp, "jvp", args, {"fun", "primals", "tangents", "has_aux="});
  bool has_aux = bound[3] && interp.Truthy(*bound[3]);
  auto sequence = [&](const Value& v, const char* what) {
    if (v.as<eval::TupleObject>() == nullptr && v.as<eval::ListObject>() == nullptr) {
      interp.Raise(interp.types().type_error,
                   fmt::format("{} arguments to jvp must be tuples or lists, found {}.", what,
                               interp.TypeOf(v)->name));
    }
    return interp.ToVector(v);
  };
  std::vector<Value> primals = sequence(*bound[1], "primal");
  std::vector<Value> tangents = sequence(*bound[2], "tangent");
  if (primals.size() != tangents.size()) {
    interp.Raise(interp.types().value_error,
                 fmt::format("jvp called with different primal and tangent lengths. Got primal "
                             "length {} and tangent length {}.",
                             primals.size(), tangents.size()));
  }
  std::vector<size_t> nums;
  for (size_t i = 0; i < primals.size(); ++i) nums.push_back(i);
  Linearized lin =
      Linearize(interp, *bound[0], CallArgs{.positional = primals, .span = args.span}, nums,
                has_aux, "jvp", false);
  // The tangents, leaf by leaf, matched to the primals' leaves.
  std::vector<Array> tangent_leaves;
  for (size_t i = 0; i < tangents.size(); ++i) {
    std::vector<Value> leaves;
    TreeDef def = Flatten(interp, tangents[i], leaves);
    if (!SameStructure(def, lin.arg_defs[i], interp)) {
      interp.Raise(interp.types().type_error,
                   fmt::format("primal and tangent arguments to jax.jvp must have the same tree "
                               "structure; primals have tree structure {} whereas tangents have "
                               "tree structure {}.",
                               lin.arg_defs[i].ToString(interp), def.ToString(interp)));
    }
    for (size_t k = 0; k < leaves.size(); ++k) {
      Array t = LeafArray(interp, leaves[k]);
      const Array& p = lin.arg_leaves[i][k].as<eval::ArrayObject>()->value;
      if (!array::SameDims(t.shape(), p.shape())) {
        interp.Raise(interp.types().value_error,
                     fmt::format("jvp called with inconsistent primal and tangent shapes;Got "
                                 "primal shape {} and tangent shape as {}",
                                 array::ShapeToString(p.shape()), array::ShapeToString(t.shape())));
      }
      tangent_leaves.push_back(t.dtype() == p.dtype() ? t : t.AsType(p.dtype()));
    }
  }
  // The backward pass on a second tape, its output cotangents u (zeros) followed.
  Tape second;
  std::vector<int> u_slots;
  std::vector<Array> u;
  for (const Value& leaf : lin.out_leaves) {
    Array primal = LeafArray(interp, leaf);
    Array zero = array::Zeros(primal.shape(), primal.dtype());
    u_slots.push_back(array::Differentiable(zero.dtype()) ? second.AddInput(zero) : -1);
    u.push_back(zero);
  }
  std::vector<int> wanted;
  for (const auto& slots : lin.arg_slots) wanted.insert(wanted.end(), slots.begin(), slots.end());
  std::vector<std::optional<Array>> input_cts;
  {
    array::ScopedPrimRecorder listen(&second);
    t_jvp_pass = true;
    try {
      input_cts = lin.tape->Backward(interp, lin.out_slots, u, wanted);
    } catch (...) {
      t_jvp_pass = false;
      throw;
    }
    t_jvp_pass = false;
  }
  std::vector<int> seeded;
  std::vector<Array> seeds;
  for (size_t k = 0; k < input_cts.size(); ++k) {
    if (!input_cts[k]) continue;
    seeded.push_back(second.Find(*input_cts[k]));
    seeds.push_back(tangent_leaves[k]);
  }
  std::vector<std::optional<Array>> out_tangents = second.Backward(interp, seeded, seeds, u_slots);
  std::vector<Value> tangent_out;
  for (size_t i = 0; i < out_tangents.size(); ++i) {
    Array primal = LeafArray(interp, lin.out_leaves[i]);
    Array t = out_tangents[i] ? *out_tangents[i] : array::Zeros(primal.shape(), primal.dtype());
    t.set_weak_type(primal.weak_type());
    tangent_out.push_back(eval::WrapArray(t));
  }
  size_t next = 0;
  Value tangent_tree = Unflatten(interp, lin.out_def, tangent_out, next);
  if (has_aux) return eval::MakeTuple({lin.out, tangent_tree, *lin.aux});
  return eval::MakeTuple({lin.out, tangent_tree});
}

// ---- custom_vjp ---------------------------------------------------------------------------------

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

std::vector<std::optional<Array>> CustomBackward(Interpreter& interp, const CustomRule& rule,
                                                 const std::vector<Array>& out_values,
                                                 const std::vector<std::optional<Array>>& cts) {
  if (t_jvp_pass) {
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
  bool tuple = result.as<eval::TupleObject>() != nullptr || result.as<eval::ListObject>() != nullptr;
  if (tuple) entries = interp.ToVector(result);
  if (!tuple || entries.size() != num_args) {
    std::vector<Value> ignored;
    TreeDef got = Flatten(interp, result, ignored);
    interp.Raise(interp.types().type_error,
                 fmt::format("Custom VJP bwd rule must produce an output with the same container "
                             "(pytree) structure as the args tuple of the primal function, and in "
                             "particular must produce a tuple of length equal to the number of "
                             "arguments to the primal function, but got bwd output structure {} "
                             "for primal input structure {}.",
                             got.ToString(interp), rule.args_def.ToString(interp)));
  }
  std::vector<std::optional<Array>> in_cts;
  for (size_t i = 0; i < num_args; ++i) {
    const TreeDef& arg_def = rule.args_def.children[i];
    size_t count = arg_def.num_leaves();
    size_t first = in_cts.size();
    if (entries[i].is_none()) {
      in_cts.resize(first + count);
      continue;
    }
    std::vector<Value> leaves;
    TreeDef def = Flatten(interp, entries[i], leaves);
    if (leaves.size() != count) {
      interp.Raise(interp.types().type_error,
                   fmt::format("Custom VJP bwd rule must produce an output with the same "
                               "container (pytree) structure as the args tuple of the primal "
                               "function, but at output[{}] the bwd rule produced {} for an "
                               "input of structure {}.",
                               i, def.ToString(interp), arg_def.ToString(interp)));
    }
    for (size_t k = 0; k < count; ++k) {
      const Value& primal = rule.arg_leaves[first + k];
      auto* p = primal.as<eval::ArrayObject>();
      if (leaves[k].is_none() || p == nullptr || !array::Differentiable(p->value.dtype())) {
        in_cts.emplace_back();
        continue;
      }
      Array g = LeafArray(interp, leaves[k]);
      if (!array::SameDims(g.shape(), p->value.shape())) {
        interp.Raise(interp.types().value_error,
                     fmt::format("Custom VJP bwd rule must produce an output with the same type "
                                 "as the args tuple of the primal function, but at output[{}] "
                                 "the bwd rule produced an output of type {} corresponding to an "
                                 "input of type {}, so the shapes do not match",
                                 i, AvalString(g), AvalString(p->value)));
      }
      in_cts.push_back(g.dtype() == p->value.dtype() ? g : g.AsType(p->value.dtype()));
    }
  }
  return in_cts;
}

}  // namespace

bool Differentiated(const Array& a) {
  Tape* tape = ActiveTape();
  return tape != nullptr && tape->Find(a) >= 0;
}

void CheckNotDifferentiated(Interpreter& interp, std::string_view what,
                            const std::vector<Array>& operands) {
  Tape* tape = ActiveTape();
  if (tape == nullptr) return;
  for (const Array& a : operands) {
    if (tape->Find(a) < 0) continue;
    interp.RaiseWithNotes(
        interp.types().value_error,
        "Linearization failed to produce known values for all output primals. This is "
        "typically caused by attempting to differentiate a function uses an operation that does "
        "not support reverse-mode autodiff.",
        {fmt::format("the operation is a {} on a value being differentiated: it has no "
                     "reverse-mode rule",
                     what),
         "wrap it in jax.custom_vjp with a backward kernel of your own (the way "
         "flash_attention pairs its forward kernel with dq and dkv kernels)"});
  }
}

std::optional<Value> CallCustomVjp(Interpreter& interp, const Value& fun, const Value& fwd,
                                   const Value& bwd, const Value& nondiff_argnums,
                                   const Value& nondiff_argnames, CallArgs& args) {
  Tape* tape = ActiveTape();
  if (tape == nullptr) return std::nullopt;
  std::vector<std::string> names;
  std::vector<Value> positional = ResolvePositions(interp, fun, args, &names);
  std::vector<bool> nondiff(positional.size(), false);
  if (!nondiff_argnums.is_none()) {
    for (const Value& n : interp.ToVector(nondiff_argnums)) {
      int64_t at = n.as_int();
      if (at >= 0 && at < static_cast<int64_t>(nondiff.size())) nondiff[static_cast<size_t>(at)] = true;
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
  auto rule = std::make_shared<CustomRule>();
  rule->name = FunctionName(interp, fun);
  std::vector<Value> diff_args;
  for (size_t i = 0; i < positional.size(); ++i) {
    (nondiff[i] ? rule->nondiff : diff_args).push_back(positional[i]);
  }
  rule->args_def = Flatten(interp, eval::MakeTuple(diff_args), rule->arg_leaves);
  std::vector<int> in;
  std::vector<Array> in_values;
  bool followed = false;
  for (const Value& leaf : rule->arg_leaves) {
    auto* a = leaf.as<eval::ArrayObject>();
    int slot = a != nullptr ? tape->Find(a->value) : -1;
    followed = followed || slot >= 0;
    in.push_back(slot);
    in_values.push_back(a != nullptr ? a->value : Array());
  }
  if (!followed) return std::nullopt;
  if (fwd.is_none() || bwd.is_none()) {
    interp.Raise(interp.types().attribute_error,
                 fmt::format("No VJP defined for custom_vjp function {} using defvjp.",
                             rule->name));
  }
  Value result;
  {
    array::ScopedPrimRecorder paused(nullptr);
    result = interp.Call(fwd, positional);
  }
  bool pair = (result.as<eval::TupleObject>() != nullptr ||
               result.as<eval::ListObject>() != nullptr) &&
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
  std::vector<Array> outputs;
  for (Value& leaf : rule->out_leaves) {
    auto* a = leaf.as<eval::ArrayObject>();
    if (a == nullptr) {
      outputs.emplace_back();
      continue;
    }
    // A fresh identity for each output, so that an output that is an input passed through is
    // followed as the output.
    Array copy = FreshCopy(a->value);
    outputs.push_back(copy);
    leaf = eval::WrapArray(copy);
  }
  tape->RecordCustom(rule, std::move(in), std::move(in_values), outputs);
  size_t next = 0;
  return Unflatten(interp, rule->out_def, rule->out_leaves, next);
}

void InstallAutodiff(Interpreter& interp) {
  auto jax = interp.FindModule("jax");
  auto lax = interp.FindModule("jax.lax");
  PZ_CHECK(jax != nullptr && lax != nullptr);
  jax->Set("grad", interp.MakeBuiltin("grad", [](Interpreter& interp, CallArgs& args) {
    return Grad(interp, args, false);
  }));
  jax->Set("value_and_grad",
           interp.MakeBuiltin("value_and_grad", [](Interpreter& interp, CallArgs& args) {
             return Grad(interp, args, true);
           }));
  jax->Set("vjp", interp.MakeBuiltin("vjp", Vjp));
  jax->Set("jvp", interp.MakeBuiltin("jvp", Jvp));
  // lax.stop_gradient: the value, no longer followed by a differentiation (a pytree of arrays
  // and scalars).
  lax->Set("stop_gradient", interp.MakeBuiltin("stop_gradient", [](Interpreter& interp,
                                                                   CallArgs& args) {
    Value x = eval::OneArg(interp, "stop_gradient", args);
    std::vector<Value> leaves;
    TreeDef def = Flatten(interp, x, leaves);
    for (Value& leaf : leaves) {
      auto* a = leaf.as<eval::ArrayObject>();
      if (a != nullptr && Differentiated(a->value)) leaf = eval::WrapArray(FreshCopy(a->value));
    }
    size_t next = 0;
    return Unflatten(interp, def, leaves, next);
  }));
}

}  // namespace pz::kernel

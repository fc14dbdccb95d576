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
#include "kernel/tape.h"
#include "kernel/transforms.h"
#include "support/check.h"

namespace pz::kernel {

using array::Array;
using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

namespace {

// ---- The tape --------------------------------------------------------------------------------

// ---- Running a function on a tape -------------------------------------------------------------

// A function run on a tape: its differentiated arguments and its output.
struct Linearized {
  std::shared_ptr<Tape> tape;
  std::vector<TreeDef> arg_defs;               // one per differentiated argument
  std::vector<std::vector<Value>> arg_leaves;  // their leaves (fresh arrays)
  std::vector<std::vector<int>> arg_slots;
  Value out;  // the output (without aux)
  std::optional<Value> aux;
  TreeDef out_def;
  std::vector<Value> out_leaves;
  std::vector<int> out_slots;  // -1 for a leaf the tape does not follow
};

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
    bool pair =
        (result.as<eval::TupleObject>() != nullptr || result.as<eval::ListObject>() != nullptr) &&
        interp.Len(result) == 2;
    if (!pair) {
      interp.Raise(interp.types().type_error,
                   fmt::format("expected function with aux output to return a two-element tuple, "
                               "but got type {} with value {}",
                               fmt::format("<class '{}'>", interp.TypeOf(result)->name),
                               interp.Repr(result)));
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
                                             size_t num_args) {
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
  return {nums, single};
}

// ---- jax.grad / jax.value_and_grad -------------------------------------------------------------

Value MakeGrad(Interpreter& interp, Value fun, Value argnums, bool has_aux, bool with_value) {
  std::string who = with_value ? "value_and_grad" : "grad";
  return interp.MakeBuiltin(who, [=](Interpreter& interp, CallArgs& args) -> Value {
    auto [nums, single] = ArgNums(interp, argnums, args.positional.size());
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
  auto bound =
      eval::BindArgs(interp, with_value ? "value_and_grad" : "grad", args,
                     {"fun", "argnums=", "has_aux=", "holomorphic=", "allow_int=", "reduce_axes="});
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
  CallArgs call{
      .positional = std::vector<Value>(args.positional.begin() + 1, args.positional.end()),
      .span = args.span};
  std::vector<size_t> nums;
  for (size_t i = 0; i < call.positional.size(); ++i) nums.push_back(i);
  auto lin =
      std::make_shared<Linearized>(Linearize(interp, fun, call, nums, has_aux, "vjp", false));
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
  const Value& primals_arg = *bound[1];
  const Value& tangents_arg = *bound[2];
  auto is_sequence = [](const Value& v) {
    return v.as<eval::TupleObject>() != nullptr || v.as<eval::ListObject>() != nullptr;
  };
  if (!is_sequence(primals_arg) || !is_sequence(tangents_arg)) {
    interp.Raise(interp.types().type_error,
                 fmt::format("primal and tangent arguments to jax.jvp must be tuples or lists; "
                             "found {} and {}.",
                             interp.TypeName(primals_arg), interp.TypeName(tangents_arg)));
  }
  std::vector<Value> primals = interp.ToVector(primals_arg);
  std::vector<Value> tangent_tree_leaves;
  TreeDef tangents_def =
      Flatten(interp, eval::MakeTuple(interp.ToVector(tangents_arg)), tangent_tree_leaves);
  {
    std::vector<Value> ignored;
    TreeDef primals_def = Flatten(interp, eval::MakeTuple(primals), ignored);
    if (!SameStructure(primals_def, tangents_def, interp)) {
      interp.Raise(interp.types().type_error,
                   fmt::format("primal and tangent arguments to jax.jvp must have the same tree "
                               "structure; primals have tree structure PyTreeDef({}) whereas "
                               "tangents have tree structure PyTreeDef({}).",
                               primals_def.ToString(interp), tangents_def.ToString(interp)));
    }
  }
  std::vector<size_t> nums;
  for (size_t i = 0; i < primals.size(); ++i) nums.push_back(i);
  Linearized lin = Linearize(interp, *bound[0], CallArgs{.positional = primals, .span = args.span},
                             nums, has_aux, "jvp", false);
  // The tangents, leaf by leaf, matched to the primals' leaves.
  std::vector<Array> tangent_leaves;
  size_t t = 0;
  for (const auto& leaves : lin.arg_leaves) {
    for (const Value& leaf : leaves) {
      Array tangent = LeafArray(interp, tangent_tree_leaves[t++]);
      const Array& p = leaf.as<eval::ArrayObject>()->value;
      if (!array::SameDims(tangent.shape(), p.shape())) {
        interp.Raise(
            interp.types().value_error,
            fmt::format("jvp called with inconsistent primal and tangent shapes;Got "
                        "primal shape {} and tangent shape as {}",
                        array::ShapeToString(p.shape()), array::ShapeToString(tangent.shape())));
      }
      tangent_leaves.push_back(tangent.dtype() == p.dtype() ? tangent : tangent.AsType(p.dtype()));
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
    JvpPass pass;
    input_cts = lin.tape->Backward(interp, lin.out_slots, u, wanted);
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
  lax->Set("stop_gradient",
           interp.MakeBuiltin("stop_gradient", [](Interpreter& interp, CallArgs& args) {
             Value x = eval::OneArg(interp, "stop_gradient", args);
             std::vector<Value> leaves;
             TreeDef def = Flatten(interp, x, leaves);
             for (Value& leaf : leaves) {
               auto* a = leaf.as<eval::ArrayObject>();
               if (a != nullptr && Differentiated(a->value))
                 leaf = eval::WrapArray(FreshCopy(a->value));
             }
             size_t next = 0;
             return Unflatten(interp, def, leaves, next);
           }));
}

}  // namespace pz::kernel

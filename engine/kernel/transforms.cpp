// JAX's function transformations as an eager engine runs them (see transforms.h): jax.jit,
// jax.vmap (a loop over the mapped axis, results stacked), jax.custom_vjp / custom_jvp (the
// primal function with its rules kept), and the pytree utilities of jax.tree_util / jax.tree.
#include "kernel/transforms.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "eval/classes.h"
#include "kernel/autodiff.h"
#include "kernel/modules.h"
#include "kernel/pytree.h"
#include "support/check.h"

namespace pz::kernel {

using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

namespace {

// ---- jax.vmap -----------------------------------------------------------------------------------

// The axis each leaf of `def` is mapped along (nullopt: not mapped), from `spec`, an axis spec
// that is a pytree prefix of the value: an int or None applies to the whole subtree under it.
void AxesOf(Interpreter& interp, const Value& spec, const TreeDef& def,
            std::vector<std::optional<int64_t>>& axes, std::string_view what) {
  if (spec.is_none() || spec.is_int()) {
    std::optional<int64_t> axis;
    if (spec.is_int()) axis = spec.as_int();
    for (size_t i = 0; i < def.num_leaves(); ++i) axes.push_back(axis);
    return;
  }
  std::vector<Value> leaves;
  TreeDef spec_def = Flatten(interp, spec, leaves);
  bool container = def.kind == TreeDef::Kind::kTuple || def.kind == TreeDef::Kind::kList ||
                   def.kind == TreeDef::Kind::kDict || def.kind == TreeDef::Kind::kCustom;
  std::vector<Value> items;
  if (auto* dict = spec.as<eval::DictObject>()) {
    for (const Value& key : def.keys) {
      std::optional<Value> item = dict->Get(interp, key);
      if (!item) break;
      items.push_back(*item);
    }
  } else if (spec_def.kind == def.kind && spec_def.kind != TreeDef::Kind::kLeaf) {
    items = interp.ToVector(spec);
  }
  if (!container || items.size() != def.children.size()) {
    interp.Raise(interp.types().value_error,
                 fmt::format("vmap {} specification must be a tree prefix of the corresponding "
                             "value, got specification {} for value tree {}.",
                             what, interp.Repr(spec), def.ToString(interp)));
  }
  for (size_t i = 0; i < items.size(); ++i) AxesOf(interp, items[i], def.children[i], axes, what);
}

Value JnpCall(Interpreter& interp, const char* name, std::vector<Value> positional,
              std::vector<std::pair<std::string, Value>> keywords = {}) {
  auto jnp = interp.FindModule("jax.numpy");
  PZ_CHECK(jnp != nullptr && jnp->attrs.contains(name));
  return interp.Call(jnp->attrs.at(name), CallArgs{.positional = std::move(positional),
                                                   .keywords = std::move(keywords),
                                                   .span = interp.current_span()});
}

// The rank of an array-like leaf (0 for a Python scalar).
int64_t RankOf(Interpreter& interp, const Value& leaf) {
  if (auto* a = leaf.as<eval::ArrayObject>()) return a->value.rank();
  if (std::optional<Value> shape = interp.TryGetAttr(leaf, "shape")) return interp.Len(*shape);
  return 0;
}

int64_t DimOf(Interpreter& interp, const Value& leaf, int64_t axis) {
  Value shape = interp.GetAttr(leaf, "shape");
  return interp.GetItem(shape, Value::Int(axis)).as_int();
}

class VmapObject final : public eval::Object {
 public:
  VmapObject(Value fun, Value in_axes, Value out_axes, std::optional<int64_t> axis_size)
      : Object(eval::ObjectKind::kExtension),
        fun_(std::move(fun)),
        in_axes_(std::move(in_axes)),
        out_axes_(std::move(out_axes)),
        axis_size_(axis_size) {}
  std::string_view type_name() const override { return "function"; }
  std::string Repr(Interpreter& interp) const override {
    return fmt::format("<vmap of {}>", interp.Repr(fun_));
  }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override {
    if (name == "__wrapped__") return fun_;
    if (name == "__name__" || name == "__qualname__") return interp.GetAttr(fun_, name);
    if (name == "__call__") return CallMethod(interp, shared_from_this());
    return std::nullopt;
  }
  void ClearReferences() override { fun_ = in_axes_ = out_axes_ = Value(); }

  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override {
    // Leaves of the positional arguments (with in_axes), then of the keywords (axis 0).
    Value positional = eval::MakeTuple(args.positional);
    std::vector<Value> leaves;
    TreeDef def = Flatten(interp, positional, leaves);
    std::vector<std::optional<int64_t>> axes;
    Value spec = in_axes_;
    if (!spec.is_none() && !spec.is_int()) {
      if (spec.as<eval::ListObject>()) spec = eval::MakeTuple(interp.ToVector(spec));
      if (spec.as<eval::TupleObject>() == nullptr ||
          interp.Len(spec) != static_cast<int64_t>(args.positional.size())) {
        interp.Raise(interp.types().value_error,
                     fmt::format("vmap in_axes must be an int, None, or a tuple of entries "
                                 "corresponding to the positional arguments passed to the "
                                 "function, but got len(in_axes)={}, len(args)={}",
                                 interp.Len(spec), args.positional.size()));
      }
    }
    AxesOf(interp, spec, def, axes, "in_axes");
    std::vector<std::string> keyword_names;
    std::vector<TreeDef> keyword_defs;
    for (const auto& [name, value] : args.keywords) {
      keyword_defs.push_back(Flatten(interp, value, leaves));
      keyword_names.push_back(name);
      axes.resize(leaves.size(), 0);
    }
    // The batch size, from every mapped leaf.
    std::optional<int64_t> size = axis_size_;
    std::string sizes;  // "  * one axis had size 3: axis 0 of argument leaf 0" lines
    bool inconsistent = false;
    for (size_t i = 0; i < leaves.size(); ++i) {
      if (!axes[i]) continue;
      int64_t rank = RankOf(interp, leaves[i]);
      int64_t axis = *axes[i] < 0 ? *axes[i] + rank : *axes[i];
      if (axis < 0 || axis >= rank) {
        interp.Raise(
            interp.types().value_error,
            fmt::format("vmap was requested to map its argument along axis {}, which "
                        "implies that its rank should be at least {}, but is only {} "
                        "(its shape is {})",
                        *axes[i], (*axes[i] < 0 ? -*axes[i] : *axes[i] + 1), rank,
                        rank == 0 ? "()" : interp.Repr(interp.GetAttr(leaves[i], "shape"))));
      }
      axes[i] = axis;
      int64_t n = DimOf(interp, leaves[i], axis);
      inconsistent |= size && *size != n;
      sizes += fmt::format("\n  * one axis had size {}: axis {} of argument leaf {}", n, axis, i);
      size = n;
    }
    if (inconsistent) {
      interp.Raise(interp.types().value_error,
                   "vmap got inconsistent sizes for array axes to be mapped:" + sizes);
    }
    if (!size) {
      interp.Raise(interp.types().value_error,
                   "vmap must have at least one non-None value in in_axes (or be given "
                   "axis_size=)");
    }
    // One call per index of the mapped axis.
    std::vector<Value> results;
    size_t positional_leaves = def.num_leaves();
    for (int64_t b = 0; b < *size; ++b) {
      std::vector<Value> slice(leaves.size());
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (!axes[i]) {
          slice[i] = leaves[i];
          continue;
        }
        Value moved = *axes[i] == 0 ? leaves[i]
                                    : JnpCall(interp, "moveaxis",
                                              {leaves[i], Value::Int(*axes[i]), Value::Int(0)});
        slice[i] = interp.GetItem(moved, Value::Int(b));
      }
      size_t next = 0;
      std::vector<Value> call_args = interp.ToVector(Unflatten(interp, def, slice, next));
      CallArgs call{.positional = std::move(call_args), .span = interp.current_span()};
      PZ_CHECK(next == positional_leaves);
      for (size_t k = 0; k < keyword_names.size(); ++k) {
        call.keywords.emplace_back(keyword_names[k],
                                   Unflatten(interp, keyword_defs[k], slice, next));
      }
      results.push_back(interp.Call(fun_, std::move(call)));
    }
    // Stack the results leaf by leaf along out_axes.
    std::vector<std::vector<Value>> per_call;
    TreeDef out_def;
    for (const Value& result : results) {
      std::vector<Value> out_leaves;
      TreeDef d = Flatten(interp, result, out_leaves);
      if (per_call.empty()) out_def = d;
      per_call.push_back(std::move(out_leaves));
    }
    std::vector<std::optional<int64_t>> out_axes;
    AxesOf(interp, out_axes_, out_def, out_axes, "out_axes");
    std::vector<Value> stacked;
    for (size_t i = 0; i < out_axes.size(); ++i) {
      if (!out_axes[i]) {
        stacked.push_back(per_call[0][i]);
        continue;
      }
      std::vector<Value> column;
      for (const auto& call_leaves : per_call) column.push_back(call_leaves[i]);
      stacked.push_back(JnpCall(interp, "stack", {eval::MakeList(std::move(column))},
                                {{"axis", Value::Int(*out_axes[i])}}));
    }
    return Unflatten(interp, out_def, stacked);
  }

 private:
  Value fun_, in_axes_, out_axes_;
  std::optional<int64_t> axis_size_;
};

Value Vmap(Interpreter& interp, CallArgs& args) {
  auto bound = eval::BindArgs(
      interp, "vmap", args,
      {"fun", "in_axes=", "out_axes=", "axis_name=", "axis_size=", "spmd_axis_name="});
  if (!eval::IsCallable(interp, *bound[0])) {
    interp.Raise(interp.types().type_error,
                 fmt::format("vmap requires a callable, got {}", interp.Repr(*bound[0])));
  }
  std::optional<int64_t> axis_size;
  if (bound[4] && bound[4]->is_int()) axis_size = bound[4]->as_int();
  auto object = std::make_shared<VmapObject>(*bound[0], bound[1].value_or(Value::Int(0)),
                                             bound[2].value_or(Value::Int(0)), axis_size);
  interp.Track(object);
  return Value(object);
}

// ---- jax.custom_vjp / jax.custom_jvp --------------------------------------------------------

// A function with custom differentiation rules. Called, it runs the primal function; the rules
// (`defvjp(fwd, bwd)`, `defjvp(jvp)`) are kept for the differentiation transformations.
class CustomDerivativeObject final : public eval::Object {
 public:
  CustomDerivativeObject(bool vjp, Value fun, Value nondiff_argnums, Value nondiff_argnames)
      : Object(eval::ObjectKind::kExtension),
        vjp_(vjp),
        fun_(std::move(fun)),
        nondiff_argnums_(std::move(nondiff_argnums)),
        nondiff_argnames_(std::move(nondiff_argnames)) {}
  std::string_view type_name() const override { return vjp_ ? "custom_vjp" : "custom_jvp"; }
  std::string Repr(Interpreter& interp) const override {
    return fmt::format("<jax.{} of {}>", type_name(), interp.Repr(fun_));
  }
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override {
    // Under a differentiation that follows an argument: the fwd rule, kept with bwd; or the
    // jvp rule, whose tangent computation is transposed.
    std::optional<Value> out =
        vjp_ ? CallCustomVjp(interp, fun_, fwd_, bwd_, nondiff_argnums_, nondiff_argnames_, args)
             : CallCustomJvp(interp, fun_, jvp_, nondiff_argnums_, args);
    if (out) return out;
    return interp.Call(fun_, args);
  }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override {
    auto self = std::static_pointer_cast<CustomDerivativeObject>(shared_from_this());
    if (name == "fun" || name == "__wrapped__") return fun_;
    if (name == "__call__") return CallMethod(interp, shared_from_this());
    if (name == "nondiff_argnums") return nondiff_argnums_;
    if (name == "__name__" || name == "__qualname__" || name == "__doc__") {
      return interp.GetAttr(fun_, name);
    }
    if (vjp_ && name == "fwd") return fwd_;
    if (vjp_ && name == "bwd") return bwd_;
    if (!vjp_ && name == "jvp") return jvp_;
    if (vjp_ && name == "defvjp") {
      return interp.MakeBuiltin("defvjp", [self](Interpreter& interp, CallArgs& args) {
        auto bound = eval::BindArgs(interp, "defvjp", args,
                                    {"fwd", "bwd", "symbolic_zeros=", "optimize_remat="});
        self->fwd_ = *bound[0];
        self->bwd_ = *bound[1];
        return Value();
      });
    }
    if (!vjp_ && name == "defjvp") {
      return interp.MakeBuiltin("defjvp", [self](Interpreter& interp, CallArgs& args) {
        auto bound = eval::BindArgs(interp, "defjvp", args, {"jvp", "symbolic_zeros="});
        self->jvp_ = *bound[0];
        return *bound[0];  // usable as a decorator
      });
    }
    if (!vjp_ && name == "defjvps") {
      return interp.MakeBuiltin("defjvps", [self](Interpreter&, CallArgs& args) {
        self->jvp_ = eval::MakeTuple(args.positional);
        return Value();
      });
    }
    return std::nullopt;
  }
  void ClearReferences() override {
    fun_ = nondiff_argnums_ = nondiff_argnames_ = fwd_ = bwd_ = jvp_ = Value();
  }

 private:
  bool vjp_;
  Value fun_, nondiff_argnums_, nondiff_argnames_, fwd_, bwd_, jvp_;
};

eval::BuiltinFunctionObject::Fn CustomDerivative(bool vjp) {
  return [vjp](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, vjp ? "custom_vjp" : "custom_jvp", args,
                                {"fun", "nondiff_argnums=", "nondiff_argnames="});
    if (!eval::IsCallable(interp, *bound[0])) {
      interp.Raise(interp.types().type_error,
                   fmt::format("Expected a callable value, got {}", interp.Repr(*bound[0])));
    }
    Value argnums = bound[1].value_or(eval::MakeTuple({}));
    Value argnames = bound[2].value_or(eval::MakeTuple({}));
    auto object = std::make_shared<CustomDerivativeObject>(vjp, *bound[0], argnums, argnames);
    interp.Track(object);
    return Value(object);
  };
}

// ---- Scoped settings that change nothing here ------------------------------------------------

// `with jax.named_scope("x"):`, `@jax.default_matmul_precision("bfloat16")`, ...: a context
// manager that is also a decorator (JAX's config contexts are both) and leaves the engine as it
// is: names only label compiled code, and a CPU computes float32 products in float32 whatever
// the precision asked for (XLA's CPU backend ignores it too).
class NeutralContextObject final : public eval::Object {
 public:
  explicit NeutralContextObject(std::string name)
      : Object(eval::ObjectKind::kExtension), name_(std::move(name)) {}
  std::string_view type_name() const override { return name_; }
  std::string Repr(Interpreter&) const override { return "<" + name_ + " context>"; }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override {
    if (name == "__enter__") {
      return interp.MakeBuiltin("__enter__", [](Interpreter&, CallArgs&) { return Value(); });
    }
    if (name == "__exit__") {
      return interp.MakeBuiltin("__exit__",
                                [](Interpreter&, CallArgs&) { return Value::Bool(false); });
    }
    if (name == "__call__") return CallMethod(interp, shared_from_this());
    return std::nullopt;
  }
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override {
    // As a decorator: the function itself.
    return eval::OneArg(interp, name_, args);
  }

 private:
  std::string name_;
};

Value DefaultMatmulPrecision(Interpreter& interp, CallArgs& args) {
  auto bound = eval::BindArgs(interp, "default_matmul_precision", args, {"new_val"});
  const Value& value = *bound[0];
  static constexpr std::string_view kNames[] = {"default",     "high",          "highest",
                                                "bfloat16",    "tensorfloat32", "float32",
                                                "bfloat16_3x", "fastest"};
  auto* s = value.as<eval::StrObject>();
  bool known = value.is_none() || (s != nullptr && std::find(std::begin(kNames), std::end(kNames),
                                                             s->value) != std::end(kNames));
  if (!known) {
    interp.Raise(interp.types().value_error,
                 fmt::format("jax_default_matmul_precision: invalid value {}; use one of "
                             "'bfloat16', 'tensorfloat32', 'float32', 'default', 'high', "
                             "'highest' or None",
                             interp.Repr(value)));
  }
  return Value(std::make_shared<NeutralContextObject>("default_matmul_precision"));
}

// jax._src.util.HashableFunction(f, closure): `f` made hashable by a hashable `closure`, so
// that functions built anew on each call compare equal when their closures do (JAX uses them
// as static arguments and cache keys).
class HashableFunctionObject final : public eval::Object {
 public:
  HashableFunctionObject(Value f, Value closure)
      : Object(eval::ObjectKind::kExtension), f_(std::move(f)), closure_(std::move(closure)) {}
  std::string_view type_name() const override { return "HashableFunction"; }
  std::string Repr(Interpreter& interp) const override {
    return fmt::format("<hashable {} with closure={}>", interp.Str(interp.GetAttr(f_, "__name__")),
                       interp.Repr(closure_));
  }
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override {
    return interp.Call(f_, args);
  }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override {
    if (name == "f") return f_;
    if (name == "closure") return closure_;
    if (name == "__call__") return CallMethod(interp, shared_from_this());
    if (name == "__name__" || name == "__qualname__") return interp.GetAttr(f_, name);
    return std::nullopt;
  }
  std::optional<Value> Compare(Interpreter& interp, lang::CmpOpKind op, const Value& other,
                               bool) override {
    if (op != lang::CmpOpKind::kEq && op != lang::CmpOpKind::kNotEq) return std::nullopt;
    auto* o = other.as<HashableFunctionObject>();
    bool equal =
        o != nullptr && SameCode(interp, f_, o->f_) && interp.Equals(closure_, o->closure_);
    return Value::Bool(op == lang::CmpOpKind::kEq ? equal : !equal);
  }
  std::optional<size_t> Hash(Interpreter& interp) override { return interp.Hash(closure_); }
  void ClearReferences() override { f_ = closure_ = Value(); }

 private:
  // The same function definition (JAX compares `f.__code__`).
  static bool SameCode(Interpreter& interp, const Value& a, const Value& b) {
    auto* fa = a.as<eval::FunctionObject>();
    auto* fb = b.as<eval::FunctionObject>();
    if (fa != nullptr && fb != nullptr) return fa->code == fb->code;
    return interp.Equals(a, b);
  }
  Value f_, closure_;
};

}  // namespace

Value CallMethod(Interpreter& interp, const eval::ObjectRef& self) {
  return interp.MakeBuiltin("__call__", [self](Interpreter& interp, CallArgs& args) {
    return interp.Call(Value(self), args);
  });
}

void InstallTransforms(Interpreter& interp) {
  auto jax = interp.FindModule("jax");
  InstallTreeUtil(interp);
  InstallJit(interp);
  AddBuiltin(interp, *jax, "vmap", Vmap);
  AddBuiltin(interp, *jax, "custom_vjp", CustomDerivative(true));
  AddBuiltin(interp, *jax, "custom_jvp", CustomDerivative(false));
  InstallAutodiff(interp);
  AddBuiltin(interp, *jax, "default_matmul_precision", DefaultMatmulPrecision);
  AddBuiltin(interp, *jax, "named_scope", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "named_scope", args, {"name"});
    if (bound[0]->as<eval::StrObject>() == nullptr) {
      interp.Raise(interp.types().type_error, "named_scope name argument must be a string.");
    }
    return Value(std::make_shared<NeutralContextObject>("named_scope"));
  });
  AddBuiltin(interp, *jax, "ensure_compile_time_eval", [](Interpreter& interp, CallArgs& args) {
    eval::CheckArgCount(interp, "ensure_compile_time_eval", args, 0, 0);
    return Value(std::make_shared<NeutralContextObject>("ensure_compile_time_eval"));
  });

  // jax.ad_checkpoint / jax.checkpoint: rematerialisation only changes what a gradient
  // recomputes, so eagerly the function runs as it is and a named value is the value.
  auto ad_checkpoint = std::make_shared<eval::ModuleObject>("jax.ad_checkpoint");
  AddBuiltin(interp, *ad_checkpoint, "checkpoint_name", [](Interpreter& interp, CallArgs& args) {
    return *eval::BindArgs(interp, "checkpoint_name", args, {"x", "name"})[0];
  });
  auto checkpoint = [](Interpreter& interp, CallArgs& args) -> Value {
    auto bound = eval::BindArgs(interp, "checkpoint", args,
                                {"fun=", "*", "prevent_cse=", "policy=", "static_argnums="});
    if (bound[0] && !bound[0]->is_none()) return *bound[0];
    return interp.MakeBuiltin("checkpoint", [](Interpreter& interp, CallArgs& inner) {
      return eval::OneArg(interp, "checkpoint", inner);
    });
  };
  AddBuiltin(interp, *ad_checkpoint, "checkpoint", checkpoint);
  AddBuiltin(interp, *jax, "checkpoint", checkpoint);
  AddBuiltin(interp, *jax, "remat", checkpoint);
  interp.RegisterModule("jax.ad_checkpoint", ad_checkpoint);
  jax->Set("ad_checkpoint", Value(ad_checkpoint));
  std::shared_ptr<eval::ModuleObject> src = interp.FindModule("jax._src");
  if (src == nullptr) src = std::make_shared<eval::ModuleObject>("jax._src");
  auto util = std::make_shared<eval::ModuleObject>("jax._src.util");
  AddBuiltin(interp, *util, "HashableFunction", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "HashableFunction", args, {"f", "closure"});
    interp.Hash(*bound[1]);  // TypeError for an unhashable closure, as in JAX
    auto object = std::make_shared<HashableFunctionObject>(*bound[0], *bound[1]);
    interp.Track(object);
    return Value(object);
  });
  src->Set("util", Value(util));
  interp.RegisterModule("jax._src", src);
  interp.RegisterModule("jax._src.util", util);
}

}  // namespace pz::kernel

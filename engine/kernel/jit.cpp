// jax.jit as an eager engine runs it: the function is called as it is (there is nothing to
// compile), with JAX's checks of the static arguments (static_argnums / static_argnames must be
// hashable and name real parameters) and its other options accepted.
#include <fmt/format.h>

#include <algorithm>

#include "eval/builtin_support.h"
#include "eval/scope.h"
#include "kernel/transforms.h"

namespace pz::kernel {

using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

namespace {

// The positional parameter names of a Python function (nullopt for other callables, or
// functions with *args, whose positions cannot be checked).
std::optional<std::vector<std::string>> PositionalNames(const Value& fun) {
  auto* function = fun.as<eval::FunctionObject>();
  if (function == nullptr || function->code->params == nullptr) return std::nullopt;
  std::vector<std::string> names;
  for (const lang::Param& p : function->code->params->params) {
    if (p.kind == lang::ParamKind::kVarArgs) return std::nullopt;
    if (p.kind == lang::ParamKind::kPositionalOnly || p.kind == lang::ParamKind::kNormal) {
      names.push_back(p.name);
    }
  }
  return names;
}

class JitObject final : public eval::Object {
 public:
  JitObject(Value fun, std::vector<int64_t> static_nums, std::vector<std::string> static_names)
      : Object(eval::ObjectKind::kExtension),
        fun_(std::move(fun)),
        static_nums_(std::move(static_nums)),
        static_names_(std::move(static_names)) {}
  std::string_view type_name() const override { return "PjitFunction"; }
  std::string Repr(Interpreter& interp) const override {
    return fmt::format("<PjitFunction of {}>", interp.Repr(fun_));
  }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override {
    if (name == "__wrapped__") return fun_;
    if (name == "__call__") return CallMethod(interp, shared_from_this());
    if (name == "__name__" || name == "__qualname__" || name == "__doc__" || name == "__module__") {
      return interp.GetAttr(fun_, name);
    }
    return std::nullopt;
  }
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override {
    int64_t n = static_cast<int64_t>(args.positional.size());
    for (int64_t num : static_nums_) {
      int64_t at = num < 0 ? num + n : num;
      if (at >= 0 && at < n) CheckHashable(interp, args.positional[static_cast<size_t>(at)]);
    }
    for (const auto& [name, value] : args.keywords) {
      if (std::find(static_names_.begin(), static_names_.end(), name) != static_names_.end()) {
        CheckHashable(interp, value);
      }
    }
    return interp.Call(fun_, args);
  }
  void ClearReferences() override { fun_ = Value(); }

 private:
  static void CheckHashable(Interpreter& interp, const Value& value) {
    try {
      interp.Hash(value);
    } catch (const eval::PyError& error) {
      if (!error.exception->type->IsSubtypeOf(interp.types().type_error)) throw;
      interp.Raise(interp.types().value_error,
                   fmt::format("Non-hashable static arguments are not supported. An error "
                               "occurred while trying to hash an object of type <class '{}'>, "
                               "{}. The error was:\nTypeError: {}\n",
                               interp.TypeName(value), interp.Repr(value),
                               interp.Str(Value(error.exception))));
    }
  }

  Value fun_;
  std::vector<int64_t> static_nums_;
  std::vector<std::string> static_names_;
};

// An int or a sequence of ints (static_argnums / donate_argnums).
std::vector<int64_t> IntsArg(Interpreter& interp, const std::optional<Value>& v) {
  std::vector<int64_t> out;
  if (!v || v->is_none()) return out;
  if (v->is_integral()) return {v->integral()};
  for (const Value& item : interp.ToVector(*v)) {
    if (!item.is_integral()) {
      interp.Raise(interp.types().type_error,
                   fmt::format("argnums must be ints, got {}", interp.Repr(item)));
    }
    out.push_back(item.integral());
  }
  return out;
}

// A string or a sequence of strings (static_argnames).
std::vector<std::string> NamesArg(Interpreter& interp, const std::optional<Value>& v) {
  std::vector<std::string> out;
  if (!v || v->is_none()) return out;
  if (v->as<eval::StrObject>()) return {interp.Str(*v)};
  for (const Value& item : interp.ToVector(*v)) out.push_back(interp.Str(item));
  return out;
}

Value MakeJit(Interpreter& interp, const Value& fun, std::vector<int64_t> nums,
              std::vector<std::string> names) {
  if (!eval::IsCallable(interp, fun)) {
    interp.Raise(interp.types().type_error,
                 fmt::format("Expected a callable value, got {}", interp.Repr(fun)));
  }
  // JAX infers the names of static positions and the positions of static names.
  if (std::optional<std::vector<std::string>> params = PositionalNames(fun)) {
    int64_t count = static_cast<int64_t>(params->size());
    std::string tuple;  // Python's repr of the tuple, without its parentheses
    for (size_t i = 0; i < nums.size(); ++i) tuple += fmt::format("{}{}", i ? ", " : "", nums[i]);
    if (nums.size() == 1) tuple += ",";
    for (int64_t num : nums) {
      if (num >= count || num < -count) {
        interp.Raise(interp.types().value_error,
                     fmt::format("Jitted function has static_argnums=({}), but only accepts {} "
                                 "positional arguments.",
                                 tuple, count));
      }
      std::string name = (*params)[static_cast<size_t>(num < 0 ? num + count : num)];
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    for (const std::string& name : names) {
      auto it = std::find(params->begin(), params->end(), name);
      int64_t at = it - params->begin();
      if (it != params->end() && std::find(nums.begin(), nums.end(), at) == nums.end()) {
        nums.push_back(at);
      }
    }
  }
  auto object = std::make_shared<JitObject>(fun, std::move(nums), std::move(names));
  interp.Track(object);
  return Value(object);
}

}  // namespace

void InstallJit(Interpreter& interp) {
  auto jax = interp.FindModule("jax");
  jax->Set("jit", interp.MakeBuiltin("jit", [](Interpreter& interp, CallArgs& args) -> Value {
    auto bound =
        eval::BindArgs(interp, "jit", args,
                       {"fun=", "*", "in_shardings=", "out_shardings=", "static_argnums=",
                        "static_argnames=", "donate_argnums=", "donate_argnames=", "keep_unused=",
                        "device=", "backend=", "inline=", "abstracted_axes=", "compiler_options="});
    std::vector<int64_t> nums = IntsArg(interp, bound[3]);
    std::vector<std::string> names = NamesArg(interp, bound[4]);
    IntsArg(interp, bound[5]);  // donated buffers: accepted (nothing is donated eagerly)
    if (!bound[0] || bound[0]->is_none()) {
      // `jax.jit(static_argnames=...)` without the function: a decorator.
      return interp.MakeBuiltin("jit", [nums, names](Interpreter& interp, CallArgs& inner) {
        auto f = eval::BindArgs(interp, "jit", inner, {"fun"});
        return MakeJit(interp, *f[0], nums, names);
      });
    }
    return MakeJit(interp, *bound[0], nums, names);
  }));
}

}  // namespace pz::kernel

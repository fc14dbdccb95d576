// `jax.experimental.checkify` for eager programs: `checkify.check(pred, msg, *fmt_args,
// **fmt_kwargs)` records a failed check in the innermost `checkify.checkify(f)` call in progress
// (the first failure wins, as in JAX) or, outside one, raises JaxRuntimeError at once;
// `checkify.checkify(f)` returns `f` turned into a function giving `(error, result)`, where
// `error.get()` is the message or None and `error.throw()` raises it. The automatic checks
// (nan, division, index) are not modelled: asking for them is a clear error.
#include "kernel/checkify.h"

#include <fmt/format.h>

#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "kernel/control_flow.h"
#include "kernel/modules.h"
#include "kernel/pytree.h"
#include "kernel/trace.h"

namespace pz::kernel {

using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

namespace {

// Per interpreter: the failure of each checkify call in progress (innermost last; "" = none).
struct CheckifyState {
  std::vector<std::string> frames;
  eval::TypeObject* runtime_error = nullptr;  // JaxRuntimeError
};

CheckifyState& StateOf(Interpreter& interp) {
  CheckifyState& state = interp.State<CheckifyState>();
  if (state.runtime_error == nullptr) {
    state.runtime_error = interp.NewExceptionType("JaxRuntimeError", interp.types().runtime_error);
    state.runtime_error->module = "jax.errors";
  }
  return state;
}

[[noreturn]] void RaiseFailure(Interpreter& interp, const std::string& message) {
  interp.Raise(StateOf(interp).runtime_error, message);
}

Value Check(Interpreter& interp, CallArgs& args) {
  if (args.positional.size() < 2) {
    interp.Raise(interp.types().type_error, "check() missing required arguments: 'pred' and 'msg'");
  }
  const Value& pred = args.positional[0];
  if (CurrentTrace(interp) != nullptr) {
    interp.RaiseWithNotes(interp.types().not_implemented_error,
                          "checkify.check inside a kernel is not supported by this emulator",
                          {"check the condition before the pallas_call, on its operands"});
  }
  auto* msg = args.positional[1].as<eval::StrObject>();
  if (msg == nullptr) {
    interp.Raise(interp.types().type_error, fmt::format("check msg must be a string, got {}",
                                                        interp.TypeName(args.positional[1])));
  }
  // JAX formats with arrays only: every leaf of the formatting arguments must be an array.
  CallArgs format{.positional = {args.positional.begin() + 2, args.positional.end()},
                  .keywords = args.keywords,
                  .span = interp.current_span()};
  std::vector<Value> leaves;
  Flatten(interp, eval::MakeTuple(format.positional), leaves);
  for (const auto& [name, value] : format.keywords) Flatten(interp, value, leaves);
  for (const Value& leaf : leaves) {
    if (leaf.as<eval::ArrayObject>() == nullptr) {
      interp.Raise(interp.types().type_error,
                   fmt::format("Formatting arguments to checkify.check need to be PyTrees of "
                               "arrays, but got {} of type <class '{}'>.",
                               interp.Repr(leaf), interp.TypeName(leaf)));
    }
  }
  if (interp.Truthy(pred)) return Value();
  std::string message =
      eval::StrFormatMethod(interp, msg->value, format).as<eval::StrObject>()->value +
      " (`check` failed)";
  CheckifyState& state = StateOf(interp);
  if (state.frames.empty()) RaiseFailure(interp, message);
  if (state.frames.back().empty()) state.frames.back() = message;
  return Value();
}

// The `error` of a checkified call.
class ErrorObject final : public eval::Object {
 public:
  explicit ErrorObject(std::string message)
      : Object(eval::ObjectKind::kExtension), message_(std::move(message)) {}
  std::string_view type_name() const override { return "Error"; }
  std::string Repr(Interpreter&) const override {
    return message_.empty() ? "Error(No errors)" : "Error(" + message_ + ")";
  }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override {
    std::string message = message_;
    if (name == "get") {
      return interp.MakeBuiltin("get", [message](Interpreter& interp, CallArgs& args) {
        eval::CheckArgCount(interp, "get", args, 0, 0);
        return message.empty() ? Value() : eval::MakeStr(message);
      });
    }
    if (name == "throw") {
      return interp.MakeBuiltin("throw", [message](Interpreter& interp, CallArgs& args) {
        eval::CheckArgCount(interp, "throw", args, 0, 0);
        if (!message.empty()) RaiseFailure(interp, message);
        return Value();
      });
    }
    return std::nullopt;
  }

 private:
  std::string message_;
};

Value Checkify(Interpreter& interp, CallArgs& args) {
  auto bound = eval::BindArgs(interp, "checkify", args, {"f", "errors="});
  if (bound[1] && !bound[1]->is_none()) {
    auto user = interp.FindModule("jax.experimental.checkify")->attrs.at("user_checks");
    if (!interp.Equals(*bound[1], user)) {
      interp.RaiseWithNotes(interp.types().not_implemented_error,
                            "checkify's automatic checks (nan, division, index) are not "
                            "supported by this emulator yet",
                            {"errors=checkify.user_checks (the default) runs the "
                             "checkify.check calls of the function"});
    }
  }
  Value f = *bound[0];
  return interp.MakeBuiltin("checkified", [f](Interpreter& interp, CallArgs& call) {
    CheckifyState& state = StateOf(interp);
    state.frames.emplace_back();
    Value out;
    try {
      out = interp.Call(f, call);
    } catch (...) {
      state.frames.pop_back();
      throw;
    }
    std::string message = std::move(state.frames.back());
    state.frames.pop_back();
    return eval::MakeTuple({Value(std::make_shared<ErrorObject>(std::move(message))), out});
  });
}

}  // namespace

void InstallCheckify(Interpreter& interp) {
  auto experimental = interp.FindModule("jax.experimental");
  auto checkify = std::make_shared<eval::ModuleObject>("jax.experimental.checkify");
  AddBuiltin(interp, *checkify, "check", Check);
  AddBuiltin(interp, *checkify, "checkify", Checkify);
  // The error sets name what `errors=` asks for; only user checks are modelled.
  eval::TypeObject* failed = interp.NewExceptionType("FailedCheckError", interp.types().exception);
  failed->module = "jax._src.checkify";
  auto error_set = [&](std::vector<Value> types) {
    return interp.Call(interp.builtins().at("set"), {eval::MakeList(std::move(types))});
  };
  checkify->Set("user_checks", error_set({Value(failed->shared_from_this())}));
  for (const char* name : {"nan_checks", "div_checks", "index_checks", "float_checks",
                           "automatic_checks", "all_checks"}) {
    eval::TypeObject* type = interp.NewExceptionType(name, interp.types().exception);
    checkify->Set(name, error_set({Value(type->shared_from_this())}));
  }
  interp.RegisterModule("jax.experimental.checkify", checkify);
  experimental->Set("checkify", Value(checkify));
  auto errors = interp.FindModule("jax.errors");
  if (errors)
    errors->Set("JaxRuntimeError", Value(StateOf(interp).runtime_error->shared_from_this()));
}

}  // namespace pz::kernel

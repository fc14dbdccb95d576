// Calls: dispatch on the callee's kind (user function, builtin, bound method, partial, type,
// extension object), Python's argument binding for user functions with CPython's error
// messages, and the call stack with its recursion limit.
#include <fmt/format.h>

#include "eval/builtin_support.h"
#include "eval/evaluator.h"

namespace pz::eval {

Value Interpreter::Call(const Value& callee, std::vector<Value> positional) {
  CallArgs args;
  args.positional = std::move(positional);
  args.span = current_span();
  return Call(callee, std::move(args));
}

Value Interpreter::Call(const Value& callee, CallArgs args) {
  if (!callee.is_object()) {
    Raise(types_.type_error, fmt::format("'{}' object is not callable", TypeName(callee)));
  }
  Object& object = *callee.object();
  switch (object.kind()) {
    case ObjectKind::kFunction:
      return Evaluator(*this).CallFunction(static_cast<FunctionObject&>(object), args);
    case ObjectKind::kBuiltinFunction: {
      Step();
      // Keep the callee alive even if the call drops the last other reference to it.
      ObjectRef keep = callee.object();
      return static_cast<BuiltinFunctionObject&>(object).fn(*this, args);
    }
    case ObjectKind::kBoundMethod: {
      auto& method = static_cast<BoundMethodObject&>(object);
      args.positional.insert(args.positional.begin(), method.self);
      return Call(method.function, std::move(args));
    }
    case ObjectKind::kPartial: {
      auto& partial = static_cast<PartialObject&>(object);
      CallArgs merged;
      merged.span = args.span;
      merged.positional = partial.args;
      merged.positional.insert(merged.positional.end(), args.positional.begin(),
                               args.positional.end());
      merged.keywords = partial.keywords;
      for (auto& [name, value] : args.keywords) {
        bool replaced = false;
        for (auto& [existing, v] : merged.keywords) {
          if (existing == name) {
            v = value;
            replaced = true;
          }
        }
        if (!replaced) merged.keywords.emplace_back(name, value);
      }
      return Call(partial.func, std::move(merged));
    }
    case ObjectKind::kType: {
      auto& type = static_cast<TypeObject&>(object);
      if (!type.constructor) {
        Raise(types_.type_error, fmt::format("cannot create '{}' instances", type.name));
      }
      return type.constructor(*this, type, args);
    }
    default:
      if (std::optional<Value> result = object.Call(*this, args)) return *result;
      Raise(types_.type_error, fmt::format("'{}' object is not callable", TypeName(callee)));
  }
}

Value Evaluator::MakeFunction(std::shared_ptr<const FunctionCode> code, const lang::Params& params,
                              Scope& scope) {
  std::vector<Value> defaults(params.params.size());
  std::vector<bool> has_default(params.params.size(), false);
  for (size_t i = 0; i < params.params.size(); ++i) {
    if (params.params[i].default_value) {
      defaults[i] = Eval(*params.params[i].default_value, scope);
      has_default[i] = true;
    }
  }
  std::shared_ptr<Environment> closure;
  if (scope.code != nullptr) {
    // A function defined in a class body does not see the class's names.
    closure = scope.code->is_class ? scope.env->parent : scope.env;
    if (closure) interp_.TrackEnvironment(closure);
  }
  auto function = std::make_shared<FunctionObject>(std::move(code), closure, std::move(defaults),
                                                   scope.globals->shared_from_this());
  function->has_default = std::move(has_default);
  return Value(function);
}

Value Evaluator::CallFunction(FunctionObject& function, CallArgs& args) {
  ObjectRef keep = function.shared_from_this();
  const FunctionCode& code = *function.code;
  if (interp_.depth() >= interp_.options().max_recursion) {
    interp_.Raise(interp_.types().recursion_error, "maximum recursion depth exceeded");
  }
  auto env = std::make_shared<Environment>(&code, function.closure);
  BindArguments(function, args, *env);
  if (interp_.call_observer) interp_.call_observer(function, *env, interp_.current_span());
  interp_.frames_.push_back(Interpreter::Frame{code.name, code.span, &function, env.get()});
  struct PopFrame {
    Interpreter& interp;
    ~PopFrame() { interp.frames_.pop_back(); }
  } pop{interp_};
  interp_.Step();
  Scope scope{env, &code, function.globals.get(), Value()};
  if (code.lambda_body != nullptr) return Eval(*code.lambda_body, scope);
  ExecBlock(*code.body, scope);
  return scope.return_value;
}

void Evaluator::BindArguments(FunctionObject& function, CallArgs& args, Environment& env) {
  const FunctionCode& code = *function.code;
  const std::vector<lang::Param>& params = code.params->params;
  const std::string& fname = code.qualname;
  std::vector<bool> bound(params.size(), false);
  const lang::Param* var_args = nullptr;
  const lang::Param* var_kwargs = nullptr;
  std::vector<size_t> positional;  // indices of positional-capable params
  size_t positional_defaults = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    switch (params[i].kind) {
      case lang::ParamKind::kPositionalOnly:
      case lang::ParamKind::kNormal:
        positional.push_back(i);
        if (function.has_default[i]) ++positional_defaults;
        break;
      case lang::ParamKind::kVarArgs:
        var_args = &params[i];
        break;
      case lang::ParamKind::kVarKwargs:
        var_kwargs = &params[i];
        break;
      case lang::ParamKind::kKeywordOnly:
        break;
    }
  }

  // Positional arguments.
  size_t given = args.positional.size();
  for (size_t i = 0; i < std::min(given, positional.size()); ++i) {
    env.vars[params[positional[i]].name] = args.positional[i];
    bound[positional[i]] = true;
  }
  if (given > positional.size()) {
    if (var_args == nullptr) {
      size_t most = positional.size();
      size_t least = most - positional_defaults;
      std::string takes =
          least == most ? fmt::format("{}", most) : fmt::format("from {} to {}", least, most);
      interp_.Raise(
          interp_.types().type_error,
          fmt::format("{}() takes {} positional argument{} but {} {} given", fname, takes,
                      most == 1 && least == most ? "" : "s", given, given == 1 ? "was" : "were"));
    }
    env.vars[var_args->name] = MakeTuple(
        std::vector<Value>(args.positional.begin() + static_cast<std::ptrdiff_t>(positional.size()),
                           args.positional.end()));
  } else if (var_args != nullptr) {
    env.vars[var_args->name] = MakeTuple({});
  }

  // Keyword arguments.
  std::shared_ptr<DictObject> extra;
  if (var_kwargs != nullptr) {
    extra = std::make_shared<DictObject>();
    interp_.Track(extra);
    env.vars[var_kwargs->name] = Value(extra);
  }
  std::vector<std::string> positional_only_passed;
  for (auto& [name, value] : args.keywords) {
    size_t match = params.size();
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].name == name && (params[i].kind == lang::ParamKind::kNormal ||
                                     params[i].kind == lang::ParamKind::kKeywordOnly)) {
        match = i;
      }
    }
    if (match < params.size()) {
      if (bound[match]) {
        interp_.Raise(interp_.types().type_error,
                      fmt::format("{}() got multiple values for argument '{}'", fname, name));
      }
      env.vars[name] = value;
      bound[match] = true;
      continue;
    }
    if (extra) {
      extra->Set(interp_, MakeStr(name), value);
      continue;
    }
    bool positional_only = false;
    for (const lang::Param& p : params) {
      positional_only |= p.kind == lang::ParamKind::kPositionalOnly && p.name == name;
    }
    if (positional_only) {
      positional_only_passed.push_back(name);
      continue;
    }
    interp_.Raise(interp_.types().type_error,
                  fmt::format("{}() got an unexpected keyword argument '{}'", fname, name));
  }
  if (!positional_only_passed.empty()) {
    std::string names;
    for (const std::string& n : positional_only_passed) names += (names.empty() ? "" : ", ") + n;
    interp_.Raise(interp_.types().type_error,
                  fmt::format("{}() got some positional-only arguments passed as keyword "
                              "arguments: '{}'",
                              fname, names));
  }

  // Defaults and missing arguments.
  std::vector<std::string> missing_positional;
  std::vector<std::string> missing_keyword;
  for (size_t i = 0; i < params.size(); ++i) {
    const lang::Param& p = params[i];
    if (bound[i] || p.kind == lang::ParamKind::kVarArgs || p.kind == lang::ParamKind::kVarKwargs) {
      continue;
    }
    if (function.has_default[i]) {
      env.vars[p.name] = function.defaults[i];
    } else if (p.kind == lang::ParamKind::kKeywordOnly) {
      missing_keyword.push_back(p.name);
    } else {
      missing_positional.push_back(p.name);
    }
  }
  if (!missing_positional.empty()) {
    RaiseMissingArguments(interp_, fname + "()", missing_positional, "positional");
  }
  if (!missing_keyword.empty()) {
    RaiseMissingArguments(interp_, fname + "()", missing_keyword, "keyword-only");
  }
}

}  // namespace pz::eval

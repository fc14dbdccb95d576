// Interpreter: owns the session's runtime state (types, builtins, modules, globals, call stack,
// limits), runs modules, and turns uncaught Python exceptions into Diagnostics.
#include "eval/interpreter.h"

#include <fmt/format.h>

#include <algorithm>

#include "array/array.h"
#include "array/prims.h"
#include "eval/classes.h"
#include "eval/evaluator.h"
#include "eval/scope.h"
#include "support/large_stack.h"

namespace pz::eval {

Interpreter::Interpreter(SourceManager& sources, InterpreterOptions options)
    : sources_(sources), options_(std::move(options)) {
  InitTypes();
  ellipsis_ = Value(std::make_shared<EllipsisObject>());
  globals_ = std::make_shared<Environment>(nullptr, nullptr);
  globals_->vars["__name__"] = MakeStr("__main__");
  builtins_["Ellipsis"] = ellipsis_;
  InstallTypeConstructors(*this);
  InstallBuiltins(*this);
  InstallModules(*this);
  InstallClassSupport(*this);
}

Interpreter::~Interpreter() {
  extension_state_.clear();
  // Break reference cycles (closures ↔ scopes, self-containing lists) so everything is freed.
  std::vector<std::shared_ptr<Environment>> envs;
  for (auto& weak : environments_) {
    if (auto env = weak.lock()) envs.push_back(std::move(env));
  }
  envs.push_back(globals_);
  std::vector<ObjectRef> objects;
  for (auto& weak : tracked_) {
    if (auto object = weak.lock()) objects.push_back(std::move(object));
  }
  for (auto& [name, module] : modules_) objects.push_back(module);
  for (auto& [name, module] : file_modules_) objects.push_back(module);
  for (auto& type : type_storage_) objects.push_back(type);
  for (auto& env : envs) env->Clear();
  for (auto& object : objects) object->ClearReferences();
  builtins_.clear();
}

void Interpreter::InitTypes() {
  auto make = [&](const char* name, TypeObject* base) {
    auto type = std::make_shared<TypeObject>(name, base, nullptr);
    type_storage_.push_back(type);
    builtins_[name] = Value(type);
    return type.get();
  };
  BuiltinTypes& t = types_;
  t.object = make("object", nullptr);
  t.none_type = make("NoneType", t.object);
  builtins_.erase("NoneType");
  t.int_type = make("int", t.object);
  t.bool_type = make("bool", t.int_type);
  t.float_type = make("float", t.object);
  t.str_type = make("str", t.object);
  t.tuple_type = make("tuple", t.object);
  t.list_type = make("list", t.object);
  t.dict_type = make("dict", t.object);
  t.set_type = make("set", t.object);
  t.slice_type = make("slice", t.object);
  t.range_type = make("range", t.object);
  t.function_type = make("function", t.object);
  builtins_.erase("function");
  t.module_type = make("module", t.object);
  builtins_.erase("module");
  t.type_type = make("type", t.object);

  t.base_exception = make("BaseException", t.object);
  t.exception = make("Exception", t.base_exception);
  t.arithmetic_error = make("ArithmeticError", t.exception);
  t.zero_division_error = make("ZeroDivisionError", t.arithmetic_error);
  t.overflow_error = make("OverflowError", t.arithmetic_error);
  t.lookup_error = make("LookupError", t.exception);
  t.index_error = make("IndexError", t.lookup_error);
  t.key_error = make("KeyError", t.lookup_error);
  t.value_error = make("ValueError", t.exception);
  t.type_error = make("TypeError", t.exception);
  t.name_error = make("NameError", t.exception);
  t.unbound_local_error = make("UnboundLocalError", t.name_error);
  t.attribute_error = make("AttributeError", t.exception);
  t.assertion_error = make("AssertionError", t.exception);
  t.runtime_error = make("RuntimeError", t.exception);
  t.recursion_error = make("RecursionError", t.runtime_error);
  t.not_implemented_error = make("NotImplementedError", t.runtime_error);
  t.import_error = make("ImportError", t.exception);
  t.module_not_found_error = make("ModuleNotFoundError", t.import_error);
  t.stop_iteration = make("StopIteration", t.exception);
  t.syntax_error = make("SyntaxError", t.exception);
  t.unicode_error = make("UnicodeError", t.value_error);
  t.unicode_decode_error = make("UnicodeDecodeError", t.unicode_error);
  t.unicode_encode_error = make("UnicodeEncodeError", t.unicode_error);

  // Every exception type constructs an instance holding its arguments.
  for (auto& type : type_storage_) {
    if (!type->IsSubtypeOf(t.base_exception)) continue;
    type->constructor = [](Interpreter& interp, TypeObject& self, CallArgs& args) {
      if (!args.keywords.empty()) {
        interp.Raise(interp.types().type_error,
                     fmt::format("{}() takes no keyword arguments", self.name));
      }
      return Value(interp.NewException(&self, args.positional));
    };
  }
}

void Interpreter::Warn(std::string message, std::vector<std::string> notes) {
  SourceSpan span = current_span();
  for (auto& [warning, repeats] : warnings_) {
    if (warning.span && *warning.span == span && warning.message == message) {
      ++repeats;
      return;
    }
  }
  Diagnostic warning{.severity = Severity::kWarning, .message = std::move(message), .span = span};
  for (std::string& note : notes) warning.notes.push_back({.message = std::move(note)});
  warnings_.emplace_back(std::move(warning), 0);
}

std::vector<Diagnostic> Interpreter::warnings() const {
  std::vector<Diagnostic> out;
  for (const auto& [warning, repeats] : warnings_) {
    out.push_back(warning);
    if (repeats > 0) {
      out.back().notes.push_back({.message = fmt::format("the same happened {} more time{} here",
                                                         repeats, repeats == 1 ? "" : "s")});
    }
  }
  return out;
}

TypeObject* Interpreter::NewExceptionType(std::string name, TypeObject* base) {
  auto type = std::make_shared<TypeObject>(std::move(name), base, base->constructor);
  type_storage_.push_back(type);
  return type.get();
}

TypeObject* Interpreter::AdoptType(std::shared_ptr<TypeObject> type) {
  type_storage_.push_back(type);
  return type.get();
}

std::optional<Diagnostic> Interpreter::RunModule(lang::Module module) {
  programs_.push_back(std::make_unique<lang::Module>(std::move(module)));
  const lang::Module& program = *programs_.back();
  if (import_root_.empty()) SetImportRoot(program.file);
  std::optional<Diagnostic> result;
  // The program runs on a thread of its own with a large stack, as if on the caller's: a
  // recorder listening there (a divergence search's) hears its primitives.
  array::PrimRecorder* recorder = array::detail::t_recorder;
  RunOnLargeStack([&] {
    array::ScopedPrimRecorder listen(recorder);
    array::ScopedAllocationLimit allocation_limit(options_.max_array_bytes);
    size_t depth = frames_.size();
    frames_.push_back(Frame{"<module>", SourceSpan{}});
    steps_ = 0;
    if (options_.timeout_seconds > 0) {
      deadline_ = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(options_.timeout_seconds));
    }
    try {
      Evaluator evaluator(*this);
      Scope scope{globals_, nullptr, globals_.get()};
      evaluator.ExecModule(program.body, scope);
    } catch (const PyError& error) {
      result = ToDiagnostic(error);
    } catch (const LimitExceeded& error) {
      result = ToDiagnostic(error);
    }
    frames_.resize(depth);
    handling_.clear();
    loops_.clear();
  });
  return result;
}

// ---- Errors ----------------------------------------------------------------------------------

std::shared_ptr<ExceptionObject> Interpreter::NewException(TypeObject* type,
                                                           std::vector<Value> args) {
  return std::make_shared<ExceptionObject>(type, std::move(args));
}

void Interpreter::Throw(std::shared_ptr<ExceptionObject> exception) {
  if (!exception->span.valid() && exception->traceback.empty()) {
    exception->span = current_span();
    exception->traceback = Traceback();
  }
  throw PyError{std::move(exception)};
}

void Interpreter::Raise(TypeObject* type, std::string message) {
  Throw(NewException(type, {MakeStr(std::move(message))}));
}

void Interpreter::RaiseAt(SourceSpan span, TypeObject* type, std::string message) {
  if (!frames_.empty()) frames_.back().span = span;
  Raise(type, std::move(message));
}

void Interpreter::RaiseWithNotes(TypeObject* type, std::string message,
                                 std::vector<std::string> notes) {
  auto exception = NewException(type, {MakeStr(std::move(message))});
  exception->notes = std::move(notes);
  Throw(std::move(exception));
}

SourceSpan Interpreter::current_span() const {
  return frames_.empty() ? SourceSpan{} : frames_.back().span;
}

std::vector<TraceEntry> Interpreter::Traceback() const {
  std::vector<TraceEntry> trace;
  trace.reserve(frames_.size());
  for (const Frame& frame : frames_) trace.push_back(TraceEntry{frame.span, frame.function});
  return trace;
}

namespace {

Diagnostic MakeRuntimeDiagnostic(std::string message, SourceSpan span,
                                 const std::vector<TraceEntry>& traceback) {
  Diagnostic diagnostic;
  diagnostic.phase = Phase::kRuntime;
  diagnostic.message = std::move(message);
  if (span.valid()) diagnostic.span = span;
  // A single frame adds nothing to file:line:col; show the traceback only for nested calls.
  if (traceback.size() > 1) {
    for (const TraceEntry& entry : traceback) {
      diagnostic.traceback.push_back(TraceFrame{entry.span, entry.function});
    }
  }
  return diagnostic;
}

}  // namespace

Diagnostic Interpreter::ToDiagnostic(const PyError& error) {
  const ExceptionObject& exc = *error.exception;
  std::string text = exc.Str(*this);
  // CPython names a class from another module by its module too (dataclasses.FrozenInstanceError).
  std::string type_name = exc.type->name;
  if (exc.type->module != "builtins" && exc.type->module != "__main__") {
    type_name =
        exc.type->module + "." + (exc.type->qualname.empty() ? type_name : exc.type->qualname);
  }
  std::string message = text.empty() ? type_name : type_name + ": " + text;
  Diagnostic diagnostic = MakeRuntimeDiagnostic(std::move(message), exc.span, exc.traceback);
  for (const TypeObject* t = exc.type; t != nullptr; t = t->base) {
    if (t->is_trace_error) diagnostic.phase = Phase::kTrace;
  }
  for (const Note& note : exc.related) diagnostic.notes.push_back(note);
  for (const std::string& note : exc.notes) diagnostic.notes.push_back(Note{note, std::nullopt});
  return diagnostic;
}

Diagnostic Interpreter::ToDiagnostic(const LimitExceeded& error) {
  return MakeRuntimeDiagnostic(error.message, error.span, error.traceback);
}

// ---- Services --------------------------------------------------------------------------------

void Interpreter::Print(std::string_view text) {
  if (options_.output) options_.output(text);
}

void Interpreter::Step() {
  ++steps_;
  if (options_.max_steps > 0 && steps_ > options_.max_steps) {
    throw LimitExceeded{
        fmt::format("step limit of {} exceeded; the program ran too long (an endless loop?); "
                    "raise the limit with `--max-steps N`",
                    options_.max_steps),
        loops_.empty() ? current_span() : loops_.back(), Traceback()};
  }
  if ((steps_ & 1023) == 0) CheckClock();
}

void Interpreter::CheckClock() {
  if (options_.timeout_seconds > 0 && std::chrono::steady_clock::now() > deadline_) {
    throw LimitExceeded{fmt::format("time limit of {} s exceeded; the program ran too long (an "
                                    "endless loop?); raise the limit with `--timeout SECONDS`",
                                    options_.timeout_seconds),
                        loops_.empty() ? current_span() : loops_.back(), Traceback()};
  }
}

namespace {

template <typename T>
void TrackWeak(std::vector<std::weak_ptr<T>>& list, size_t& compact_at,
               const std::shared_ptr<T>& item) {
  list.push_back(item);
  if (list.size() >= compact_at) {
    std::erase_if(list, [](const std::weak_ptr<T>& weak) { return weak.expired(); });
    compact_at = std::max<size_t>(1024, list.size() * 2);
  }
}

}  // namespace

void Interpreter::Track(const ObjectRef& object) {
  TrackWeak(tracked_, tracked_compact_at_, object);
}

void Interpreter::TrackEnvironment(const std::shared_ptr<Environment>& env) {
  TrackWeak(environments_, environments_compact_at_, env);
}

std::shared_ptr<const FunctionCode> Interpreter::CodeFor(
    const void* node, const std::function<std::shared_ptr<FunctionCode>()>& make) {
  auto it = code_cache_.find(node);
  if (it != code_cache_.end()) return it->second;
  std::shared_ptr<const FunctionCode> code = make();
  code_cache_.emplace(node, code);
  return code;
}

void Interpreter::RegisterModule(const std::string& name, std::shared_ptr<ModuleObject> module) {
  modules_[name] = std::move(module);
}

std::vector<std::string> Interpreter::ModuleNames() const {
  std::vector<std::string> names;
  for (const auto& [name, module] : modules_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

Value Interpreter::MakeBuiltin(std::string name, BuiltinFunctionObject::Fn fn) {
  return Value(std::make_shared<BuiltinFunctionObject>(std::move(name), std::move(fn)));
}

}  // namespace pz::eval

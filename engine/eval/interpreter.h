// The tree-walking evaluator for the Python subset. One Interpreter owns all runtime state of a
// session (no globals): builtin types and modules, the global scope, the call stack, limits.
// Library code never prints: `print` writes through InterpreterOptions::output.
//
// Python exceptions travel as C++ exceptions of type PyError through the evaluator; resource
// limits (steps, wall clock) travel as LimitExceeded, which Python `try` cannot catch.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeindex>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "eval/value.h"
#include "lang/ast.h"
#include "support/diagnostic.h"
#include "support/source.h"

namespace pz::eval {

struct InterpreterOptions {
  // Statements, loop iterations and calls executed before the run stops with an error; keeps
  // `while True: pass` from hanging the tool. 0 means unlimited.
  int64_t max_steps = 50'000'000;
  // Nested Python calls allowed before RecursionError (CPython's default is 1000).
  int max_recursion = 1000;
  // Wall-clock seconds before the run stops with an error; 0 means unlimited.
  double timeout_seconds = 0;
  // Largest array (in bytes) a program may allocate; a bigger request is an error naming the
  // shape, not an out-of-memory crash.
  int64_t max_array_bytes = int64_t{4} << 30;
  // Receives everything `print` writes. Defaults to discarding output.
  std::function<void(std::string_view)> output;
};

// A Python exception in flight.
struct PyError {
  std::shared_ptr<ExceptionObject> exception;
};

// A resource limit was hit; not catchable by Python code.
struct LimitExceeded {
  std::string message;  // e.g. "step budget of 1000 exceeded"
  SourceSpan span;
  std::vector<TraceEntry> traceback;
};

// The built-in types, owned by the Interpreter; stable pointers for its lifetime.
struct BuiltinTypes {
  TypeObject* object;  // root of the hierarchy for isinstance(x, object)
  TypeObject *none_type, *bool_type, *int_type, *float_type, *str_type, *tuple_type, *list_type,
      *dict_type, *set_type, *slice_type, *range_type, *function_type, *module_type, *type_type;
  // Exceptions.
  TypeObject *base_exception, *exception, *arithmetic_error, *zero_division_error, *overflow_error,
      *lookup_error, *index_error, *key_error, *value_error, *type_error, *name_error,
      *unbound_local_error, *attribute_error, *assertion_error, *runtime_error, *recursion_error,
      *not_implemented_error, *import_error, *module_not_found_error, *stop_iteration,
      *syntax_error, *unicode_error, *unicode_decode_error, *unicode_encode_error;
};

class Environment;
struct FunctionCode;
class ArrayObject;

// Installed by the kernel layer while a kernel body or index map is being traced. Array functions
// (everything registered with AddFunction) consult it: a call with a tracer among its arguments
// is recorded instead of computed, and concrete arrays are checked before use (a kernel may not
// capture non-scalar constants).
class TraceHooks {
 public:
  virtual ~TraceHooks() = default;
  // `fn` (the builtin `name`) called with at least one tracer in `args`.
  virtual Value TraceArrayFunction(Interpreter& interp, const std::string& name,
                                   const std::function<Value(Interpreter&, CallArgs&)>& fn,
                                   CallArgs& args) = 0;
  // Raises if `array` was created outside the trace and may not be captured by it.
  virtual void CheckConstant(Interpreter& interp, const ArrayObject& array) = 0;
};

class Interpreter {
 public:
  Interpreter(SourceManager& sources, InterpreterOptions options);
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Runs a module as `__main__` in this interpreter's global scope. Returns the diagnostic of an
  // uncaught exception or limit, or nullopt on success. The module is kept alive by the
  // interpreter (functions point into it).
  std::optional<Diagnostic> RunModule(lang::Module module);

  const SourceManager& sources() const { return sources_; }
  const InterpreterOptions& options() const { return options_; }
  const BuiltinTypes& types() const { return types_; }

  // ---- Raising errors -------------------------------------------------------------------
  // Raises a Python exception at the span currently executing (the innermost call or
  // expression), with a traceback of the current call stack.
  [[noreturn]] void Raise(TypeObject* type, std::string message);
  [[noreturn]] void RaiseAt(SourceSpan span, TypeObject* type, std::string message);
  // Same, with extra hint lines rendered as notes under the error.
  [[noreturn]] void RaiseWithNotes(TypeObject* type, std::string message,
                                   std::vector<std::string> notes);
  // Creates an exception instance without raising it.
  std::shared_ptr<ExceptionObject> NewException(TypeObject* type, std::vector<Value> args);
  // Throws an existing exception, filling its span/traceback if not yet set.
  [[noreturn]] void Throw(std::shared_ptr<ExceptionObject> exception);
  // Converts an uncaught error into the Diagnostic the CLI renders.
  Diagnostic ToDiagnostic(const PyError& error);
  Diagnostic ToDiagnostic(const LimitExceeded& error);

  // ---- Python protocols on any Value (raise PyError as Python would) ------------------
  Value Call(const Value& callee, CallArgs args);
  Value Call(const Value& callee, std::vector<Value> positional);
  std::string Repr(const Value& value);
  std::string Str(const Value& value);
  // format(value, spec): Python's format protocol (int/float/str/bool mini-language, objects'
  // Format hook); raises ValueError/TypeError for bad specs.
  std::string Format(const Value& value, std::string_view spec);
  bool Truthy(const Value& value);
  bool Equals(const Value& a, const Value& b);
  // a < b, raising TypeError for unorderable operands.
  bool Less(const Value& a, const Value& b);
  Value Compare(lang::CmpOpKind op, const Value& a, const Value& b);
  size_t Hash(const Value& value);
  // `inplace` only changes the wording of errors (`+=` instead of `+`).
  Value BinaryOp(lang::BinOpKind op, const Value& a, const Value& b, bool inplace = false);
  Value UnaryOp(lang::UnaryOpKind op, const Value& a);
  Value GetAttr(const Value& object, std::string_view name);
  std::optional<Value> TryGetAttr(const Value& object, std::string_view name);
  void SetAttr(const Value& object, std::string_view name, const Value& value);
  Value GetItem(const Value& object, const Value& key);
  void SetItem(const Value& object, const Value& key, const Value& value);
  void DelItem(const Value& object, const Value& key);
  bool Contains(const Value& container, const Value& item);
  int64_t Len(const Value& value);
  // An iterator object for `value` (TypeError "'int' object is not iterable" otherwise).
  ObjectRef GetIter(const Value& value);
  // Like GetIter, but nullptr instead of TypeError for non-iterables.
  ObjectRef TryGetIter(const Value& value);
  std::optional<Value> Next(const ObjectRef& iterator);
  // Calls fn for each item until it returns false.
  void ForEach(const Value& iterable, const std::function<bool(const Value&)>& fn);
  std::vector<Value> ToVector(const Value& iterable);
  // isinstance(value, type)
  bool IsInstance(const Value& value, const TypeObject* type);
  TypeObject* TypeOf(const Value& value);
  // The type object of the extension objects whose type_name() is `name` (what type() and
  // isinstance() see for them), made on first use. A module that defines such objects may fill
  // in its constructor, module and name (`collections.deque`, `re.Pattern`).
  TypeObject* ExtensionType(const std::string& name);
  // Python's type name of a value ("int", "list", extension names).
  std::string TypeName(const Value& value);

  // ---- Services ---------------------------------------------------------------------------
  void Print(std::string_view text);
  // Counts one step against max_steps and checks the wall clock; throws LimitExceeded.
  void Step();
  // Checks the wall clock now (Step checks it every 1024 steps); throws LimitExceeded past the
  // timeout. For builtins that wait (`time.sleep`).
  void CheckClock();
  // Registers an object whose references must be cleared at teardown to break cycles.
  void Track(const ObjectRef& object);
  // Adds an importable builtin module (by dotted name, e.g. "jax.numpy").
  void RegisterModule(const std::string& name, std::shared_ptr<ModuleObject> module);
  // A registered module by dotted name, or nullptr.
  std::shared_ptr<ModuleObject> FindModule(const std::string& name) const {
    auto it = modules_.find(name);
    return it == modules_.end() ? nullptr : it->second;
  }
  // Names of all builtin modules, sorted.
  std::vector<std::string> ModuleNames() const;

  // ---- Imports (eval/imports.cpp) -------------------------------------------------------------
  // The module `import name` names (the last component of a dotted name): a builtin module, or
  // else a `.py` file or package folder under the main program's folder, run once in its own
  // global scope and cached. Builtin modules win over files of the same name. Raises
  // ModuleNotFoundError, or whatever the module's body raises.
  std::shared_ptr<ModuleObject> ImportModule(const std::string& name);
  // The absolute module name of `from <level dots><name> import ...` run in the module whose
  // global scope is `globals`; raises CPython's ImportError for a module outside a package or
  // dots beyond the top-level package.
  std::string ResolveRelativeImport(const std::string& name, int level, Environment& globals);
  // `from module import name`: the module's attribute, or its submodule `name` when it is a
  // package; raises CPython's ImportError otherwise.
  Value ImportFrom(ModuleObject& module, const std::string& name);
  // The names `from module import *` binds: `__all__` when the module defines it, else its
  // names that do not start with an underscore.
  std::vector<std::pair<std::string, Value>> ImportStar(ModuleObject& module);
  // A builtin function value.
  Value MakeBuiltin(std::string name, BuiltinFunctionObject::Fn fn);
  // The `builtins` table consulted after globals.
  std::unordered_map<std::string, Value>& builtins() { return builtins_; }
  Value ellipsis() const { return ellipsis_; }
  // The span of the innermost expression/call being executed.
  SourceSpan current_span() const;
  // Current Python call depth (module level is 1).
  int depth() const { return static_cast<int>(frames_.size()); }
  // The trace in progress (innermost), or nullptr outside kernels.
  TraceHooks* trace_hooks() const { return trace_hooks_; }
  void set_trace_hooks(TraceHooks* hooks) { trace_hooks_ = hooks; }
  // A new exception type deriving from `base` (e.g. JAX's TracerBoolConversionError), owned by
  // the interpreter; not added to the builtins.
  TypeObject* NewExceptionType(std::string name, TypeObject* base);
  // Takes ownership of a type made elsewhere (a user class); it lives as long as the interpreter.
  TypeObject* AdoptType(std::shared_ptr<TypeObject> type);
  // The user function executing in the innermost Python frame and its locals, or nulls at
  // module level (what zero-argument `super()` reads).
  std::pair<const FunctionObject*, Environment*> CurrentFunction() const {
    return {frames_.back().function_object, frames_.back().locals};
  }
  // A warning about the program at the current span (a JAX behaviour that silently changes a
  // result, such as an out-of-bounds `.at[...].set` that JAX drops). A warning with the same
  // span and message as an earlier one is counted, not repeated; warnings() gives them in order,
  // a recurring one with a note saying how often it recurred.
  void Warn(std::string message, std::vector<std::string> notes = {});
  std::vector<Diagnostic> warnings() const;
  // Told of every call of a Python function once its arguments are bound: the function, its
  // new locals (the parameters, by name) and the place of the call. Set by a divergence search
  // (course/eager_record.h) to compare what the learner's code passes with the solution's;
  // empty otherwise.
  std::function<void(const FunctionObject&, const Environment&, SourceSpan)> call_observer;
  // Per-session state of modules and later layers: one object of each type T (a struct its
  // owner defines), made on first use with T's default constructor and destroyed with the
  // interpreter. FindState gives null where none was made; SetState installs one made elsewhere.
  template <class T>
  T& State() {
    std::shared_ptr<void>& slot = extension_state_[std::type_index(typeid(T))];
    if (!slot) slot = std::make_shared<T>();
    return *static_cast<T*>(slot.get());
  }
  template <class T>
  T* FindState() const {
    auto it = extension_state_.find(std::type_index(typeid(T)));
    return it == extension_state_.end() ? nullptr : static_cast<T*>(it->second.get());
  }
  template <class T>
  void SetState(std::shared_ptr<T> state) {
    extension_state_[std::type_index(typeid(T))] = std::move(state);
  }

 private:
  friend class Evaluator;
  struct Frame {
    std::string function;
    SourceSpan span;
    const FunctionObject* function_object = nullptr;
    Environment* locals = nullptr;
  };
  void InitTypes();
  Value SetOperation(lang::BinOpKind op, SetObject& a, SetObject& b);
  std::optional<Value> UnboundMethod(TypeObject& type, std::string_view name);
  std::vector<TraceEntry> Traceback() const;
  void SetSpan(SourceSpan span) { frames_.back().span = span; }
  // Registers an environment captured by a closure, cleared at teardown to break cycles.
  void TrackEnvironment(const std::shared_ptr<Environment>& env);
  // Imports (eval/imports.cpp): the child `part` of `parent` (nullptr: a top-level module),
  // loaded from its file if not yet cached; nullptr when no file or folder has that name.
  std::shared_ptr<ModuleObject> FindFileModule(ModuleObject* parent, const std::string& name,
                                               const std::string& part);
  // Runs the module file `path` as module `name` (a package when `package_dir` is set).
  std::shared_ptr<ModuleObject> LoadFileModule(const std::string& name,
                                               const std::filesystem::path& path,
                                               const std::filesystem::path& package_dir);
  // Remembers the folder of the main program `file` as the root of file imports.
  void SetImportRoot(FileId file);
  std::shared_ptr<const FunctionCode> CodeFor(
      const void* node, const std::function<std::shared_ptr<FunctionCode>()>& make);

  SourceManager& sources_;
  InterpreterOptions options_;
  BuiltinTypes types_{};
  std::vector<std::shared_ptr<TypeObject>> type_storage_;
  std::unordered_map<std::string, TypeObject*> extension_types_;
  std::unordered_map<std::string, Value> builtins_;
  std::unordered_map<std::string, std::shared_ptr<ModuleObject>> modules_;
  // Modules run from files, by dotted name (CPython's `sys.modules` for them); a module is in
  // it while its body runs, and removed again when its body raises.
  std::unordered_map<std::string, std::shared_ptr<ModuleObject>> file_modules_;
  // Folder of the main program, canonical; empty when the program is not a file on disk (then
  // only builtin modules can be imported). Module files are never read from outside it.
  std::filesystem::path import_root_;
  // The same folder as the main program's path names it, to name module files in diagnostics.
  std::filesystem::path import_display_root_;
  std::shared_ptr<Environment> globals_;
  std::vector<std::unique_ptr<lang::Module>> programs_;
  std::unordered_map<const void*, std::shared_ptr<const FunctionCode>> code_cache_;
  std::vector<Frame> frames_;
  std::unordered_set<const Object*> repr_active_;  // containers being repr()'d (cycle guard)
  // Headers of the loops being executed, innermost last: a step-limit error points at the
  // innermost one, which is the loop that ran away.
  std::vector<SourceSpan> loops_;
  std::vector<std::weak_ptr<Object>> tracked_;
  size_t tracked_compact_at_ = 1024;
  std::vector<std::weak_ptr<Environment>> environments_;
  size_t environments_compact_at_ = 1024;
  // Exceptions being handled by enclosing `except` blocks (innermost last), for bare `raise`.
  std::vector<std::shared_ptr<ExceptionObject>> handling_;
  Value ellipsis_;
  TraceHooks* trace_hooks_ = nullptr;
  std::unordered_map<std::type_index, std::shared_ptr<void>> extension_state_;
  std::vector<std::pair<Diagnostic, int64_t>> warnings_;  // with how often each recurred
  int64_t steps_ = 0;
  std::chrono::steady_clock::time_point deadline_;
};

// ---- Argument binding for builtins ----------------------------------------------------------
// Binds `args` to parameter names for a builtin called `function`. Names ending in '=' are
// optional; a name "/" ends the positional-only parameters and "*" starts the keyword-only
// ones. Raises the TypeError CPython gives for missing, extra or unexpected arguments. Missing
// optionals are nullopt.
std::vector<std::optional<Value>> BindArgs(Interpreter& interp, std::string_view function,
                                           const CallArgs& args,
                                           std::initializer_list<std::string_view> names);

// Registration of builtins (eval/builtins*.cpp) and builtin modules (eval/modules.cpp).
void InstallTypeConstructors(Interpreter& interp);
void InstallBuiltins(Interpreter& interp);
void InstallModules(Interpreter& interp);
// Python's float divmod(x, y) for y != 0: {floor(x / y), x mod y} with CPython's rounding fixes.
std::pair<double, double> FloatDivmod(double x, double y);
// `format % args` for str (a tuple for several values, else one value).
Value PercentFormat(Interpreter& interp, const std::string& format, const Value& args);
// Methods of built-in kinds: `'a,b'.split`, `[].append`, `{}.get`, ... nullopt if no such method.
std::optional<Value> GetBuiltinMethod(Interpreter& interp, const Value& self,
                                      std::string_view name);

}  // namespace pz::eval

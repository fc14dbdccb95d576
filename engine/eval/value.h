// Runtime values of the Python-subset evaluator. A Value is an immediate (None, bool, int, float)
// or a reference to a heap Object. Built-in types (str, tuple, list, dict, ...) are Object
// subclasses identified by ObjectKind; later layers (arrays, tracers, refs) add their own
// Object subclasses with kind kExtension and implement the protocol hooks of Object.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "lang/ast.h"
#include "support/diagnostic.h"
#include "support/source.h"

namespace pz::eval {

class Interpreter;
class Object;
class TypeObject;
struct ClassExtras;  // eval/classes.h
using ObjectRef = std::shared_ptr<Object>;

enum class ObjectKind {
  kStr,
  kTuple,
  kList,
  kDict,
  kSet,
  kSlice,
  kEllipsis,
  kRange,
  kIterator,
  kFunction,
  kBuiltinFunction,
  kBoundMethod,
  kPartial,
  kModule,
  kType,
  kException,
  kExtension,  // defined by a later layer (array, kernel, tpu)
};

struct NoneValue {
  friend bool operator==(NoneValue, NoneValue) { return true; }
};

// An immediate or a heap reference. Copying a Value is cheap (at most a shared_ptr copy).
class Value {
 public:
  Value() = default;  // None
  Value(NoneValue) {}
  static Value Bool(bool b) { return Value(Storage(b)); }
  static Value Int(int64_t i) { return Value(Storage(i)); }
  static Value Float(double d) { return Value(Storage(d)); }
  Value(ObjectRef object) : storage_(std::move(object)) {}  // NOLINT: implicit by design
  template <typename T>
  Value(std::shared_ptr<T> object) : storage_(ObjectRef(std::move(object))) {}  // NOLINT

  bool is_none() const { return std::holds_alternative<NoneValue>(storage_); }
  bool is_bool() const { return std::holds_alternative<bool>(storage_); }
  bool is_int() const { return std::holds_alternative<int64_t>(storage_); }
  bool is_float() const { return std::holds_alternative<double>(storage_); }
  bool is_object() const { return std::holds_alternative<ObjectRef>(storage_); }
  // int or bool (bool is a subclass of int in Python)
  bool is_integral() const { return is_int() || is_bool(); }
  // int, bool or float
  bool is_number() const { return is_integral() || is_float(); }

  bool as_bool() const { return std::get<bool>(storage_); }
  int64_t as_int() const { return std::get<int64_t>(storage_); }
  double as_float() const { return std::get<double>(storage_); }
  // Integral value of an int or bool.
  int64_t integral() const { return is_bool() ? (as_bool() ? 1 : 0) : as_int(); }
  // Numeric value of an int, bool or float as double.
  double number() const { return is_float() ? as_float() : static_cast<double>(integral()); }
  const ObjectRef& object() const { return std::get<ObjectRef>(storage_); }

  // The object's kind, or nullopt for immediates.
  std::optional<ObjectKind> kind() const;
  bool is(ObjectKind k) const { return kind() == k; }
  // Downcast helper: nullptr unless the value is an object of type T.
  template <typename T>
  T* as() const {
    return is_object() ? dynamic_cast<T*>(object().get()) : nullptr;
  }

  // Python `is`: identity for objects, equality of immediates of the same type.
  bool Identical(const Value& other) const;

 private:
  using Storage = std::variant<NoneValue, bool, int64_t, double, ObjectRef>;
  explicit Value(Storage storage) : storage_(std::move(storage)) {}
  Storage storage_;
};

// Arguments of a call, already evaluated.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keywords;  // in call order, names unique
  SourceSpan span;                                      // the call expression
};

// Base of every heap value. The protocol hooks are used for kExtension objects (and by built-in
// kinds where convenient); a hook returning nullopt means "not supported", and the interpreter
// then raises the TypeError/AttributeError Python would.
class Object : public std::enable_shared_from_this<Object> {
 public:
  explicit Object(ObjectKind kind) : kind_(kind) {}
  virtual ~Object() = default;
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  ObjectKind kind() const { return kind_; }
  // Python's type name, as shown in error messages ("list", "function", "Array").
  virtual std::string_view type_name() const = 0;

  virtual std::string Repr(Interpreter& interp) const;
  virtual std::string Str(Interpreter& interp) const { return Repr(interp); }
  virtual std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) {
    return std::nullopt;
  }
  // Returns false when the attribute cannot be set.
  virtual bool SetAttr(Interpreter& interp, std::string_view name, const Value& value) {
    return false;
  }
  virtual std::optional<Value> Call(Interpreter& interp, CallArgs& args) { return std::nullopt; }
  virtual std::optional<Value> GetItem(Interpreter& interp, const Value& key) {
    return std::nullopt;
  }
  virtual bool SetItem(Interpreter& interp, const Value& key, const Value& value) { return false; }
  // self OP other (reflected == false) or other OP self (reflected == true).
  virtual std::optional<Value> Binary(Interpreter& interp, lang::BinOpKind op, const Value& other,
                                      bool reflected) {
    return std::nullopt;
  }
  virtual std::optional<Value> Unary(Interpreter& interp, lang::UnaryOpKind op) {
    return std::nullopt;
  }
  // self OP other for == != < <= > >=; nullopt falls back to identity (==, !=) or TypeError.
  virtual std::optional<Value> Compare(Interpreter& interp, lang::CmpOpKind op, const Value& other,
                                       bool reflected) {
    return std::nullopt;
  }
  virtual std::optional<bool> Truthy(Interpreter& interp) { return std::nullopt; }
  // format(self, spec) for a non-empty spec; nullopt = TypeError (unsupported format string).
  virtual std::optional<std::string> Format(Interpreter& interp, std::string_view spec) {
    return std::nullopt;
  }
  virtual std::optional<int64_t> Len(Interpreter& interp) { return std::nullopt; }
  // `item in self`; nullopt = search the iteration for an equal item, as Python does without
  // `__contains__`.
  virtual std::optional<bool> Contains(Interpreter& interp, const Value& item) {
    return std::nullopt;
  }
  // An iterator object (kind kIterator) over this object, or nullptr if not iterable.
  virtual ObjectRef Iter(Interpreter& interp) { return nullptr; }
  // Value semantics hash/equality for dict keys; nullopt = unhashable.
  virtual std::optional<size_t> Hash(Interpreter& interp) { return std::nullopt; }
  // Drops references to other objects; called at interpreter teardown to break cycles.
  virtual void ClearReferences() {}
  // True for the abstract values of a kernel trace (kernel layer): array functions given one
  // record an instruction instead of computing (see TraceHooks in interpreter.h).
  virtual bool IsTracer() const { return false; }

 private:
  ObjectKind kind_;
};

// ---------------------------------------------------------------------------------------------
// Built-in kinds. Their behaviour lives in the interpreter and builtins; these are data.

class StrObject final : public Object {
 public:
  explicit StrObject(std::string value) : Object(ObjectKind::kStr), value(std::move(value)) {}
  std::string_view type_name() const override { return "str"; }
  const std::string value;
};

class TupleObject final : public Object {
 public:
  explicit TupleObject(std::vector<Value> items, TypeObject* type = nullptr)
      : Object(ObjectKind::kTuple), items(std::move(items)), type(type) {}
  std::string_view type_name() const override;
  void ClearReferences() override { items.clear(); }
  std::vector<Value> items;  // never mutated after construction, except by ClearReferences
  // The NamedTuple class of this tuple, or nullptr for a plain tuple. Classes live as long as the
  // interpreter.
  TypeObject* type = nullptr;
};

class ListObject final : public Object {
 public:
  explicit ListObject(std::vector<Value> items = {})
      : Object(ObjectKind::kList), items(std::move(items)) {}
  std::string_view type_name() const override { return "list"; }
  void ClearReferences() override { items.clear(); }
  std::vector<Value> items;
};

// Insertion-ordered hash table keyed by hashable Values (None, bool, int, float, str, tuple,
// and extension objects that implement Hash). Derived classes are the dict subclasses of
// `collections` (defaultdict, Counter, OrderedDict): dicts to every builtin, whose `type` is
// their class and whose Repr, GetAttr (consulted before the dict methods), Binary, Unary and
// Missing hooks change what they override.
class DictObject : public Object {
 public:
  explicit DictObject(TypeObject* type = nullptr) : Object(ObjectKind::kDict), type(type) {}
  std::string_view type_name() const override { return "dict"; }
  void ClearReferences() override;
  // d[key] for a key that is absent (`__missing__`): its value, or nullopt for KeyError.
  virtual std::optional<Value> Missing(Interpreter& interp, const Value& key) {
    return std::nullopt;
  }

  // The dict subclass this dict is an instance of, or nullptr for a plain dict. Classes live as
  // long as the interpreter.
  TypeObject* const type;

  // All of these raise TypeError through `interp` for unhashable keys.
  std::optional<Value> Get(Interpreter& interp, const Value& key) const;
  void Set(Interpreter& interp, const Value& key, Value value);
  // Returns the removed value, or nullopt if absent.
  std::optional<Value> Remove(Interpreter& interp, const Value& key);
  bool Contains(Interpreter& interp, const Value& key) const {
    return Get(interp, key).has_value();
  }
  size_t size() const { return live_; }
  // Live entries in insertion order.
  std::vector<std::pair<Value, Value>> Items() const;
  void Clear();

 private:
  struct Entry {
    Value key;
    Value value;
    bool live = true;
  };
  std::optional<size_t> Find(Interpreter& interp, const Value& key, size_t hash) const;
  void Compact();

  std::vector<Entry> entries_;
  std::unordered_multimap<size_t, size_t> index_;  // hash → entry position
  size_t live_ = 0;
};

// A set is a dict whose values are unused.
class SetObject final : public Object {
 public:
  SetObject() : Object(ObjectKind::kSet) {}
  std::string_view type_name() const override { return "set"; }
  void ClearReferences() override { table.Clear(); }
  // Elements in iteration order: ascending when all are ints (CPython's order for the small
  // non-negative ints sets usually hold), insertion order otherwise (CPython's order for strings
  // varies from run to run, so no program can rely on it).
  std::vector<Value> Elements() const;
  DictObject table;
};

class SliceObject final : public Object {
 public:
  SliceObject(Value start, Value stop, Value step)
      : Object(ObjectKind::kSlice),
        start(std::move(start)),
        stop(std::move(stop)),
        step(std::move(step)) {}
  std::string_view type_name() const override { return "slice"; }
  Value start, stop, step;  // None when omitted
};

class EllipsisObject final : public Object {
 public:
  EllipsisObject() : Object(ObjectKind::kEllipsis) {}
  std::string_view type_name() const override { return "ellipsis"; }
};

class RangeObject final : public Object {
 public:
  RangeObject(int64_t start, int64_t stop, int64_t step)
      : Object(ObjectKind::kRange), start(start), stop(stop), step(step) {}
  std::string_view type_name() const override { return "range"; }
  int64_t size() const;
  int64_t start, stop, step;
};

// Every iterator (over lists, ranges, dict views, zip, map, ...) is a callback that yields the
// next value or nullopt when exhausted.
class IteratorObject final : public Object {
 public:
  using NextFn = std::function<std::optional<Value>(Interpreter&)>;
  IteratorObject(std::string name, NextFn next)
      : Object(ObjectKind::kIterator), name_(std::move(name)), next_(std::move(next)) {}
  std::string_view type_name() const override { return name_; }
  std::optional<Value> Next(Interpreter& interp) { return next_ ? next_(interp) : std::nullopt; }
  void ClearReferences() override { next_ = nullptr; }

 private:
  std::string name_;
  NextFn next_;
};

class Environment;  // eval/environment.h
struct FunctionCode;

// A user function (def or lambda) with its closure.
class FunctionObject final : public Object {
 public:
  FunctionObject(std::shared_ptr<const FunctionCode> code, std::shared_ptr<Environment> closure,
                 std::vector<Value> defaults, std::shared_ptr<Environment> globals);
  std::string_view type_name() const override { return "function"; }
  std::string Repr(Interpreter& interp) const override;
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  bool SetAttr(Interpreter& interp, std::string_view name, const Value& value) override;
  void ClearReferences() override;

  std::shared_ptr<const FunctionCode> code;
  std::shared_ptr<Environment> closure;  // enclosing function scope; nullptr at module level
  std::vector<Value> defaults;           // one per parameter, None-filled where no default
  std::vector<bool> has_default;
  std::shared_ptr<Environment> globals;
  std::shared_ptr<DictObject> attrs;  // function attributes (f.__name__ is built in)
  // The class whose body defined this function (the `__class__` cell zero-argument `super()`
  // reads), or nullptr.
  TypeObject* defining_class = nullptr;
};

// A function implemented in C++ (`len`, `math.sqrt`, `list.append` before binding, ...).
class BuiltinFunctionObject final : public Object {
 public:
  using Fn = std::function<Value(Interpreter&, CallArgs&)>;
  BuiltinFunctionObject(std::string name, Fn fn)
      : Object(ObjectKind::kBuiltinFunction), name(std::move(name)), fn(std::move(fn)) {}
  std::string_view type_name() const override { return "builtin_function_or_method"; }
  std::string Repr(Interpreter& interp) const override;
  std::string name;
  Fn fn;
  // Set for the methods the engine puts in a class's namespace (`object.__init__`, a
  // dataclass's generated `__init__`): they bind to the instance like a `def` does.
  bool binds = false;
};

// `obj.method` for built-in types: calling it prepends `self`.
class BoundMethodObject final : public Object {
 public:
  BoundMethodObject(Value self, Value function)
      : Object(ObjectKind::kBoundMethod), self(std::move(self)), function(std::move(function)) {}
  std::string_view type_name() const override { return "method"; }
  std::string Repr(Interpreter& interp) const override;
  void ClearReferences() override {
    self = Value();
    function = Value();
  }
  Value self;
  Value function;
};

// functools.partial(func, *args, **kwargs)
class PartialObject final : public Object {
 public:
  PartialObject(Value func, std::vector<Value> args,
                std::vector<std::pair<std::string, Value>> keywords)
      : Object(ObjectKind::kPartial),
        func(std::move(func)),
        args(std::move(args)),
        keywords(std::move(keywords)) {}
  std::string_view type_name() const override { return "functools.partial"; }
  std::string Repr(Interpreter& interp) const override;
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  void ClearReferences() override {
    func = Value();
    args.clear();
    keywords.clear();
  }
  Value func;
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> keywords;
};

// A module: a named attribute table. Builtin modules are filled in C++ by their registrars.
// A module: a builtin one (its names in `attrs`) or one run from a `.py` file beside the program
// (its names are its global scope, `globals`, so `mod.x` sees later changes to `x`).
class ModuleObject final : public Object {
 public:
  explicit ModuleObject(std::string name) : Object(ObjectKind::kModule), name(std::move(name)) {}
  std::string_view type_name() const override { return "module"; }
  std::string Repr(Interpreter& interp) const override;
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view attr) override;
  bool SetAttr(Interpreter& interp, std::string_view attr, const Value& value) override;
  void ClearReferences() override;
  void Set(std::string attr, Value value) { attrs[std::move(attr)] = std::move(value); }
  // The module's names: its globals when run from a file, else `attrs`.
  std::unordered_map<std::string, Value>& Names();

  std::string name;
  std::unordered_map<std::string, Value> attrs;
  // Modules run from files: their global scope (nullptr for builtin modules).
  std::shared_ptr<Environment> globals;
  // Modules run from files: `__file__`, absolute ("" for builtin modules and namespace packages).
  std::string file;
  // Packages: the folder their submodules are searched in ("" for plain modules).
  std::string package_dir;
  // True while the module's body runs (a circular import sees it partially initialised).
  bool initializing = false;
};

// A type object: `int`, `list`, `ValueError`, ... Calling it constructs an instance. Exception
// types form a single-inheritance chain through `base`.
class TypeObject final : public Object {
 public:
  using Constructor = std::function<Value(Interpreter&, TypeObject&, CallArgs&)>;
  TypeObject(std::string name, TypeObject* base, Constructor constructor)
      : Object(ObjectKind::kType),
        name(std::move(name)),
        base(base),
        constructor(std::move(constructor)) {}
  std::string_view type_name() const override;
  std::string Repr(Interpreter& interp) const override;
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view attr) override;
  bool SetAttr(Interpreter& interp, std::string_view attr, const Value& value) override;
  std::optional<Value> GetItem(Interpreter& interp, const Value& key) override;
  std::optional<int64_t> Len(Interpreter& interp) override;
  ObjectRef Iter(Interpreter& interp) override;
  void ClearReferences() override;
  // True if this type is `other` or derives from it.
  bool IsSubtypeOf(const TypeObject* other) const;
  // Sets a class attribute, keeping definition order.
  void Store(const std::string& attr, Value value);

  std::string name;
  TypeObject* base;  // owned by the interpreter's type table; nullptr at the root
  Constructor constructor;
  // Exception types: an uncaught instance is a trace error (exit 65) rather than a runtime error;
  // set for JAX's tracer errors by the kernel layer.
  bool is_trace_error = false;
  // The class namespace in definition order: the body of a `class` statement, and the methods
  // the engine gives some builtin types (`object.__init__`, ...).
  std::unordered_map<std::string, Value> attrs;
  std::vector<std::string> attr_order;
  bool user_defined = false;  // made by a `class` statement (or namedtuple(), ...)
  std::string module = "builtins";
  std::string qualname;  // empty: `name`
  // Dataclass, NamedTuple and Enum details (eval/classes.h); nullptr for a plain class.
  std::shared_ptr<ClassExtras> extras;
};

// One frame of a Python traceback: where the frame was executing and the function's name.
struct TraceEntry {
  SourceSpan span;
  std::string function;
};

// An exception instance. `args` as in Python; `traceback` and `span` are filled where raised.
class ExceptionObject final : public Object {
 public:
  ExceptionObject(TypeObject* type, std::vector<Value> args)
      : Object(ObjectKind::kException), type(type), args(std::move(args)) {}
  std::string_view type_name() const override { return type->name; }
  std::string Repr(Interpreter& interp) const override;
  std::string Str(Interpreter& interp) const override;
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  void ClearReferences() override {
    args.clear();
    attrs.clear();
  }

  TypeObject* type;
  std::vector<Value> args;
  SourceSpan span;                    // where it was raised
  std::vector<TraceEntry> traceback;  // outermost first
  std::vector<std::string> notes;     // extra hint lines shown under the error
  std::vector<Note> related;          // notes at other places in the source, shown first
  // Attributes set on the instance (`self.code = code` in a user exception's `__init__`).
  std::unordered_map<std::string, Value> attrs;
  bool SetAttr(Interpreter& interp, std::string_view name, const Value& value) override;
};

// Convenience constructors.
Value MakeStr(std::string s);
Value MakeTuple(std::vector<Value> items);
Value MakeList(std::vector<Value> items);

// A named member of an enumeration (`lax.Precision.HIGHEST`, `pltpu.VMEM`): `.name`, equal only
// to the member of its own type with the same name, hashable. Derived types add the rest.
class EnumMemberObject : public Object {
 public:
  explicit EnumMemberObject(std::string name)
      : Object(ObjectKind::kExtension), name(std::move(name)) {}
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view attr) override;
  std::optional<Value> Compare(Interpreter& interp, lang::CmpOpKind op, const Value& other,
                               bool reflected) override;
  std::optional<size_t> Hash(Interpreter& interp) override;
  std::string name;
};

}  // namespace pz::eval

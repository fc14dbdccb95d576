// Data-structure behaviour of the built-in object kinds: the ordered dict, ranges, and the
// repr/attribute hooks of functions, modules, types and exceptions.
#include "eval/value.h"

#include <fmt/format.h>

#include <algorithm>
#include <typeinfo>

#include "eval/interpreter.h"
#include "eval/scope.h"

namespace pz::eval {

std::optional<ObjectKind> Value::kind() const {
  if (!is_object()) return std::nullopt;
  return object()->kind();
}

bool Value::Identical(const Value& other) const {
  if (storage_.index() != other.storage_.index()) return false;
  if (is_object()) return object() == other.object();
  if (is_none()) return true;
  if (is_bool()) return as_bool() == other.as_bool();
  if (is_int()) return as_int() == other.as_int();
  // Floats: CPython compares object identity; equal-valued float literals are usually distinct
  // objects, but `x is x` must hold, so compare bits.
  return as_float() == other.as_float();
}

std::string Object::Repr(Interpreter& interp) const {
  return fmt::format("<{} object>", type_name());
}

Value MakeStr(std::string s) { return Value(std::make_shared<StrObject>(std::move(s))); }
Value MakeTuple(std::vector<Value> items) {
  return Value(std::make_shared<TupleObject>(std::move(items)));
}
Value MakeList(std::vector<Value> items) {
  return Value(std::make_shared<ListObject>(std::move(items)));
}

// ---- DictObject ------------------------------------------------------------------------------

void DictObject::ClearReferences() { Clear(); }

void DictObject::Clear() {
  entries_.clear();
  index_.clear();
  live_ = 0;
}

std::optional<size_t> DictObject::Find(Interpreter& interp, const Value& key, size_t hash) const {
  auto [begin, end] = index_.equal_range(hash);
  for (auto it = begin; it != end; ++it) {
    const Entry& entry = entries_[it->second];
    if (entry.live && (entry.key.Identical(key) || interp.Equals(entry.key, key))) {
      return it->second;
    }
  }
  return std::nullopt;
}

std::optional<Value> DictObject::Get(Interpreter& interp, const Value& key) const {
  size_t hash = interp.Hash(key);
  if (auto pos = Find(interp, key, hash)) return entries_[*pos].value;
  return std::nullopt;
}

void DictObject::Set(Interpreter& interp, const Value& key, Value value) {
  size_t hash = interp.Hash(key);
  if (auto pos = Find(interp, key, hash)) {
    entries_[*pos].value = std::move(value);
    return;
  }
  index_.emplace(hash, entries_.size());
  entries_.push_back(Entry{key, std::move(value), true});
  ++live_;
}

std::optional<Value> DictObject::Remove(Interpreter& interp, const Value& key) {
  size_t hash = interp.Hash(key);
  auto [begin, end] = index_.equal_range(hash);
  for (auto it = begin; it != end; ++it) {
    Entry& entry = entries_[it->second];
    if (entry.live && (entry.key.Identical(key) || interp.Equals(entry.key, key))) {
      Value removed = std::move(entry.value);
      entry.live = false;
      entry.key = Value();
      index_.erase(it);
      --live_;
      if (entries_.size() > 32 && live_ < entries_.size() / 2) Compact();
      return removed;
    }
  }
  return std::nullopt;
}

void DictObject::Compact() {
  std::vector<Entry> kept;
  kept.reserve(live_);
  std::unordered_multimap<size_t, size_t> index;
  // Rebuild positions; hashes are recovered from the old index.
  std::vector<size_t> hash_of(entries_.size());
  for (const auto& [hash, pos] : index_) hash_of[pos] = hash;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (!entries_[i].live) continue;
    index.emplace(hash_of[i], kept.size());
    kept.push_back(std::move(entries_[i]));
  }
  entries_ = std::move(kept);
  index_ = std::move(index);
}

std::vector<std::pair<Value, Value>> DictObject::Items() const {
  std::vector<std::pair<Value, Value>> items;
  items.reserve(live_);
  for (const Entry& entry : entries_) {
    if (entry.live) items.emplace_back(entry.key, entry.value);
  }
  return items;
}

std::vector<Value> SetObject::Elements() const {
  std::vector<Value> elements;
  elements.reserve(table.size());
  bool all_ints = true;
  for (auto& [key, unused] : table.Items()) {
    all_ints = all_ints && key.is_integral();
    elements.push_back(key);
  }
  if (all_ints) {
    std::stable_sort(elements.begin(), elements.end(),
                     [](const Value& a, const Value& b) { return a.integral() < b.integral(); });
  }
  return elements;
}

// ---- Other kinds -----------------------------------------------------------------------------

int64_t RangeObject::size() const {
  if (step > 0 && start < stop) return (stop - start - 1) / step + 1;
  if (step < 0 && start > stop) return (start - stop - 1) / (-step) + 1;
  return 0;
}

FunctionObject::FunctionObject(std::shared_ptr<const FunctionCode> code,
                               std::shared_ptr<Environment> closure, std::vector<Value> defaults,
                               std::shared_ptr<Environment> globals)
    : Object(ObjectKind::kFunction),
      code(std::move(code)),
      closure(std::move(closure)),
      defaults(std::move(defaults)),
      globals(std::move(globals)) {}

std::string FunctionObject::Repr(Interpreter& interp) const {
  return fmt::format("<function {}>", code->qualname);
}

std::optional<Value> FunctionObject::GetAttr(Interpreter& interp, std::string_view name) {
  if (name == "__name__") return MakeStr(code->name);
  if (name == "__qualname__") return MakeStr(code->qualname);
  if (attrs) {
    if (auto v = attrs->Get(interp, MakeStr(std::string(name)))) return v;
  }
  return std::nullopt;
}

bool FunctionObject::SetAttr(Interpreter& interp, std::string_view name, const Value& value) {
  if (!attrs) {
    attrs = std::make_shared<DictObject>();
    interp.Track(attrs);
  }
  attrs->Set(interp, MakeStr(std::string(name)), value);
  return true;
}

void FunctionObject::ClearReferences() {
  closure.reset();
  globals.reset();
  defaults.clear();
  attrs.reset();
}

std::string BuiltinFunctionObject::Repr(Interpreter& interp) const {
  return fmt::format("<built-in function {}>", name);
}

std::string BoundMethodObject::Repr(Interpreter& interp) const {
  std::string name = "?";
  if (auto* builtin = function.as<BuiltinFunctionObject>()) name = builtin->name;
  return fmt::format("<built-in method {} of {} object>", name, interp.TypeName(self));
}

std::string PartialObject::Repr(Interpreter& interp) const {
  std::string out = "functools.partial(" + interp.Repr(func);
  for (const Value& arg : args) out += ", " + interp.Repr(arg);
  for (const auto& [name, value] : keywords) out += ", " + name + "=" + interp.Repr(value);
  return out + ")";
}

std::optional<Value> PartialObject::GetAttr(Interpreter& interp, std::string_view name) {
  if (name == "func") return func;
  if (name == "args") return MakeTuple(args);
  if (name == "keywords") {
    auto dict = std::make_shared<DictObject>();
    for (const auto& [key, value] : keywords) dict->Set(interp, MakeStr(key), value);
    return Value(dict);
  }
  return std::nullopt;
}

std::string ModuleObject::Repr(Interpreter&) const {
  if (!file.empty()) return fmt::format("<module '{}' from '{}'>", name, file);
  if (!package_dir.empty()) return fmt::format("<module '{}' (namespace)>", name);
  return "<module '" + name + "'>";
}

std::unordered_map<std::string, Value>& ModuleObject::Names() {
  return globals != nullptr ? globals->vars : attrs;
}

std::optional<Value> ModuleObject::GetAttr(Interpreter& interp, std::string_view attr) {
  std::unordered_map<std::string, Value>& names = Names();
  auto it = names.find(std::string(attr));
  if (it != names.end()) return it->second;
  if (attr == "__name__") return MakeStr(name);
  return std::nullopt;
}

bool ModuleObject::SetAttr(Interpreter& interp, std::string_view attr, const Value& value) {
  Names()[std::string(attr)] = value;
  return true;
}

void ModuleObject::ClearReferences() {
  attrs.clear();
  globals.reset();
}

bool TypeObject::IsSubtypeOf(const TypeObject* other) const {
  for (const TypeObject* t = this; t != nullptr; t = t->base) {
    if (t == other) return true;
  }
  return false;
}

std::optional<Value> EnumMemberObject::GetAttr(Interpreter&, std::string_view attr) {
  if (attr == "name") return MakeStr(name);
  return std::nullopt;
}

std::optional<Value> EnumMemberObject::Compare(Interpreter&, lang::CmpOpKind op, const Value& other,
                                               bool) {
  const Object* o = other.is_object() ? other.object().get() : nullptr;
  bool same = o != nullptr && typeid(*o) == typeid(*this) &&
              static_cast<const EnumMemberObject*>(o)->name == name;
  if (op == lang::CmpOpKind::kEq) return Value::Bool(same);
  if (op == lang::CmpOpKind::kNotEq) return Value::Bool(!same);
  return std::nullopt;
}

std::optional<size_t> EnumMemberObject::Hash(Interpreter&) {
  return std::hash<std::string>()(name);
}

}  // namespace pz::eval

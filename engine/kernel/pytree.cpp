#include "kernel/pytree.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "eval/builtin_support.h"
#include "support/check.h"

namespace pz::kernel {

using eval::Value;

namespace {

// The classes registered as pytree nodes, per interpreter.
struct Registry : std::unordered_map<const eval::TypeObject*, NodeRegistration> {};

Registry& RegistryOf(eval::Interpreter& interp) { return interp.State<Registry>(); }

}  // namespace

void RegisterNode(eval::Interpreter& interp, eval::TypeObject* type, NodeRegistration node) {
  Registry& registry = RegistryOf(interp);
  if (registry.contains(type)) {
    interp.Raise(interp.types().value_error,
                 fmt::format("Duplicate custom PyTreeDef type registration for {}.",
                             interp.Repr(Value(type->shared_from_this()))));
  }
  registry.emplace(type, std::move(node));
}

const NodeRegistration* FindNode(eval::Interpreter& interp, const eval::TypeObject* type) {
  Registry& registry = RegistryOf(interp);
  auto it = registry.find(type);
  return it == registry.end() ? nullptr : &it->second;
}

size_t TreeDef::num_leaves() const {
  if (kind == Kind::kLeaf) return 1;
  size_t n = 0;
  for (const TreeDef& child : children) n += child.num_leaves();
  return n;
}

std::string TreeDef::ToString(eval::Interpreter& interp) const {
  auto join = [&](std::string open, std::string close) {
    std::string s = open;
    for (size_t i = 0; i < children.size(); ++i) {
      s += i ? ", " : "";
      if (kind == Kind::kDict) s += interp.Repr(keys[i]) + ": ";
      s += children[i].ToString(interp);
    }
    if (kind == Kind::kTuple && children.size() == 1) s += ",";
    return s + close;
  };
  switch (kind) {
    case Kind::kLeaf:
      return "*";
    case Kind::kNone:
      return "None";
    case Kind::kTuple:
      if (named_tuple != nullptr) return join(named_tuple->name + "(", ")");
      return join("(", ")");
    case Kind::kList:
      return join("[", "]");
    case Kind::kDict:
      return join("{", "}");
    case Kind::kCustom:
      return join("CustomNode(" + node_type->name + "[" + interp.Repr(aux) + "], [", "])");
  }
  return "?";
}

TreeDef Flatten(eval::Interpreter& interp, const Value& value, std::vector<Value>& leaves,
                const Value& is_leaf) {
  TreeDef def;
  if (!is_leaf.is_none() && interp.Truthy(interp.Call(is_leaf, std::vector<Value>{value}))) {
    leaves.push_back(value);
    return def;
  }
  auto flatten = [&](const Value& item) { return Flatten(interp, item, leaves, is_leaf); };
  if (value.is_none()) {
    def.kind = TreeDef::Kind::kNone;
    return def;
  }
  if (auto* tuple = value.as<eval::TupleObject>()) {
    def.kind = TreeDef::Kind::kTuple;
    def.named_tuple = tuple->type;
    for (const Value& item : tuple->items) def.children.push_back(flatten(item));
    return def;
  }
  if (auto* list = value.as<eval::ListObject>()) {
    def.kind = TreeDef::Kind::kList;
    std::vector<Value> items = list->items;  // the list may change while we recurse
    for (const Value& item : items) def.children.push_back(flatten(item));
    return def;
  }
  if (auto* dict = value.as<eval::DictObject>()) {
    def.kind = TreeDef::Kind::kDict;
    auto items = dict->Items();
    std::stable_sort(items.begin(), items.end(),
                     [&](const auto& a, const auto& b) { return interp.Less(a.first, b.first); });
    for (const auto& [key, item] : items) {
      def.keys.push_back(key);
      def.children.push_back(flatten(item));
    }
    return def;
  }
  if (value.is_object()) {
    eval::TypeObject* type = interp.TypeOf(value);
    if (const NodeRegistration* node = type ? FindNode(interp, type) : nullptr) {
      Value flat = interp.Call(node->flatten, std::vector<Value>{value});
      std::vector<Value> parts = interp.ToVector(flat);
      if (parts.size() != 2) {
        interp.Raise(interp.types().value_error,
                     fmt::format("the flatten function registered for {} must return a pair "
                                 "(children, aux_data), got {} values",
                                 type->name, parts.size()));
      }
      def.kind = TreeDef::Kind::kCustom;
      def.node_type = type;
      def.aux = parts[1];
      for (const Value& child : interp.ToVector(parts[0])) def.children.push_back(flatten(child));
      return def;
    }
  }
  leaves.push_back(value);
  return def;
}

Value Unflatten(eval::Interpreter& interp, const TreeDef& def, const std::vector<Value>& leaves,
                size_t& next) {
  switch (def.kind) {
    case TreeDef::Kind::kLeaf:
      return leaves[next++];
    case TreeDef::Kind::kNone:
      return Value();
    case TreeDef::Kind::kTuple:
    case TreeDef::Kind::kList: {
      std::vector<Value> items;
      for (const TreeDef& child : def.children)
        items.push_back(Unflatten(interp, child, leaves, next));
      if (def.kind == TreeDef::Kind::kList) return eval::MakeList(std::move(items));
      return Value(std::make_shared<eval::TupleObject>(std::move(items), def.named_tuple));
    }
    case TreeDef::Kind::kDict: {
      auto dict = std::make_shared<eval::DictObject>();
      for (size_t i = 0; i < def.children.size(); ++i) {
        Value item = Unflatten(interp, def.children[i], leaves, next);
        dict->Set(interp, def.keys[i], item);
      }
      return Value(dict);
    }
    case TreeDef::Kind::kCustom: {
      std::vector<Value> children;
      for (const TreeDef& child : def.children) {
        children.push_back(Unflatten(interp, child, leaves, next));
      }
      const NodeRegistration* node = FindNode(interp, def.node_type);
      PZ_CHECK(node != nullptr);
      return interp.Call(node->unflatten,
                         std::vector<Value>{def.aux, eval::MakeTuple(std::move(children))});
    }
  }
  return Value();
}

Value Unflatten(eval::Interpreter& interp, const TreeDef& def, const std::vector<Value>& leaves) {
  size_t next = 0;
  return Unflatten(interp, def, leaves, next);
}

bool SameStructure(const TreeDef& a, const TreeDef& b, eval::Interpreter& interp) {
  if (a.kind != b.kind || a.children.size() != b.children.size()) return false;
  if (a.named_tuple != b.named_tuple || a.node_type != b.node_type) return false;
  if (a.kind == TreeDef::Kind::kCustom && !interp.Equals(a.aux, b.aux)) return false;
  for (size_t i = 0; i < a.keys.size(); ++i) {
    if (!interp.Equals(a.keys[i], b.keys[i])) return false;
  }
  for (size_t i = 0; i < a.children.size(); ++i) {
    if (!SameStructure(a.children[i], b.children[i], interp)) return false;
  }
  return true;
}

}  // namespace pz::kernel

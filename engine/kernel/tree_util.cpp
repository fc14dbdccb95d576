// `jax.tree_util` and `jax.tree`: tree_map, flatten / unflatten, leaves, structure and PyTreeDef
// objects over kernel/pytree.h, and registering classes as pytree nodes (register_pytree_node,
// register_pytree_node_class, register_dataclass).
#include <fmt/format.h>

#include "eval/builtin_support.h"
#include "eval/classes.h"
#include "kernel/modules.h"
#include "kernel/pytree.h"
#include "kernel/transforms.h"

namespace pz::kernel {

using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

namespace {

class TreeDefObject final : public eval::Object {
 public:
  explicit TreeDefObject(TreeDef def) : Object(eval::ObjectKind::kExtension), def(std::move(def)) {}
  std::string_view type_name() const override { return "PyTreeDef"; }
  std::string Repr(Interpreter& interp) const override {
    return "PyTreeDef(" + def.ToString(interp) + ")";
  }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override {
    auto self = std::static_pointer_cast<TreeDefObject>(shared_from_this());
    if (name == "num_leaves") return Value::Int(static_cast<int64_t>(def.num_leaves()));
    if (name == "num_nodes") return Value::Int(CountNodes(def));
    if (name == "unflatten") {
      return interp.MakeBuiltin("unflatten", [self](Interpreter& interp, CallArgs& args) {
        auto bound = eval::BindArgs(interp, "unflatten", args, {"leaves"});
        return self->Rebuild(interp, *bound[0]);
      });
    }
    return std::nullopt;
  }
  std::optional<Value> Compare(Interpreter& interp, lang::CmpOpKind op, const Value& other,
                               bool) override {
    if (op != lang::CmpOpKind::kEq && op != lang::CmpOpKind::kNotEq) return std::nullopt;
    auto* o = other.as<TreeDefObject>();
    bool equal = o != nullptr && SameStructure(def, o->def, interp);
    return Value::Bool(op == lang::CmpOpKind::kEq ? equal : !equal);
  }
  void ClearReferences() override { def = TreeDef(); }

  Value Rebuild(Interpreter& interp, const Value& leaves_value) {
    std::vector<Value> leaves = interp.ToVector(leaves_value);
    if (leaves.size() != def.num_leaves()) {
      interp.Raise(interp.types().value_error,
                   fmt::format("Too {} leaves for PyTreeDef; expected {}, got {}",
                               leaves.size() < def.num_leaves() ? "few" : "many", def.num_leaves(),
                               leaves.size()));
    }
    return Unflatten(interp, def, leaves);
  }

  TreeDef def;

 private:
  static int64_t CountNodes(const TreeDef& d) {
    int64_t n = 1;
    for (const TreeDef& child : d.children) n += CountNodes(child);
    return n;
  }
};

Value IsLeafArg(const std::optional<Value>& arg) { return arg.value_or(Value()); }

Value TreeFlatten(Interpreter& interp, CallArgs& args) {
  auto bound = eval::BindArgs(interp, "tree_flatten", args, {"tree", "is_leaf="});
  std::vector<Value> leaves;
  TreeDef def = Flatten(interp, *bound[0], leaves, IsLeafArg(bound[1]));
  return eval::MakeTuple(
      {eval::MakeList(std::move(leaves)), Value(std::make_shared<TreeDefObject>(std::move(def)))});
}

Value TreeLeaves(Interpreter& interp, CallArgs& args) {
  auto bound = eval::BindArgs(interp, "tree_leaves", args, {"tree", "is_leaf="});
  std::vector<Value> leaves;
  Flatten(interp, *bound[0], leaves, IsLeafArg(bound[1]));
  return eval::MakeList(std::move(leaves));
}

Value TreeStructure(Interpreter& interp, CallArgs& args) {
  auto bound = eval::BindArgs(interp, "tree_structure", args, {"tree", "is_leaf="});
  std::vector<Value> leaves;
  return Value(
      std::make_shared<TreeDefObject>(Flatten(interp, *bound[0], leaves, IsLeafArg(bound[1]))));
}

Value TreeUnflatten(Interpreter& interp, CallArgs& args) {
  auto bound = eval::BindArgs(interp, "tree_unflatten", args, {"treedef", "leaves"});
  auto* def = bound[0]->as<TreeDefObject>();
  if (def == nullptr) {
    interp.Raise(
        interp.types().type_error,
        fmt::format("tree_unflatten expects a PyTreeDef, got {}", interp.TypeName(*bound[0])));
  }
  return def->Rebuild(interp, *bound[1]);
}

// tree_map(f, tree, *rest, is_leaf=None): each of `rest` must have `tree`'s structure.
Value TreeMap(Interpreter& interp, CallArgs& args) {
  if (args.positional.size() < 2) {
    interp.Raise(interp.types().type_error,
                 "tree_map() missing required positional arguments: 'f' and 'tree'");
  }
  Value is_leaf;
  for (const auto& [name, value] : args.keywords) {
    if (name != "is_leaf") {
      interp.Raise(interp.types().type_error,
                   fmt::format("tree_map() got an unexpected keyword argument '{}'", name));
    }
    is_leaf = value;
  }
  const Value& f = args.positional[0];
  std::vector<Value> leaves;
  TreeDef def = Flatten(interp, args.positional[1], leaves, is_leaf);
  std::vector<std::vector<Value>> rest;
  for (size_t i = 2; i < args.positional.size(); ++i) {
    std::vector<Value> other;
    TreeDef other_def = Flatten(interp, args.positional[i], other, is_leaf);
    if (!SameStructure(def, other_def, interp)) {
      interp.Raise(interp.types().value_error,
                   fmt::format("Custom node type mismatch; expected a tree of structure {}, got "
                               "{}",
                               def.ToString(interp), other_def.ToString(interp)));
    }
    rest.push_back(std::move(other));
  }
  std::vector<Value> mapped;
  for (size_t i = 0; i < leaves.size(); ++i) {
    std::vector<Value> call{leaves[i]};
    for (const auto& other : rest) call.push_back(other[i]);
    mapped.push_back(interp.Call(f, std::move(call)));
  }
  return Unflatten(interp, def, mapped);
}

eval::TypeObject* ClassArg(Interpreter& interp, const Value& value, std::string_view function) {
  if (value.is(eval::ObjectKind::kType)) return value.as<eval::TypeObject>();
  interp.Raise(interp.types().type_error,
               fmt::format("{}() expects a class, got {}", function, interp.TypeName(value)));
}

Value RegisterPytreeNode(Interpreter& interp, CallArgs& args) {
  auto bound =
      eval::BindArgs(interp, "register_pytree_node", args,
                     {"nodetype", "flatten_func", "unflatten_func", "flatten_with_keys_func="});
  RegisterNode(interp, ClassArg(interp, *bound[0], "register_pytree_node"),
               {.flatten = *bound[1], .unflatten = *bound[2]});
  return Value();
}

// register_pytree_node_class(cls): `x.tree_flatten()` and `cls.tree_unflatten(aux, children)`.
Value RegisterPytreeNodeClass(Interpreter& interp, CallArgs& args) {
  auto bound = eval::BindArgs(interp, "register_pytree_node_class", args, {"cls"});
  eval::TypeObject* type = ClassArg(interp, *bound[0], "register_pytree_node_class");
  Value cls = *bound[0];
  Value flatten = interp.MakeBuiltin("tree_flatten", [](Interpreter& interp, CallArgs& a) {
    return interp.Call(interp.GetAttr(a.positional.at(0), "tree_flatten"), std::vector<Value>{});
  });
  RegisterNode(interp, type,
               {.flatten = flatten, .unflatten = interp.GetAttr(cls, "tree_unflatten")});
  return cls;
}

// register_dataclass(cls, data_fields, meta_fields): the data fields are children, the meta
// fields the auxiliary data; without field lists, every init field of the dataclass is data.
Value RegisterDataclass(Interpreter& interp, CallArgs& args) {
  auto bound = eval::BindArgs(interp, "register_dataclass", args,
                              {"nodetype", "data_fields=", "meta_fields=", "drop_fields="});
  eval::TypeObject* type = ClassArg(interp, *bound[0], "register_dataclass");
  std::vector<Value> data, meta;
  if (bound[1] && !bound[1]->is_none()) {
    data = interp.ToVector(*bound[1]);
    if (bound[2] && !bound[2]->is_none()) meta = interp.ToVector(*bound[2]);
  } else if (type->extras && type->extras->dataclass) {
    for (const eval::DataclassField& field : type->extras->fields) {
      if (field.init) data.push_back(eval::MakeStr(field.name));
    }
  } else {
    interp.Raise(interp.types().type_error,
                 "register_dataclass() needs data_fields and meta_fields for a class that is not a "
                 "dataclass");
  }
  Value cls = *bound[0];
  Value flatten = interp.MakeBuiltin("flatten", [data, meta](Interpreter& interp, CallArgs& a) {
    std::vector<Value> children, aux;
    for (const Value& name : data)
      children.push_back(interp.GetAttr(a.positional.at(0), interp.Str(name)));
    for (const Value& name : meta)
      aux.push_back(interp.GetAttr(a.positional.at(0), interp.Str(name)));
    return eval::MakeTuple({eval::MakeTuple(std::move(children)), eval::MakeTuple(std::move(aux))});
  });
  Value unflatten =
      interp.MakeBuiltin("unflatten", [cls, data, meta](Interpreter& interp, CallArgs& a) {
        std::vector<Value> aux = interp.ToVector(a.positional.at(0));
        std::vector<Value> children = interp.ToVector(a.positional.at(1));
        CallArgs call{.span = interp.current_span()};
        for (size_t i = 0; i < data.size() && i < children.size(); ++i) {
          call.keywords.emplace_back(interp.Str(data[i]), children[i]);
        }
        for (size_t i = 0; i < meta.size() && i < aux.size(); ++i) {
          call.keywords.emplace_back(interp.Str(meta[i]), aux[i]);
        }
        return interp.Call(cls, std::move(call));
      });
  RegisterNode(interp, type, {.flatten = flatten, .unflatten = unflatten});
  return cls;
}

}  // namespace

void InstallTreeUtil(Interpreter& interp) {
  auto jax = interp.FindModule("jax");
  auto tree_util = std::make_shared<eval::ModuleObject>("jax.tree_util");
  auto tree = std::make_shared<eval::ModuleObject>("jax.tree");
  struct Entry {
    const char* util_name;
    const char* tree_name;  // in jax.tree, or nullptr
    eval::BuiltinFunctionObject::Fn fn;
  };
  const Entry entries[] = {
      {"tree_map", "map", TreeMap},
      {"tree_flatten", "flatten", TreeFlatten},
      {"tree_unflatten", "unflatten", TreeUnflatten},
      {"tree_leaves", "leaves", TreeLeaves},
      {"tree_structure", "structure", TreeStructure},
      {"register_pytree_node", nullptr, RegisterPytreeNode},
      {"register_pytree_node_class", nullptr, RegisterPytreeNodeClass},
      {"register_dataclass", nullptr, RegisterDataclass},
  };
  for (const Entry& entry : entries) {
    AddBuiltin(interp, *tree_util, entry.util_name, entry.fn);
    if (entry.tree_name != nullptr) AddBuiltin(interp, *tree, entry.tree_name, entry.fn);
  }
  interp.RegisterModule("jax.tree_util", tree_util);
  interp.RegisterModule("jax.tree", tree);
  jax->Set("tree_util", Value(tree_util));
  jax->Set("tree", Value(tree));
}

}  // namespace pz::kernel

// The device and sharding API of a one-device CPU process, as JAX reports it there: one
// `CpuDevice(id=0)`; `jax.sharding` (PartitionSpec, Mesh, NamedSharding, SingleDeviceSharding);
// `jax.make_mesh` of a single device; `jax.shard_map` running its function once on the whole
// arrays (one shard) with its mesh axes bound; and the collectives over such an axis
// (`lax.axis_index` is 0, `psum`/`pmean`/`pmax`/`pmin` and `ppermute` return their operand,
// `all_gather` adds the axis of size 1).
#include "kernel/sharding.h"

#include <fmt/format.h>

#include <map>

#include "array/creation.h"
#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "kernel/modules.h"
#include "kernel/transforms.h"

namespace pz::kernel {

using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

namespace {

// An object of the sharding API: a type name, named attributes, a repr and equality by value.
class ApiObject final : public eval::Object {
 public:
  ApiObject(std::string type, std::string repr, std::vector<std::pair<std::string, Value>> attrs,
            std::vector<Value> items = {})
      : Object(eval::ObjectKind::kExtension),
        type_(std::move(type)),
        repr_(std::move(repr)),
        attrs_(std::move(attrs)),
        items_(std::move(items)) {}
  std::string_view type_name() const override { return type_; }
  std::string Repr(Interpreter&) const override { return repr_; }
  std::optional<Value> GetAttr(Interpreter&, std::string_view name) override {
    for (const auto& [key, value] : attrs_) {
      if (key == name) return value;
    }
    return std::nullopt;
  }
  // PartitionSpec is a sequence of its entries.
  std::optional<int64_t> Len(Interpreter&) override {
    if (type_ != "PartitionSpec") return std::nullopt;
    return static_cast<int64_t>(items_.size());
  }
  std::optional<Value> GetItem(Interpreter& interp, const Value& key) override {
    if (type_ != "PartitionSpec") return std::nullopt;
    return interp.GetItem(eval::MakeTuple(items_), key);
  }
  eval::ObjectRef Iter(Interpreter& interp) override {
    if (type_ != "PartitionSpec") return nullptr;
    return interp.GetIter(eval::MakeTuple(items_));
  }
  std::optional<Value> Compare(Interpreter&, lang::CmpOpKind op, const Value& other,
                               bool) override {
    if (op != lang::CmpOpKind::kEq && op != lang::CmpOpKind::kNotEq) return std::nullopt;
    auto* o = other.as<ApiObject>();
    bool equal = o != nullptr && o->type_ == type_ && o->repr_ == repr_;
    return Value::Bool(op == lang::CmpOpKind::kEq ? equal : !equal);
  }
  std::optional<size_t> Hash(Interpreter&) override {
    return std::hash<std::string>()(type_ + repr_);
  }
  void ClearReferences() override {
    attrs_.clear();
    items_.clear();
  }

 private:
  std::string type_, repr_;
  std::vector<std::pair<std::string, Value>> attrs_;
  std::vector<Value> items_;
};

Value MakeObject(Interpreter& interp, std::string type, std::string repr,
                 std::vector<std::pair<std::string, Value>> attrs, std::vector<Value> items = {}) {
  auto object = std::make_shared<ApiObject>(std::move(type), std::move(repr), std::move(attrs),
                                            std::move(items));
  interp.Track(object);
  return Value(object);
}

Value Device(Interpreter& interp) {
  return MakeObject(interp, "CpuDevice", "CpuDevice(id=0)",
                    {{"id", Value::Int(0)},
                     {"platform", eval::MakeStr("cpu")},
                     {"device_kind", eval::MakeStr("cpu")},
                     {"process_index", Value::Int(0)}});
}

// The mesh axes bound by the shard_map calls in progress, innermost last.
struct AxisEnv : std::vector<std::map<std::string, int64_t>> {};

AxisEnv& AxesOf(Interpreter& interp) { return interp.State<AxisEnv>(); }

// The size of the bound axis (or axes: a tuple of names multiplies them); NameError for a name
// no enclosing shard_map binds, as JAX raises.
int64_t AxisSize(Interpreter& interp, const Value& axis_name, std::string_view function) {
  std::vector<Value> names =
      axis_name.is(eval::ObjectKind::kTuple) || axis_name.is(eval::ObjectKind::kList)
          ? interp.ToVector(axis_name)
          : std::vector<Value>{axis_name};
  int64_t size = 1;
  for (const Value& name : names) {
    std::string n = interp.Str(name);
    bool found = false;
    const AxisEnv& env = AxesOf(interp);
    for (auto it = env.rbegin(); it != env.rend() && !found; ++it) {
      if (auto axis = it->find(n); axis != it->end()) {
        size *= axis->second;
        found = true;
      }
    }
    if (!found) {
      interp.Raise(interp.types().name_error,
                   fmt::format("Found an unbound axis name: {}. To fix this, please call {} under "
                               "`jax.shard_map`.",
                               n, function));
    }
  }
  return size;
}

std::string TupleRepr(Interpreter& interp, const std::vector<Value>& items) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + interp.Repr(items[i]);
  return s;
}

Value PartitionSpec(Interpreter& interp, CallArgs& args) {
  if (!args.keywords.empty()) {
    interp.Raise(interp.types().type_error, "PartitionSpec() takes no keyword arguments here");
  }
  return MakeObject(interp, "PartitionSpec", "P(" + TupleRepr(interp, args.positional) + ")", {},
                    args.positional);
}

Value MakeMesh(Interpreter& interp, const std::vector<int64_t>& shape,
               const std::vector<Value>& names) {
  int64_t size = 1;
  for (int64_t d : shape) size *= d;
  if (shape.size() != names.size()) {
    interp.Raise(interp.types().value_error,
                 fmt::format("a mesh needs one axis name per dimension: shape {} has {} axes, "
                             "given {} names",
                             array::ShapeToString(shape), shape.size(), names.size()));
  }
  if (size != 1) {
    interp.RaiseWithNotes(
        interp.types().value_error,
        fmt::format("a mesh of shape {} needs {} devices; this process has 1 (CpuDevice(id=0))",
                    array::ShapeToString(shape), size),
        {"the emulator is one device: every mesh axis has size 1"});
  }
  auto dims = eval::NewDict(interp);
  std::string repr = "Mesh(";
  for (size_t i = 0; i < names.size(); ++i) {
    dims->Set(interp, names[i], Value::Int(shape[i]));
    repr += fmt::format("{}{}: {}", i ? ", " : "", interp.Repr(names[i]), shape[i]);
  }
  return MakeObject(interp, "Mesh", repr + ")",
                    {{"shape", Value(dims)},
                     {"axis_names", eval::MakeTuple(names)},
                     {"size", Value::Int(1)},
                     {"devices", eval::MakeList({Device(interp)})}});
}

Value JaxMakeMesh(Interpreter& interp, CallArgs& args) {
  auto bound = eval::BindArgs(interp, "make_mesh", args,
                              {"axis_shapes", "axis_names", "*", "axis_types=", "devices="});
  std::vector<int64_t> shape;
  for (const Value& d : interp.ToVector(*bound[0])) shape.push_back(eval::ToIndex(interp, d));
  return MakeMesh(interp, shape, interp.ToVector(*bound[1]));
}

Value MeshConstructor(Interpreter& interp, CallArgs& args) {
  auto bound = eval::BindArgs(interp, "Mesh", args, {"devices", "axis_names", "*", "axis_types="});
  std::vector<Value> names = bound[1]->is(eval::ObjectKind::kStr) ? std::vector<Value>{*bound[1]}
                                                                  : interp.ToVector(*bound[1]);
  Value shape_value = interp.TryGetAttr(*bound[0], "shape")
                          .value_or(eval::MakeTuple({Value::Int(interp.Len(*bound[0]))}));
  std::vector<int64_t> shape;
  for (const Value& d : interp.ToVector(shape_value)) shape.push_back(eval::ToIndex(interp, d));
  return MakeMesh(interp, shape, names);
}

Value NamedSharding(Interpreter& interp, CallArgs& args) {
  auto bound = eval::BindArgs(interp, "NamedSharding", args, {"mesh", "spec", "*", "memory_kind="});
  return MakeObject(
      interp, "NamedSharding",
      fmt::format("NamedSharding(mesh={}, spec={})", interp.Repr(*bound[0]),
                  interp.Repr(*bound[1])),
      {{"mesh", *bound[0]}, {"spec", *bound[1]}, {"memory_kind", bound[2].value_or(Value())}});
}

// jax.shard_map on a one-device mesh: the function sees whole arrays, its mesh axes bound (size 1).
class ShardMapObject final : public eval::Object {
 public:
  ShardMapObject(Value fun, Value mesh)
      : Object(eval::ObjectKind::kExtension), fun_(std::move(fun)), mesh_(std::move(mesh)) {}
  std::string_view type_name() const override { return "function"; }
  std::string Repr(Interpreter& interp) const override {
    return fmt::format("<shard_map of {}>", interp.Repr(fun_));
  }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override {
    if (name == "__call__") return CallMethod(interp, shared_from_this());
    return std::nullopt;
  }
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override {
    std::map<std::string, int64_t> axes;
    Value shape = interp.GetAttr(mesh_, "shape");
    for (const Value& name : interp.ToVector(interp.GetAttr(mesh_, "axis_names"))) {
      axes[interp.Str(name)] = interp.GetItem(shape, name).as_int();
    }
    AxisEnv& env = AxesOf(interp);
    env.push_back(std::move(axes));
    struct Pop {
      AxisEnv& env;
      ~Pop() { env.pop_back(); }
    } pop{env};
    return interp.Call(fun_, args);
  }
  void ClearReferences() override { fun_ = mesh_ = Value(); }

 private:
  Value fun_, mesh_;
};

Value ShardMap(Interpreter& interp, CallArgs& args) {
  auto bound = eval::BindArgs(interp, "shard_map", args,
                              {"f=", "*", "mesh=", "in_specs=", "out_specs=", "axis_names=",
                               "check_vma=", "check_rep=", "auto="});
  if (!bound[1] || bound[1]->is_none() ||
      interp.TryGetAttr(*bound[1], "axis_names") == std::nullopt) {
    interp.Raise(interp.types().type_error, "shard_map requires a `mesh=` (jax.make_mesh(...))");
  }
  Value mesh = *bound[1];
  if (!bound[0] || bound[0]->is_none()) {  // used as @partial(shard_map, mesh=...) or bare
    return interp.MakeBuiltin("shard_map", [mesh](Interpreter& interp, CallArgs& inner) {
      auto f = eval::BindArgs(interp, "shard_map", inner, {"f"});
      auto object = std::make_shared<ShardMapObject>(*f[0], mesh);
      interp.Track(object);
      return Value(object);
    });
  }
  auto object = std::make_shared<ShardMapObject>(*bound[0], mesh);
  interp.Track(object);
  return Value(object);
}

Value Int32(int64_t v) {
  array::Array a = array::Array::Scalar(array::DType::kInt32, static_cast<double>(v));
  a.set_weak_type(false);
  return eval::WrapArray(std::move(a));
}

}  // namespace

void InstallSharding(Interpreter& interp) {
  auto jax = interp.FindModule("jax");
  auto lax = interp.FindModule("jax.lax");
  AddBuiltin(interp, *jax, "devices", [](Interpreter& interp, CallArgs& args) {
    eval::BindArgs(interp, "devices", args, {"backend="});
    return eval::MakeList({Device(interp)});
  });
  AddBuiltin(interp, *jax, "local_devices", [](Interpreter& interp, CallArgs& args) {
    eval::BindArgs(interp, "local_devices", args, {"process_index=", "backend="});
    return eval::MakeList({Device(interp)});
  });
  for (const char* name : {"device_count", "local_device_count", "process_count"}) {
    AddBuiltin(interp, *jax, name, [](Interpreter&, CallArgs&) { return Value::Int(1); });
  }
  AddBuiltin(interp, *jax, "process_index", [](Interpreter&, CallArgs&) { return Value::Int(0); });
  AddBuiltin(interp, *jax, "default_backend",
             [](Interpreter&, CallArgs&) { return eval::MakeStr("cpu"); });
  // Placement and waiting change nothing on one device whose arrays are always ready.
  AddBuiltin(interp, *jax, "device_put", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "device_put", args,
                                {"x", "device=", "*", "src=", "donate=", "may_alias="});
    return *bound[0];
  });
  AddBuiltin(interp, *jax, "block_until_ready", [](Interpreter& interp, CallArgs& args) {
    return *eval::BindArgs(interp, "block_until_ready", args, {"x"})[0];
  });
  AddBuiltin(interp, *jax, "make_mesh", JaxMakeMesh);
  AddBuiltin(interp, *jax, "shard_map", ShardMap);

  auto sharding = std::make_shared<eval::ModuleObject>("jax.sharding");
  AddBuiltin(interp, *sharding, "PartitionSpec", PartitionSpec);
  AddBuiltin(interp, *sharding, "Mesh", MeshConstructor);
  AddBuiltin(interp, *sharding, "NamedSharding", NamedSharding);
  AddBuiltin(interp, *sharding, "SingleDeviceSharding", [](Interpreter& interp, CallArgs& args) {
    auto bound =
        eval::BindArgs(interp, "SingleDeviceSharding", args, {"device", "*", "memory_kind="});
    return MakeObject(interp, "SingleDeviceSharding",
                      fmt::format("SingleDeviceSharding(device={})", interp.Repr(*bound[0])),
                      {{"device", *bound[0]}});
  });
  interp.RegisterModule("jax.sharding", sharding);
  jax->Set("sharding", Value(sharding));

  AddBuiltin(interp, *lax, "axis_index", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "axis_index", args, {"axis_name"});
    AxisSize(interp, *bound[0], "axis_index");
    return Int32(0);
  });
  for (const char* name : {"psum", "pmean", "pmax", "pmin"}) {
    std::string fn = name;
    AddBuiltin(interp, *lax, name, [fn](Interpreter& interp, CallArgs& args) {
      auto bound = eval::BindArgs(interp, fn, args, {"x", "axis_name", "*", "axis_index_groups="});
      int64_t size = AxisSize(interp, *bound[1], fn);
      // Every axis has one member here: psum of a value is the value (a Python number too).
      return fn == "psum" && size != 1
                 ? interp.BinaryOp(lang::BinOpKind::kMul, *bound[0], Value::Int(size))
                 : *bound[0];
    });
  }
  AddBuiltin(interp, *lax, "ppermute", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "ppermute", args, {"x", "axis_name", "perm"});
    AxisSize(interp, *bound[1], "ppermute");
    for (const Value& pair : interp.ToVector(*bound[2])) {
      std::vector<Value> ends = interp.ToVector(pair);
      if (ends.size() != 2 || !ends[0].is_int() || !ends[1].is_int() || ends[0].as_int() != 0 ||
          ends[1].as_int() != 0) {
        interp.Raise(interp.types().value_error,
                     fmt::format("ppermute perm entries must be (source, destination) indices "
                                 "of the axis, of size 1 here; got {}",
                                 interp.Repr(pair)));
      }
    }
    return *bound[0];
  });
  AddBuiltin(interp, *lax, "all_gather", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "all_gather", args,
                                {"x", "axis_name", "*", "axis_index_groups=", "axis=", "tiled="});
    AxisSize(interp, *bound[1], "all_gather");
    if (bound[4] && interp.Truthy(*bound[4])) return *bound[0];
    auto jnp = interp.FindModule("jax.numpy");
    return interp.Call(jnp->attrs.at("expand_dims"),
                       std::vector<Value>{*bound[0], bound[3].value_or(Value::Int(0))});
  });
}

}  // namespace pz::kernel

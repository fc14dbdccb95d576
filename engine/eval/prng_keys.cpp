// Typed PRNG keys and registered PRNG implementations (prng_keys.h).
#include "eval/prng_keys.h"

#include <fmt/format.h>

#include "array/random.h"
#include "array/shape_ops.h"
#include "eval/array_object.h"
#include "eval/builtin_support.h"

namespace pz::eval {

using array::Array;

namespace {

// The dtype of a key array: prints as key<tag>; equal for one implementation.
class KeyDTypeObject final : public Object {
 public:
  explicit KeyDTypeObject(std::shared_ptr<const PrngImpl> impl)
      : Object(ObjectKind::kExtension), impl_(std::move(impl)) {}
  std::string_view type_name() const override { return "key"; }
  std::string Repr(Interpreter&) const override { return "key<" + impl_->tag + ">"; }
  std::optional<Value> GetAttr(Interpreter&, std::string_view name) override {
    if (name == "name") return MakeStr("key<" + impl_->tag + ">");
    return std::nullopt;
  }
  std::optional<Value> Compare(Interpreter&, lang::CmpOpKind op, const Value& other,
                               bool) override {
    if (op != lang::CmpOpKind::kEq && op != lang::CmpOpKind::kNotEq) return std::nullopt;
    auto* o = other.as<KeyDTypeObject>();
    bool same = o != nullptr && o->impl_ == impl_;
    return Value::Bool(op == lang::CmpOpKind::kEq ? same : !same);
  }
  std::optional<size_t> Hash(Interpreter&) override {
    return std::hash<const void*>()(impl_.get());
  }

 private:
  std::shared_ptr<const PrngImpl> impl_;
};

// A registered implementation (`prng.PRNGImpl(...)`), as a value.
class PrngImplObject final : public Object {
 public:
  explicit PrngImplObject(std::shared_ptr<const PrngImpl> impl)
      : Object(ObjectKind::kExtension), impl(std::move(impl)) {}
  std::string_view type_name() const override { return "PRNGImpl"; }
  std::string Repr(Interpreter&) const override { return impl->name; }
  std::optional<Value> GetAttr(Interpreter&, std::string_view name) override {
    if (name == "name") return MakeStr(impl->name);
    if (name == "tag") return MakeStr(impl->tag);
    if (name == "key_shape") {
      std::vector<Value> dims;
      for (int64_t d : impl->key_shape) dims.push_back(Value::Int(d));
      return MakeTuple(dims);
    }
    if (name == "seed") return impl->seed;
    if (name == "split") return impl->split;
    if (name == "random_bits") return impl->random_bits;
    if (name == "fold_in") return impl->fold_in;
    return std::nullopt;
  }
  void ClearReferences() override {}
  std::shared_ptr<const PrngImpl> impl;
};

// Registered implementations by name, per interpreter.
struct Registry : std::map<std::string, std::shared_ptr<const PrngImpl>> {};
Registry& Registered(Interpreter& interp) { return interp.State<Registry>(); }

Value ShapeTuple(const array::Shape& shape) {
  std::vector<Value> dims;
  for (int64_t d : shape) dims.push_back(Value::Int(d));
  return MakeTuple(dims);
}

// The implementation an `impl=` argument names (None: threefry2x32).
std::shared_ptr<const PrngImpl> ImplArg(Interpreter& interp, const std::optional<Value>& impl) {
  if (!impl || impl->is_none()) return Threefry();
  if (auto* object = impl->as<PrngImplObject>()) return object->impl;
  if (auto* name = impl->as<StrObject>()) {
    if (name->value == "threefry2x32" || name->value == "threefry") return Threefry();
    Registry& registry = Registered(interp);
    auto it = registry.find(name->value);
    if (it != registry.end()) return it->second;
  }
  interp.Raise(interp.types().value_error,
               fmt::format("unrecognized PRNG implementation {}; this emulator has threefry2x32 "
                           "and the implementations registered with prng.register_prng",
                           interp.Repr(*impl)));
}

// Key data returned by a registered implementation's function, checked.
Array ImplData(Interpreter& interp, const PrngImpl& impl, const Value& result,
               const array::Shape& batch, const char* what) {
  Array data = ToArray(interp, result);
  array::Shape want = batch;
  want.insert(want.end(), impl.key_shape.begin(), impl.key_shape.end());
  if (data.dtype() != array::DType::kUInt32 || data.shape() != want) {
    interp.Raise(interp.types().type_error,
                 fmt::format("the {} function of PRNG implementation {} returned {}{}, not "
                             "uint32{}",
                             what, impl.name, array::DTypeName(data.dtype()),
                             array::ShapeToString(data.shape()), array::ShapeToString(want)));
  }
  return data;
}

}  // namespace

void CheckScalarKey(Interpreter& interp, const KeyInput& key, std::string_view function) {
  if (key.data.rank() != static_cast<int>(key.impl->key_shape.size())) {
    array::Shape batch(key.data.shape().begin(),
                       key.data.shape().end() - static_cast<int64_t>(key.impl->key_shape.size()));
    interp.Raise(interp.types().type_error,
                 fmt::format("{} accepts a single key, but was given a key array of shape {} != "
                             "(). Use jax.vmap for batching.",
                             function, array::ShapeToString(batch)));
  }
}

Array ThreefrySeed(Interpreter& interp, const Value& seed) {
  if (seed.is_integral()) {
    return GuardArrayOp(interp, [&] { return array::Key(seed.integral()); });
  }
  if (seed.as<ArrayObject>() == nullptr) {
    interp.Raise(interp.types().type_error,
                 fmt::format("PRNG key seed must be an integer; got {}", interp.Repr(seed)));
  }
  Array data = ToArray(interp, seed);
  return GuardArrayOp(interp, [&] { return array::KeyFromSeed(data); });
}

std::shared_ptr<const PrngImpl> Threefry() {
  static const std::shared_ptr<const PrngImpl> impl = [] {
    auto p = std::make_shared<PrngImpl>();
    p->name = "threefry2x32";
    p->tag = "fry";
    p->builtin = true;
    return p;
  }();
  return impl;
}

array::Shape KeyArrayObject::shape() const {
  const array::Shape& s = data.shape();
  return array::Shape(s.begin(), s.end() - static_cast<int64_t>(impl->key_shape.size()));
}

std::string KeyArrayObject::Repr(Interpreter& interp) const {
  return fmt::format("Array({}, dtype=key<{}>) overlaying:\n{}", array::ShapeToString(shape()),
                     impl->tag, interp.Str(WrapArray(data)));
}

std::optional<Value> KeyArrayObject::GetAttr(Interpreter&, std::string_view name) {
  if (name == "shape") return ShapeTuple(shape());
  if (name == "dtype") return Value(std::make_shared<KeyDTypeObject>(impl));
  if (name == "ndim") return Value::Int(static_cast<int64_t>(shape().size()));
  if (name == "size") return Value::Int(array::NumElements(shape()));
  return std::nullopt;
}

std::optional<Value> KeyArrayObject::GetItem(Interpreter& interp, const Value& key) {
  std::vector<array::Index> index = ToIndices(interp, key);
  for (const array::Index& ix : index) {
    if (ix.kind == array::Index::Kind::kEllipsis) {
      interp.Raise(interp.types().not_implemented_error,
                   "indexing a key array with `...` is not supported by this emulator; index "
                   "its leading dimensions");
    }
  }
  int consumed = 0;
  for (const array::Index& ix : index) {
    if (ix.kind != array::Index::Kind::kNewAxis) ++consumed;
  }
  if (consumed > static_cast<int>(shape().size())) {
    interp.Raise(interp.types().index_error,
                 fmt::format("Too many indices: {}-dimensional array indexed with {} regular "
                             "indices.",
                             shape().size(), consumed));
  }
  Array out = IndexWithWarning(interp, data, index);
  return Value(std::make_shared<KeyArrayObject>(out.Contiguous(), impl));
}

std::optional<Value> KeyArrayObject::Binary(Interpreter& interp, lang::BinOpKind op,
                                            const Value& other, bool reflected) {
  static constexpr const char* kNames[] = {
      "add", "sub",        "mul",         "dot_general", "div", "floor_divide", "rem",
      "pow", "shift_left", "shift_right", "or",          "xor", "and"};
  auto dtype_of = [&](const Value& v) -> std::string {
    if (auto* key = v.as<KeyArrayObject>()) return "key<" + key->impl->tag + ">";
    if (auto* a = v.as<ArrayObject>()) return std::string(array::DTypeName(a->value.dtype()));
    if (v.is_bool()) return "bool";
    if (v.is_int()) return "int32";
    if (v.is_float()) return "float32";
    return interp.TypeName(v);
  };
  std::string mine = "key<" + impl->tag + ">", theirs = dtype_of(other);
  interp.Raise(interp.types().type_error,
               fmt::format("{} does not accept dtypes {}, {}.", kNames[static_cast<int>(op)],
                           reflected ? theirs : mine, reflected ? mine : theirs));
}

std::optional<int64_t> KeyArrayObject::Len(Interpreter& interp) {
  if (shape().empty()) interp.Raise(interp.types().type_error, "len() of unsized object");
  return shape()[0];
}

ObjectRef KeyArrayObject::Iter(Interpreter& interp) {
  if (shape().empty()) interp.Raise(interp.types().type_error, "iteration over a 0-d key array");
  auto self = std::static_pointer_cast<KeyArrayObject>(shared_from_this());
  auto position = std::make_shared<int64_t>(0);
  return std::make_shared<IteratorObject>(
      "key_iterator", [self, position](Interpreter& interp) -> std::optional<Value> {
        if (*position >= self->shape()[0]) return std::nullopt;
        return self->GetItem(interp, Value::Int((*position)++));
      });
}

KeyInput ReadKey(Interpreter& interp, const Value& value) {
  if (auto* key = value.as<KeyArrayObject>()) {
    return {.data = key->data, .impl = key->impl, .typed = true};
  }
  Array data = ToArray(interp, value);
  if (data.dtype() != array::DType::kUInt32 || data.rank() != 1 || data.shape()[0] != 2) {
    interp.Raise(interp.types().type_error,
                 fmt::format("expected a PRNG key (from `jax.random.key(seed)`, or uint32 key "
                             "data of shape (2,)), got {}{}; split keys with `jax.random.split`",
                             array::DTypeName(data.dtype()), array::ShapeToString(data.shape())));
  }
  return {.data = data, .impl = Threefry(), .typed = false};
}

Value WrapKey(const KeyInput& like, Array data) {
  if (!like.typed) return WrapArray(std::move(data));
  return Value(std::make_shared<KeyArrayObject>(std::move(data), like.impl));
}

Array CustomBits(Interpreter& interp, const KeyInput& key, const array::Shape& shape,
                 array::DType dtype) {
  CheckScalarKey(interp, key, "jax.random.bits");
  int bits = static_cast<int>(array::ItemSize(dtype)) * 8;
  Value out =
      interp.Call(key.impl->random_bits,
                  std::vector<Value>{WrapArray(key.data), Value::Int(bits), ShapeTuple(shape)});
  Array result = ToArray(interp, out);
  if (result.shape() != shape) {
    interp.Raise(interp.types().type_error,
                 fmt::format("the random_bits function of PRNG implementation {} returned shape "
                             "{}, not {}",
                             key.impl->name, array::ShapeToString(result.shape()),
                             array::ShapeToString(shape)));
  }
  return result.dtype() == dtype ? result
                                 : GuardArrayOp(interp, [&] { return result.AsType(dtype); });
}

void InstallPrngKeys(Interpreter& interp, ModuleObject& random) {
  // jax.random.key: a typed key (raw key data inside a kernel, where keys are traced as uint32
  // key data).
  AddFunction(interp, random, "key", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "key", args, {"seed", "*", "impl="});
    std::shared_ptr<const PrngImpl> impl = ImplArg(interp, b[1]);
    if (impl->builtin) {
      Array data = ThreefrySeed(interp, *b[0]);
      if (interp.trace_hooks() != nullptr) return WrapArray(std::move(data));
      return Value(std::make_shared<KeyArrayObject>(std::move(data), impl));
    }
    if (!b[0]->is_integral() && b[0]->as<ArrayObject>() == nullptr) {
      ThreefrySeed(interp, *b[0]);  // raises the TypeError for a seed that is no integer
    }
    Value seed = b[0]->is_integral()
                     ? WrapArray(Array::Scalar(array::DType::kInt32, double(b[0]->integral())))
                     : *b[0];
    Array data =
        ImplData(interp, *impl, interp.Call(impl->seed, std::vector<Value>{seed}), {}, "seed");
    return Value(std::make_shared<KeyArrayObject>(std::move(data), impl));
  });
  AddFunction(interp, random, "split", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "split", args, {"key", "num="});
    KeyInput key = ReadKey(interp, *b[0]);
    CheckScalarKey(interp, key, "jax.random.split");
    array::Shape shape = b[1] ? ToShape(interp, *b[1]) : array::Shape{2};
    if (key.impl->builtin) {
      int64_t num = array::NumElements(shape);
      Array keys = GuardArrayOp(interp, [&] { return array::SplitKey(key.data, num); });
      array::Shape full = shape;
      full.push_back(2);
      if (shape.size() != 1)
        keys = GuardArrayOp(interp, [&] { return array::Reshape(keys, full); });
      return WrapKey(key, keys);
    }
    Value out =
        interp.Call(key.impl->split, std::vector<Value>{WrapArray(key.data), ShapeTuple(shape)});
    return WrapKey(key, ImplData(interp, *key.impl, out, shape, "split"));
  });
  AddFunction(interp, random, "fold_in", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "fold_in", args, {"key", "data"});
    KeyInput key = ReadKey(interp, *b[0]);
    CheckScalarKey(interp, key, "jax.random.fold_in");
    if (key.impl->builtin) {
      if (b[1]->is_integral()) {
        int64_t data = b[1]->integral();
        return WrapKey(key, GuardArrayOp(interp, [&] { return array::FoldIn(key.data, data); }));
      }
      Array data = ToArray(interp, *b[1]);
      return WrapKey(key, GuardArrayOp(interp, [&] { return array::FoldIn(key.data, data); }));
    }
    Array data =
        GuardArrayOp(interp, [&] { return ToArray(interp, *b[1]).AsType(array::DType::kUInt32); });
    Value out =
        interp.Call(key.impl->fold_in, std::vector<Value>{WrapArray(key.data), WrapArray(data)});
    return WrapKey(key, ImplData(interp, *key.impl, out, {}, "fold_in"));
  });
  AddFunction(interp, random, "key_data", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "key_data", args, {"keys"});
    auto* key = b[0]->as<KeyArrayObject>();
    if (key == nullptr) {
      interp.Raise(interp.types().type_error,
                   fmt::format("key_data accepts only typed PRNG key arrays (from "
                               "jax.random.key), got {}",
                               interp.TypeName(*b[0])));
    }
    return WrapArray(key->data);
  });
  AddFunction(interp, random, "wrap_key_data", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "wrap_key_data", args, {"key_bits_array", "*", "impl="});
    std::shared_ptr<const PrngImpl> impl = ImplArg(interp, b[1]);
    Array data = ToArray(interp, *b[0]);
    size_t key_rank = impl->key_shape.size();
    bool fits =
        data.dtype() == array::DType::kUInt32 && data.rank() >= static_cast<int>(key_rank) &&
        array::Shape(data.shape().end() - static_cast<int64_t>(key_rank), data.shape().end()) ==
            impl->key_shape;
    if (!fits) {
      interp.Raise(interp.types().type_error,
                   fmt::format("wrap_key_data needs uint32 key data ending in the key shape {} "
                               "of {}, got {}{}",
                               array::ShapeToString(impl->key_shape), impl->name,
                               array::DTypeName(data.dtype()), array::ShapeToString(data.shape())));
    }
    return Value(std::make_shared<KeyArrayObject>(data.Contiguous(), impl));
  });
  AddFunction(interp, random, "key_impl", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "key_impl", args, {"keys"});
    KeyInput key = ReadKey(interp, *b[0]);
    return Value(std::make_shared<PrngImplObject>(key.impl));
  });

  // jax._src.random.prng (PRNGImpl, register_prng) and threefry2x32 (threefry_seed).
  auto prng = std::make_shared<ModuleObject>("jax._src.random.prng");
  AddFunction(interp, *prng, "PRNGImpl", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "PRNGImpl", args,
                      {"key_shape", "seed", "split", "random_bits", "fold_in", "name=", "tag="});
    auto impl = std::make_shared<PrngImpl>();
    impl->key_shape = ToShape(interp, *b[0]);
    impl->seed = *b[1];
    impl->split = *b[2];
    impl->random_bits = *b[3];
    impl->fold_in = *b[4];
    impl->name = b[5] ? interp.Str(*b[5]) : "<unnamed>";
    impl->tag = b[6] ? interp.Str(*b[6]) : "?";
    return Value(std::make_shared<PrngImplObject>(impl));
  });
  AddFunction(interp, *prng, "register_prng", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "register_prng", args, {"impl"});
    auto* object = b[0]->as<PrngImplObject>();
    if (object == nullptr) {
      interp.Raise(interp.types().type_error, "register_prng takes a prng.PRNGImpl");
    }
    Registry& registry = Registered(interp);
    if (registry.count(object->impl->name) != 0) {
      interp.Raise(interp.types().value_error,
                   fmt::format("PRNG impl {} already registered", object->impl->name));
    }
    registry[object->impl->name] = object->impl;
    return Value();
  });
  auto threefry = std::make_shared<ModuleObject>("jax._src.random.threefry2x32");
  AddFunction(interp, *threefry, "threefry_seed", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "threefry_seed", args, {"seed"});
    return WrapArray(ThreefrySeed(interp, *b[0]));
  });
  auto random_src = std::make_shared<ModuleObject>("jax._src.random");
  random_src->Set("prng", Value(prng));
  random_src->Set("threefry2x32", Value(threefry));
  std::shared_ptr<ModuleObject> src = interp.FindModule("jax._src");
  if (src == nullptr) {
    src = std::make_shared<ModuleObject>("jax._src");
    interp.RegisterModule("jax._src", src);
    interp.FindModule("jax")->Set("_src", Value(src));
  }
  src->Set("random", Value(random_src));
  interp.RegisterModule("jax._src.random", random_src);
  interp.RegisterModule("jax._src.random.prng", prng);
  interp.RegisterModule("jax._src.random.threefry2x32", threefry);
}

}  // namespace pz::eval

// Matrix products (jnp.dot/matmul/einsum, lax.dot_general/dot) and jax.random (threefry keys,
// split, fold_in, bits, uniform, normal, randint, bernoulli, permutation).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "array/elementwise.h"
#include "array/linalg.h"
#include "array/random.h"
#include "eval/array_object.h"
#include "eval/jnp_stats.h"
#include "eval/prng_keys.h"

namespace pz::eval {

using array::Array;
using array::DType;

namespace {

std::optional<DType> PreferredType(Interpreter& interp, const std::optional<Value>& v) {
  if (!v || v->is_none()) return std::nullopt;
  return ToDType(interp, *v);
}

std::vector<int> IntList(Interpreter& interp, const Value& v) {
  std::vector<int> out;
  for (const Value& item : interp.ToVector(v)) {
    if (!item.is_integral()) {
      interp.Raise(interp.types().type_error, "dimension numbers must be ints");
    }
    out.push_back(static_cast<int>(item.integral()));
  }
  return out;
}

// The unsigned dtype of the bits a float sampler of `dtype` draws.
DType BitsDType(Interpreter& interp, DType dtype) {
  switch (array::ItemSize(dtype)) {
    case 2:
      return DType::kUInt16;
    case 4:
      return DType::kUInt32;
    default:
      interp.Raise(interp.types().type_error,
                   fmt::format("dtype argument to uniform must be a float dtype, got {}",
                               array::DTypeName(dtype)));
  }
}

array::Shape OptionalShape(Interpreter& interp, const std::optional<Value>& v) {
  if (!v || v->is_none()) return {};
  return ToShape(interp, *v);
}

// A single threefry2x32 key's data, from a typed key or raw uint32[2] key data. A key of a
// registered implementation reaches the samplers that draw through its random_bits (bits,
// uniform, normal); `sampler` names the others in the error.
Array KeyArg(Interpreter& interp, const Value& v, const char* sampler = nullptr) {
  KeyInput key = ReadKey(interp, v);
  if (!key.impl->builtin) {
    interp.Raise(interp.types().not_implemented_error,
                 fmt::format("jax.random.{} with a key of the registered PRNG implementation {} "
                             "is not supported by this emulator (bits, uniform, normal, split "
                             "and fold_in are)",
                             sampler ? sampler : "?", key.impl->name));
  }
  CheckScalarKey(interp, key, fmt::format("jax.random.{}", sampler ? sampler : "?"));
  return key.data;
}

// `lax.Precision.HIGHEST` and its kin. On this CPU every precision computes in float32 (as on
// JAX's CPU backend), so dot products accept it and compute the same.
class PrecisionObject final : public EnumMemberObject {
 public:
  using EnumMemberObject::EnumMemberObject;
  std::string_view type_name() const override { return "Precision"; }
  std::string Repr(Interpreter&) const override { return "Precision." + name; }
  std::string Str(Interpreter&) const override { return name; }
};

// The member a precision string names, "" for none.
std::string PrecisionName(std::string_view s) {
  if (s == "default" || s == "bfloat16" || s == "fastest") return "DEFAULT";
  if (s == "high" || s == "bfloat16_3x" || s == "tensorfloat32") return "HIGH";
  if (s == "highest" || s == "float32") return "HIGHEST";
  return "";
}

// `lax.Precision`: its three members as attributes; called with a string, the member it names.
class PrecisionTypeObject final : public Object {
 public:
  PrecisionTypeObject() : Object(ObjectKind::kExtension) {
    for (const char* name : {"DEFAULT", "HIGH", "HIGHEST"}) {
      members.emplace(name, Value(std::make_shared<PrecisionObject>(name)));
    }
  }
  std::string_view type_name() const override { return "type"; }
  std::string Repr(Interpreter&) const override { return "<enum 'Precision'>"; }
  std::optional<Value> GetAttr(Interpreter&, std::string_view attr) override {
    auto it = members.find(std::string(attr));
    if (it == members.end()) return std::nullopt;
    return it->second;
  }
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override {
    auto b = BindArgs(interp, "Precision", args, {"value"});
    if (b[0]->as<PrecisionObject>() != nullptr) return *b[0];
    std::string name =
        b[0]->is(ObjectKind::kStr) ? PrecisionName(b[0]->as<StrObject>()->value) : "";
    if (name.empty()) {
      interp.Raise(interp.types().value_error,
                   fmt::format("{} is not a valid Precision", interp.Repr(*b[0])));
    }
    return members.at(name);
  }
  std::map<std::string, Value> members;
};

// Checks a dot product's `precision=` as JAX does (the value changes nothing here).
void CheckPrecision(Interpreter& interp, const std::optional<Value>& precision) {
  if (!precision || precision->is_none()) return;
  auto one = [&](const Value& v) {
    return v.as<PrecisionObject>() != nullptr ||
           (v.is(ObjectKind::kStr) && !PrecisionName(v.as<StrObject>()->value).empty());
  };
  bool ok = one(*precision);
  if (!ok && (precision->is(ObjectKind::kTuple) || precision->is(ObjectKind::kList))) {
    std::vector<Value> pair = interp.ToVector(*precision);
    ok = pair.size() == 2 && one(pair[0]) && one(pair[1]) &&
         pair[0].is(ObjectKind::kStr) == pair[1].is(ObjectKind::kStr);
  }
  if (!ok) {
    interp.Raise(
        interp.types().value_error,
        fmt::format("Precision argument must be one of:\n- None,\n- a string in ['highest', "
                    "'float32', 'high', 'bfloat16_3x', 'tensorfloat32', 'default', 'bfloat16', "
                    "'fastest', None],\n- a lax.Precision value,\n- a tuple of two lax.Precision "
                    "values or strings,\n- a lax.DotAlgorithmPreset or the name of one of these "
                    "presets, or\n- a lax.DotAlgorithm value;\nbut got {}.",
                    interp.Str(*precision)));
  }
}

}  // namespace

void InstallArrayLinalg(Interpreter& interp, const ArrayModules& m) {
  m.lax.Set("Precision", Value(std::make_shared<PrecisionTypeObject>()));
  for (ModuleObject* module : {&m.jnp, &m.np}) {
    AddFunction(interp, *module, "dot", [](Interpreter& interp, CallArgs& args) {
      auto b =
          BindArgs(interp, "dot", args, {"a", "b", "*", "precision=", "preferred_element_type="});
      CheckPrecision(interp, b[2]);
      Array x = ToArray(interp, *b[0]);
      Array y = ToArray(interp, *b[1]);
      return WrapArray(GuardArrayOp(
          interp, [&] { return array::Dot(x, y, PreferredType(interp, b[3]), "jnp.dot"); }));
    });
    AddFunction(interp, *module, "matmul", [](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, "matmul", args,
                        {"a", "b", "*", "precision=", "preferred_element_type="});
      CheckPrecision(interp, b[2]);
      Array x = ToArray(interp, *b[0]);
      Array y = ToArray(interp, *b[1]);
      return WrapArray(GuardArrayOp(
          interp, [&] { return array::Matmul(x, y, PreferredType(interp, b[3]), "jnp.matmul"); }));
    });
    AddFunction(interp, *module, "einsum", [](Interpreter& interp, CallArgs& args) {
      // einsum(subscripts, *operands, precision=None, preferred_element_type=None, ...)
      std::optional<Value> preferred;
      for (auto& [name, value] : args.keywords) {
        if (name == "preferred_element_type")
          preferred = value;
        else if (name == "precision")
          CheckPrecision(interp, value);
        else if (name != "optimize" && name != "_dot_general") {
          interp.Raise(interp.types().type_error,
                       fmt::format("einsum() got an unexpected keyword argument '{}'", name));
        }
      }
      if (args.positional.size() < 2 || args.positional.size() > 3 ||
          !args.positional[0].is(ObjectKind::kStr)) {
        interp.Raise(interp.types().type_error,
                     "einsum takes a subscripts string and one or two operands");
      }
      std::string subscripts = args.positional[0].as<StrObject>()->value;
      Array x = ToArray(interp, args.positional[1]);
      std::optional<DType> pref = PreferredType(interp, preferred);
      if (args.positional.size() == 2) {
        return WrapArray(GuardArrayOp(interp, [&] { return array::Einsum(subscripts, x, pref); }));
      }
      Array y = ToArray(interp, args.positional[2]);
      return WrapArray(GuardArrayOp(interp, [&] { return array::Einsum(subscripts, x, y, pref); }));
    });
  }
  AddFunction(interp, m.lax, "dot", [](Interpreter& interp, CallArgs& args) {
    auto b =
        BindArgs(interp, "dot", args, {"lhs", "rhs", "precision=", "*", "preferred_element_type="});
    CheckPrecision(interp, b[2]);
    Array x = ToArray(interp, *b[0]);
    Array y = ToArray(interp, *b[1]);
    return WrapArray(GuardArrayOp(
        interp, [&] { return array::Dot(x, y, PreferredType(interp, b[3]), "jax.lax.dot"); }));
  });
  AddFunction(interp, m.lax, "dot_general", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "dot_general", args,
                      {"lhs", "rhs", "dimension_numbers", "precision=", "preferred_element_type="});
    CheckPrecision(interp, b[3]);
    Array x = ToArray(interp, *b[0]);
    Array y = ToArray(interp, *b[1]);
    // dimension_numbers = ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))
    std::vector<Value> outer = interp.ToVector(*b[2]);
    if (outer.size() != 2) {
      interp.Raise(interp.types().type_error,
                   "dimension_numbers must be ((lhs_contracting, rhs_contracting), (lhs_batch, "
                   "rhs_batch))");
    }
    std::vector<Value> contracting = interp.ToVector(outer[0]);
    std::vector<Value> batch = interp.ToVector(outer[1]);
    if (contracting.size() != 2 || batch.size() != 2) {
      interp.Raise(interp.types().type_error,
                   "dimension_numbers must be ((lhs_contracting, rhs_contracting), (lhs_batch, "
                   "rhs_batch))");
    }
    array::DotDimensionNumbers dims;
    dims.lhs_contracting = IntList(interp, contracting[0]);
    dims.rhs_contracting = IntList(interp, contracting[1]);
    dims.lhs_batch = IntList(interp, batch[0]);
    dims.rhs_batch = IntList(interp, batch[1]);
    return WrapArray(GuardArrayOp(
        interp, [&] { return array::DotGeneral(x, y, dims, PreferredType(interp, b[4])); }));
  });
}

void InstallArrayRandom(Interpreter& interp, const ArrayModules& m) {
  InstallPrngKeys(interp, m.random);
  // jax.random.PRNGKey: raw uint32[2] key data (the legacy keys), not a typed key.
  AddFunction(interp, m.random, "PRNGKey", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "PRNGKey", args, {"seed", "*", "impl="});
    return WrapArray(ThreefrySeed(interp, *b[0]));
  });
  AddFunction(interp, m.random, "bits", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "bits", args, {"key", "shape=", "dtype="});
    DType dtype = b[2] && !b[2]->is_none() ? ToDType(interp, *b[2]) : DType::kUInt32;
    KeyInput key = ReadKey(interp, *b[0]);
    if (!key.impl->builtin)
      return WrapArray(CustomBits(interp, key, OptionalShape(interp, b[1]), dtype));
    Array k = KeyArg(interp, *b[0], "bits");
    return WrapArray(
        GuardArrayOp(interp, [&] { return array::Bits(k, OptionalShape(interp, b[1]), dtype); }));
  });
  AddFunction(interp, m.random, "uniform", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "uniform", args, {"key", "shape=", "dtype=", "minval=", "maxval="});
    DType dtype = b[2] && !b[2]->is_none() ? ToDType(interp, *b[2]) : DType::kFloat32;
    Array lo = b[3] ? ToArray(interp, *b[3]) : Array::Scalar(DType::kFloat32, 0.0);
    Array hi = b[4] ? ToArray(interp, *b[4]) : Array::Scalar(DType::kFloat32, 1.0);
    KeyInput key = ReadKey(interp, *b[0]);
    if (!key.impl->builtin) {
      Array bits = CustomBits(interp, key, OptionalShape(interp, b[1]), BitsDType(interp, dtype));
      return WrapArray(
          GuardArrayOp(interp, [&] { return array::UniformFromBits(bits, dtype, lo, hi); }));
    }
    Array k = KeyArg(interp, *b[0], "uniform");
    return WrapArray(GuardArrayOp(
        interp, [&] { return array::Uniform(k, OptionalShape(interp, b[1]), dtype, lo, hi); }));
  });
  AddFunction(interp, m.random, "normal", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "normal", args, {"key", "shape=", "dtype="});
    DType dtype = b[2] && !b[2]->is_none() ? ToDType(interp, *b[2]) : DType::kFloat32;
    KeyInput key = ReadKey(interp, *b[0]);
    if (!key.impl->builtin) {
      Array bits = CustomBits(interp, key, OptionalShape(interp, b[1]), BitsDType(interp, dtype));
      return WrapArray(GuardArrayOp(interp, [&] { return array::NormalFromBits(bits, dtype); }));
    }
    Array k = KeyArg(interp, *b[0], "normal");
    return WrapArray(
        GuardArrayOp(interp, [&] { return array::Normal(k, OptionalShape(interp, b[1]), dtype); }));
  });
  AddFunction(interp, m.random, "randint", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "randint", args, {"key", "shape", "minval", "maxval", "dtype="});
    Array k = KeyArg(interp, *b[0], "randint");
    DType dtype = b[4] && !b[4]->is_none() ? ToDType(interp, *b[4]) : DType::kInt32;
    Array lo = ToArray(interp, *b[2]), hi = ToArray(interp, *b[3]);
    return WrapArray(GuardArrayOp(
        interp, [&] { return array::RandInt(k, ToShape(interp, *b[1]), lo, hi, dtype); }));
  });
  AddFunction(interp, m.random, "bernoulli", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "bernoulli", args, {"key", "p=", "shape="});
    Array k = KeyArg(interp, *b[0], "bernoulli");
    if (b[1] && !b[1]->is_none()) {
      // An array of probabilities: uniform(key, shape or p.shape, p.dtype) < p, as in JAX.
      Array p = ToArray(interp, *b[1]);
      if (p.rank() > 0) {
        array::Shape shape = b[2] && !b[2]->is_none() ? ToShape(interp, *b[2]) : p.shape();
        return WrapArray(GuardArrayOp(interp, [&] {
          if (!array::IsFloating(p.dtype())) return array::Bernoulli(k, 0.0, shape, p.dtype());
          return array::Binary(array::BinaryOp::kLt, array::Uniform(k, shape, p.dtype()), p);
        }));
      }
    }
    double p = b[1] && !b[1]->is_none() ? ToArray(interp, *b[1]).GetDouble(0) : 0.5;
    return WrapArray(
        GuardArrayOp(interp, [&] { return array::Bernoulli(k, p, OptionalShape(interp, b[2])); }));
  });
  AddFunction(interp, m.random, "permutation", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "permutation", args, {"key", "x", "axis=", "independent="});
    Array k = KeyArg(interp, *b[0], "permutation");
    if (b[1]->is_integral()) {
      return WrapArray(
          GuardArrayOp(interp, [&] { return array::Permutation(k, b[1]->integral()); }));
    }
    Array x = ToArray(interp, *b[1]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::Permutation(k, x); }));
  });
}

namespace {

// Sets the numpy flag on every array a value holds (directly or in a tuple/list).
void MarkNumpy(const Value& value) {
  if (auto* a = value.as<ArrayObject>()) a->numpy = true;
  if (auto* t = value.as<TupleObject>()) {
    for (const Value& item : t->items) MarkNumpy(item);
  }
  if (auto* l = value.as<ListObject>()) {
    for (const Value& item : l->items) MarkNumpy(item);
  }
}

// numpy functions share jax.numpy's implementations; their results print as numpy arrays.
void MarkNumpyResults(Interpreter& interp, ModuleObject& np) {
  for (auto& [name, value] : np.attrs) {
    auto* builtin = value.as<BuiltinFunctionObject>();
    if (builtin == nullptr) continue;
    BuiltinFunctionObject::Fn inner = builtin->fn;
    value = interp.MakeBuiltin(builtin->name, [inner](Interpreter& interp, CallArgs& args) {
      Value result = inner(interp, args);
      MarkNumpy(result);
      return result;
    });
  }
}

}  // namespace

// Builds the module table and runs every installer; called by InstallModules.
void InstallArrayModules(Interpreter& interp) {
  auto find = [&](const char* name) -> ModuleObject& { return *interp.FindModule(name); };
  ArrayModules modules{find("jax"),    find("jax.numpy"),  find("jax.lax"),
                       find("jax.nn"), find("jax.random"), find("jax.scipy.special"),
                       find("numpy")};
  InstallArrayCore(interp, modules);
  InstallArrayMath(interp, modules);
  InstallArrayLinalg(interp, modules);
  InstallArrayRandom(interp, modules);
  InstallArrayHost(interp, modules);
  InstallDTypeInfo(interp, modules);
  InstallArrayBytes(interp, modules);
  InstallArrayStats(interp, modules);
  MarkNumpyResults(interp, modules.np);
  MarkNumpyResults(interp, find("numpy.linalg"));
}

}  // namespace pz::eval

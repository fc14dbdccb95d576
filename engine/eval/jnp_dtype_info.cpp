// `jnp.finfo` / `np.finfo` and `jnp.iinfo` / `np.iinfo`: the limits of a float or integer dtype,
// as numpy describes them. Float limits are 0-d arrays of the dtype itself (numpy gives scalars
// of it), integer limits Python ints.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "array/dtype.h"
#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "support/check.h"

namespace pz::eval {

namespace {

using array::DType;

// The numbers behind a float dtype's finfo (numpy's names).
struct FloatLimits {
  int bits, nmant, nexp, precision;
  double max, tiny, smallest_subnormal, resolution;
};

FloatLimits LimitsOf(DType dtype) {
  switch (dtype) {
    case DType::kBFloat16:
      return {16,  7, 8, 2, 3.3895313892515355e38, 1.1754943508222875e-38, 9.183549615799121e-41,
              0.01};
    case DType::kFloat16:
      return {16, 10, 5, 3, 65504.0, 6.103515625e-05, 5.960464477539063e-08, 0.001};
    default:
      return {32,
              23,
              8,
              6,
              std::numeric_limits<float>::max(),
              std::numeric_limits<float>::min(),
              std::numeric_limits<float>::denorm_min(),
              1e-06};
  }
}

// finfo and iinfo objects: named limits, read as attributes, printed as numpy prints them.
class DTypeInfoObject final : public Object {
 public:
  DTypeInfoObject(std::string kind, std::vector<std::pair<std::string, Value>> fields,
                  std::vector<std::string> shown)
      : Object(ObjectKind::kExtension),
        kind_(std::move(kind)),
        fields_(std::move(fields)),
        shown_(std::move(shown)) {}
  std::string_view type_name() const override { return kind_; }
  std::string Repr(Interpreter& interp) const override {
    std::string out = kind_ + "(";
    for (size_t i = 0; i < shown_.size(); ++i) {
      const Value& v = Find(shown_[i]);
      out += fmt::format("{}{}={}", i ? ", " : "", shown_[i], interp.Str(v));
    }
    return out + ")";
  }
  std::optional<Value> GetAttr(Interpreter&, std::string_view name) override {
    for (const auto& [key, value] : fields_) {
      if (key == name) return value;
    }
    return std::nullopt;
  }
  void ClearReferences() override { fields_.clear(); }

 private:
  const Value& Find(const std::string& name) const {
    for (const auto& field : fields_) {
      if (field.first == name) return field.second;
    }
    PZ_UNREACHABLE();
  }
  std::string kind_;
  std::vector<std::pair<std::string, Value>> fields_;
  std::vector<std::string> shown_;
};

// The dtype argument of finfo/iinfo: a dtype, its name, or an array (its dtype).
DType InfoDType(Interpreter& interp, const Value& value) {
  if (auto* a = value.as<ArrayObject>()) return a->value.dtype();
  return ToDType(interp, value);
}

Value FInfo(Interpreter& interp, CallArgs& args) {
  auto b = BindArgs(interp, "finfo", args, {"dtype"});
  DType dtype = InfoDType(interp, *b[0]);
  if (!array::IsFloating(dtype)) {
    interp.Raise(interp.types().value_error,
                 fmt::format("data type {} not inexact", array::DTypeName(dtype)));
  }
  FloatLimits l = LimitsOf(dtype);
  auto scalar = [dtype](double v) {
    array::Array a = array::Array::Scalar(dtype, v);
    a.set_weak_type(false);
    return WrapArray(std::move(a));
  };
  double eps = std::ldexp(1.0, -l.nmant);
  int maxexp = 1 << (l.nexp - 1);
  return Value(std::make_shared<DTypeInfoObject>(
      "finfo",
      std::vector<std::pair<std::string, Value>>{
          {"bits", Value::Int(l.bits)},
          {"dtype", Value(std::make_shared<DTypeObject>(dtype))},
          {"eps", scalar(eps)},
          {"epsneg", scalar(eps / 2)},
          {"machep", Value::Int(-l.nmant)},
          {"max", scalar(l.max)},
          {"maxexp", Value::Int(maxexp)},
          {"min", scalar(-l.max)},
          {"minexp", Value::Int(2 - maxexp)},
          {"negep", Value::Int(-l.nmant - 1)},
          {"nexp", Value::Int(l.nexp)},
          {"nmant", Value::Int(l.nmant)},
          {"precision", Value::Int(l.precision)},
          {"resolution", scalar(l.resolution)},
          {"smallest_normal", scalar(l.tiny)},
          {"smallest_subnormal", scalar(l.smallest_subnormal)},
          {"tiny", scalar(l.tiny)}},
      std::vector<std::string>{"resolution", "min", "max", "dtype"}));
}

Value IInfo(Interpreter& interp, CallArgs& args) {
  auto b = BindArgs(interp, "iinfo", args, {"int_type"});
  DType dtype = InfoDType(interp, *b[0]);
  if (!array::IsInteger(dtype)) {
    interp.Raise(interp.types().value_error,
                 fmt::format("Invalid integer data type '{}'.", array::IsBool(dtype) ? "b" : "f"));
  }
  bool four_bit = dtype == DType::kInt4 || dtype == DType::kUInt4;
  int bits = four_bit ? 4 : static_cast<int>(array::ItemSize(dtype)) * 8;
  bool is_unsigned = array::IsUnsigned(dtype);
  int64_t max = is_unsigned ? (int64_t{1} << bits) - 1 : (int64_t{1} << (bits - 1)) - 1;
  int64_t min = is_unsigned ? 0 : -(int64_t{1} << (bits - 1));
  return Value(
      std::make_shared<DTypeInfoObject>("iinfo",
                                        std::vector<std::pair<std::string, Value>>{
                                            {"bits", Value::Int(bits)},
                                            {"dtype", Value(std::make_shared<DTypeObject>(dtype))},
                                            {"kind", MakeStr(is_unsigned ? "u" : "i")},
                                            {"max", Value::Int(max)},
                                            {"min", Value::Int(min)}},
                                        std::vector<std::string>{"min", "max", "dtype"}));
}

}  // namespace

namespace {
struct TypePromotionErrorState {
  TypeObject* type = nullptr;
};
}  // namespace

TypeObject* TypePromotionErrorType(Interpreter& interp) {
  TypePromotionErrorState& state = interp.State<TypePromotionErrorState>();
  if (state.type == nullptr) {
    state.type = interp.NewExceptionType("TypePromotionError", interp.types().value_error);
    state.type->module = "jax.dtypes";
  }
  return state.type;
}

void InstallDTypeInfo(Interpreter& interp, const ArrayModules& m) {
  AddFunction(interp, {&m.jnp, &m.np}, "finfo", FInfo);
  AddFunction(interp, {&m.jnp, &m.np}, "iinfo", IInfo);
}

}  // namespace pz::eval

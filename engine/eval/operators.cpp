// Operators and the value protocols on built-in kinds: arithmetic with Python's int/float
// semantics (64-bit ints; overflow is an OverflowError), sequence concatenation/repetition,
// comparison, hashing, truthiness, repr/str/format and type queries. Extension objects take part
// through the hooks of Object.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <unordered_set>

#include "eval/classes.h"
#include "eval/format.h"
#include "eval/interpreter.h"

namespace pz::eval {
namespace {

using lang::BinOpKind;
using lang::CmpOpKind;
using lang::UnaryOpKind;

// Largest sequence a repetition or concatenation may build; beyond it the program is almost
// certainly wrong and would exhaust memory.
constexpr int64_t kMaxSequenceLength = int64_t{1} << 24;

// Nesting depth of containers that repr() follows before giving up, like CPython's recursion
// limit.
constexpr int kMaxReprDepth = 5000;

bool IsSequenceKind(const Value& v) {
  return v.is(ObjectKind::kStr) || v.is(ObjectKind::kList) || v.is(ObjectKind::kTuple);
}

// Compares an int and a float exactly (no rounding of the int).
int CompareIntFloat(int64_t i, double d) {
  if (std::isnan(d)) return 2;  // unordered
  if (d >= 9223372036854775808.0) return -1;
  if (d < -9223372036854775808.0) return 1;
  double floor = std::floor(d);
  auto fi = static_cast<int64_t>(floor);
  if (i < fi) return -1;
  if (i > fi) return 1;
  return floor == d ? 0 : -1;
}

// -1, 0, 1, or 2 when unordered (NaN). Both values are numbers.
int CompareNumbers(const Value& a, const Value& b) {
  if (a.is_integral() && b.is_integral()) {
    int64_t x = a.integral(), y = b.integral();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.is_integral()) return CompareIntFloat(a.integral(), b.as_float());
  if (b.is_integral()) {
    int c = CompareIntFloat(b.integral(), a.as_float());
    return c == 2 ? 2 : -c;
  }
  double x = a.as_float(), y = b.as_float();
  if (std::isnan(x) || std::isnan(y)) return 2;
  return x < y ? -1 : (x > y ? 1 : 0);
}

}  // namespace

// ---- Types ----------------------------------------------------------------------------------

TypeObject* Interpreter::TypeOf(const Value& value) {
  if (value.is_none()) return types_.none_type;
  if (value.is_bool()) return types_.bool_type;
  if (value.is_int()) return types_.int_type;
  if (value.is_float()) return types_.float_type;
  switch (value.object()->kind()) {
    case ObjectKind::kStr:
      return types_.str_type;
    case ObjectKind::kTuple:
      if (TypeObject* named = value.as<TupleObject>()->type) return named;
      return types_.tuple_type;
    case ObjectKind::kList:
      return types_.list_type;
    case ObjectKind::kDict:
      if (TypeObject* subclass = value.as<DictObject>()->type) return subclass;
      return types_.dict_type;
    case ObjectKind::kSet:
      return types_.set_type;
    case ObjectKind::kSlice:
      return types_.slice_type;
    case ObjectKind::kRange:
      return types_.range_type;
    case ObjectKind::kFunction:
      return types_.function_type;
    case ObjectKind::kModule:
      return types_.module_type;
    case ObjectKind::kType:
      return types_.type_type;
    case ObjectKind::kException:
      return value.as<ExceptionObject>()->type;
    case ObjectKind::kExtension: {
      if (auto* instance = value.as<InstanceObject>()) return instance->type;
      return ExtensionType(std::string(value.object()->type_name()));
    }
    default:
      return types_.object;
  }
}

TypeObject* Interpreter::ExtensionType(const std::string& name) {
  // One type object per extension type name (`Array`, `ndarray`, ...), made on first use.
  auto it = extension_types_.find(name);
  if (it != extension_types_.end()) return it->second;
  auto type = std::make_shared<TypeObject>(name, types_.object, nullptr);
  type_storage_.push_back(type);
  extension_types_[name] = type.get();
  return type.get();
}

std::string Interpreter::TypeName(const Value& value) {
  if (value.is_none()) return "NoneType";
  if (value.is_bool()) return "bool";
  if (value.is_int()) return "int";
  if (value.is_float()) return "float";
  return std::string(value.object()->type_name());
}

bool Interpreter::IsInstance(const Value& value, const TypeObject* type) {
  TypeObject* actual = TypeOf(value);
  if (actual->IsSubtypeOf(type)) return true;
  const ClassExtras* extras = type->extras.get();
  if (extras == nullptr) return false;
  if (IsVirtualSubclass(*actual, *type)) return true;
  return extras->instance_check && extras->instance_check(*this, value);
}

// ---- repr / str / format ----------------------------------------------------------------------

std::string Interpreter::Repr(const Value& value) {
  if (value.is_none()) return "None";
  if (value.is_bool()) return value.as_bool() ? "True" : "False";
  if (value.is_int()) return std::to_string(value.as_int());
  if (value.is_float()) return FloatRepr(value.as_float());
  Object& object = *value.object();
  // Containers that (indirectly) contain themselves print as [...] / {...}; very deep nesting is
  // a RecursionError, as in CPython, instead of a stack overflow.
  std::unordered_set<const Object*>& active = repr_active_;
  auto guard = [&](const char* cycle, auto&& body) -> std::string {
    if (active.size() >= static_cast<size_t>(kMaxReprDepth)) {
      Raise(types_.recursion_error,
            "maximum recursion depth exceeded while getting the repr of an object");
    }
    if (!active.insert(&object).second) return cycle;
    std::string out;
    try {
      out = body();
    } catch (...) {
      active.erase(&object);
      throw;
    }
    active.erase(&object);
    return out;
  };
  auto join = [&](const std::vector<Value>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out += ", ";
      out += Repr(items[i]);
    }
    return out;
  };
  switch (object.kind()) {
    case ObjectKind::kStr:
      return StrRepr(static_cast<StrObject&>(object).value);
    case ObjectKind::kList:
      return guard("[...]",
                   [&] { return "[" + join(static_cast<ListObject&>(object).items) + "]"; });
    case ObjectKind::kTuple: {
      auto& tuple = static_cast<TupleObject&>(object);
      if (tuple.type != nullptr) {
        return guard("(...)", [&] { return NamedTupleRepr(*this, tuple); });
      }
      const auto& items = tuple.items;
      return guard("(...)", [&] { return "(" + join(items) + (items.size() == 1 ? ",)" : ")"); });
    }
    case ObjectKind::kDict:
      if (static_cast<DictObject&>(object).type != nullptr) {
        return guard("{...}", [&] { return object.Repr(*this); });
      }
      return guard("{...}", [&] {
        std::string out = "{";
        bool first = true;
        for (const auto& [k, v] : static_cast<DictObject&>(object).Items()) {
          if (!first) out += ", ";
          first = false;
          out += Repr(k) + ": " + Repr(v);
        }
        return out + "}";
      });
    case ObjectKind::kSet: {
      auto& set = static_cast<SetObject&>(object);
      if (set.table.size() == 0) return "set()";
      return guard("{...}", [&] { return "{" + join(set.Elements()) + "}"; });
    }
    case ObjectKind::kRange: {
      auto& r = static_cast<RangeObject&>(object);
      if (r.step == 1) return fmt::format("range({}, {})", r.start, r.stop);
      return fmt::format("range({}, {}, {})", r.start, r.stop, r.step);
    }
    case ObjectKind::kSlice: {
      auto& s = static_cast<SliceObject&>(object);
      return fmt::format("slice({}, {}, {})", Repr(s.start), Repr(s.stop), Repr(s.step));
    }
    case ObjectKind::kEllipsis:
      return "Ellipsis";
    default:
      return object.Repr(*this);
  }
}

std::string Interpreter::Str(const Value& value) {
  if (auto* s = value.as<StrObject>()) return s->value;
  // Exceptions and extension objects (arrays print differently from their repr) have their own
  // str; every other kind prints its repr.
  if (value.is(ObjectKind::kException) || value.is(ObjectKind::kExtension)) {
    return value.object()->Str(*this);
  }
  return Repr(value);
}

std::string Interpreter::Format(const Value& value, std::string_view spec) {
  // Extension objects format themselves first: a 0-d array formats as the Python scalar it holds
  // (`f"{x}"` prints the float's repr, as JAX does), whatever the spec.
  if (value.is(ObjectKind::kExtension)) {
    if (std::optional<std::string> text = value.object()->Format(*this, spec)) return *text;
  }
  if (spec.empty()) return Str(value);
  FormatResult result;
  if (value.is_integral()) {
    result = FormatInt(value.integral(), spec);
  } else if (value.is_float()) {
    result = FormatFloat(value.as_float(), spec);
  } else if (auto* s = value.as<StrObject>()) {
    result = FormatStr(s->value, spec);
  } else {
    Raise(types_.type_error,
          fmt::format("unsupported format string passed to {}.__format__", TypeName(value)));
  }
  if (!result.ok()) Raise(types_.value_error, result.error);
  return result.text;
}

// ---- truthiness, equality, ordering, hashing ------------------------------------------------

bool Interpreter::Truthy(const Value& value) {
  if (value.is_none()) return false;
  if (value.is_bool()) return value.as_bool();
  if (value.is_int()) return value.as_int() != 0;
  if (value.is_float()) return value.as_float() != 0.0;
  Object& object = *value.object();
  switch (object.kind()) {
    case ObjectKind::kStr:
      return !static_cast<StrObject&>(object).value.empty();
    case ObjectKind::kList:
      return !static_cast<ListObject&>(object).items.empty();
    case ObjectKind::kTuple:
      return !static_cast<TupleObject&>(object).items.empty();
    case ObjectKind::kDict:
      return static_cast<DictObject&>(object).size() != 0;
    case ObjectKind::kSet:
      return static_cast<SetObject&>(object).table.size() != 0;
    case ObjectKind::kRange:
      return static_cast<RangeObject&>(object).size() != 0;
    default:
      if (std::optional<bool> truth = object.Truthy(*this)) return *truth;
      if (std::optional<int64_t> length = object.Len(*this)) return *length != 0;
      return true;
  }
}

bool Interpreter::Equals(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) return CompareNumbers(a, b) == 0;
  if (a.is_none() || b.is_none()) return a.is_none() && b.is_none();
  if (a.is(ObjectKind::kExtension) || b.is(ObjectKind::kExtension)) {
    // Extension objects decide through their hook; without one, equality is identity.
    if (a.is(ObjectKind::kExtension)) {
      if (auto r = a.object()->Compare(*this, CmpOpKind::kEq, b, false)) return Truthy(*r);
    }
    if (b.is(ObjectKind::kExtension)) {
      if (auto r = b.object()->Compare(*this, CmpOpKind::kEq, a, true)) return Truthy(*r);
    }
    return a.Identical(b);
  }
  if (!a.is_object() || !b.is_object()) return false;
  if (a.object() == b.object()) return true;
  ObjectKind ka = *a.kind(), kb = *b.kind();
  if (ka != kb) return false;
  auto items_equal = [&](const std::vector<Value>& x, const std::vector<Value>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!x[i].Identical(y[i]) && !Equals(x[i], y[i])) return false;
    }
    return true;
  };
  switch (ka) {
    case ObjectKind::kStr:
      return a.as<StrObject>()->value == b.as<StrObject>()->value;
    case ObjectKind::kList:
      return items_equal(a.as<ListObject>()->items, b.as<ListObject>()->items);
    case ObjectKind::kTuple:
      return items_equal(a.as<TupleObject>()->items, b.as<TupleObject>()->items);
    case ObjectKind::kDict: {
      auto* x = a.as<DictObject>();
      auto* y = b.as<DictObject>();
      if (x->size() != y->size()) return false;
      for (const auto& [k, v] : x->Items()) {
        std::optional<Value> other = y->Get(*this, k);
        if (!other || (!other->Identical(v) && !Equals(*other, v))) return false;
      }
      return true;
    }
    case ObjectKind::kSet: {
      auto* x = a.as<SetObject>();
      auto* y = b.as<SetObject>();
      if (x->table.size() != y->table.size()) return false;
      for (const auto& [k, v] : x->table.Items()) {
        if (!y->table.Contains(*this, k)) return false;
      }
      return true;
    }
    case ObjectKind::kRange: {
      auto* x = a.as<RangeObject>();
      auto* y = b.as<RangeObject>();
      if (x->size() != y->size()) return false;
      if (x->size() == 0) return true;
      return x->start == y->start && (x->size() == 1 || x->step == y->step);
    }
    case ObjectKind::kSlice: {
      auto* x = a.as<SliceObject>();
      auto* y = b.as<SliceObject>();
      return Equals(x->start, y->start) && Equals(x->stop, y->stop) && Equals(x->step, y->step);
    }
    default:
      return false;
  }
}

bool Interpreter::Less(const Value& a, const Value& b) {
  return Truthy(Compare(CmpOpKind::kLt, a, b));
}

Value Interpreter::Compare(CmpOpKind op, const Value& a, const Value& b) {
  switch (op) {
    case CmpOpKind::kIs:
      return Value::Bool(a.Identical(b));
    case CmpOpKind::kIsNot:
      return Value::Bool(!a.Identical(b));
    case CmpOpKind::kIn:
      return Value::Bool(Contains(b, a));
    case CmpOpKind::kNotIn:
      return Value::Bool(!Contains(b, a));
    default:
      break;
  }
  // Extension objects decide first (arrays compare elementwise).
  if (a.is(ObjectKind::kExtension)) {
    if (auto r = a.object()->Compare(*this, op, b, false)) return *r;
  }
  if (b.is(ObjectKind::kExtension)) {
    if (auto r = b.object()->Compare(*this, op, a, true)) return *r;
  }
  if (op == CmpOpKind::kEq) return Value::Bool(Equals(a, b));
  if (op == CmpOpKind::kNotEq) return Value::Bool(!Equals(a, b));

  auto decide = [&](int c) {
    if (c == 2) return Value::Bool(false);
    switch (op) {
      case CmpOpKind::kLt:
        return Value::Bool(c < 0);
      case CmpOpKind::kLtE:
        return Value::Bool(c <= 0);
      case CmpOpKind::kGt:
        return Value::Bool(c > 0);
      case CmpOpKind::kGtE:
        return Value::Bool(c >= 0);
      default:
        return Value::Bool(false);
    }
  };
  if (a.is_number() && b.is_number()) return decide(CompareNumbers(a, b));
  if (a.is(ObjectKind::kStr) && b.is(ObjectKind::kStr)) {
    int c = a.as<StrObject>()->value.compare(b.as<StrObject>()->value);
    return decide(c < 0 ? -1 : (c > 0 ? 1 : 0));
  }
  if (a.is(ObjectKind::kSet) && b.is(ObjectKind::kSet)) {
    auto subset = [&](SetObject& x, SetObject& y) {
      for (const auto& [k, v] : x.table.Items()) {
        if (!y.table.Contains(*this, k)) return false;
      }
      return true;
    };
    SetObject& x = *a.as<SetObject>();
    SetObject& y = *b.as<SetObject>();
    size_t nx = x.table.size(), ny = y.table.size();
    switch (op) {
      case CmpOpKind::kLtE:
        return Value::Bool(subset(x, y));
      case CmpOpKind::kLt:
        return Value::Bool(nx < ny && subset(x, y));
      case CmpOpKind::kGtE:
        return Value::Bool(subset(y, x));
      case CmpOpKind::kGt:
        return Value::Bool(ny < nx && subset(y, x));
      default:
        break;
    }
  }
  bool lists = a.is(ObjectKind::kList) && b.is(ObjectKind::kList);
  bool tuples = a.is(ObjectKind::kTuple) && b.is(ObjectKind::kTuple);
  if (lists || tuples) {
    const auto& x = lists ? a.as<ListObject>()->items : a.as<TupleObject>()->items;
    const auto& y = lists ? b.as<ListObject>()->items : b.as<TupleObject>()->items;
    size_t n = std::min(x.size(), y.size());
    for (size_t i = 0; i < n; ++i) {
      if (x[i].Identical(y[i]) || Equals(x[i], y[i])) continue;
      return Compare(op, x[i], y[i]);
    }
    int c = x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
    return decide(c);
  }
  Raise(types_.type_error, fmt::format("'{}' not supported between instances of '{}' and '{}'",
                                       lang::Spelling(op), TypeName(a), TypeName(b)));
}

size_t Interpreter::Hash(const Value& value) {
  auto mix = [](size_t h) { return h * 0x9E3779B97F4A7C15ull ^ (h >> 29); };
  if (value.is_none()) return 0x6e6f6e65;
  if (value.is_integral()) return mix(static_cast<size_t>(value.integral()));
  if (value.is_float()) {
    double d = value.as_float();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) {
      return mix(static_cast<size_t>(static_cast<int64_t>(d)));
    }
    return std::hash<double>{}(d);
  }
  Object& object = *value.object();
  switch (object.kind()) {
    case ObjectKind::kStr:
      return std::hash<std::string>{}(static_cast<StrObject&>(object).value);
    case ObjectKind::kTuple: {
      size_t h = 0x7475706c;
      for (const Value& item : static_cast<TupleObject&>(object).items) h = mix(h ^ Hash(item));
      return h;
    }
    case ObjectKind::kList:
    case ObjectKind::kDict:
    case ObjectKind::kSet:
    case ObjectKind::kSlice:
      Raise(types_.type_error, fmt::format("unhashable type: '{}'", TypeName(value)));
    case ObjectKind::kExtension:
      if (std::optional<size_t> h = object.Hash(*this)) return *h;
      Raise(types_.type_error, fmt::format("unhashable type: '{}'", TypeName(value)));
    default:
      return std::hash<const void*>{}(&object);
  }
}

// ---- arithmetic -------------------------------------------------------------------------------

namespace {

struct IntOps {
  Interpreter& interp;

  [[noreturn]] void Overflow() {
    interp.Raise(interp.types().overflow_error,
                 "integer result out of range; integers are 64-bit in this engine");
  }

  int64_t Pow(int64_t base, int64_t exp) {
    int64_t result = 1;
    while (exp > 0) {
      if (exp & 1) {
        if (__builtin_mul_overflow(result, base, &result)) Overflow();
      }
      exp >>= 1;
      if (exp > 0 && __builtin_mul_overflow(base, base, &base)) Overflow();
    }
    return result;
  }

  Value Apply(BinOpKind op, int64_t a, int64_t b, bool both_bool) {
    int64_t r = 0;
    const BuiltinTypes& t = interp.types();
    switch (op) {
      case BinOpKind::kAdd:
        if (__builtin_add_overflow(a, b, &r)) Overflow();
        return Value::Int(r);
      case BinOpKind::kSub:
        if (__builtin_sub_overflow(a, b, &r)) Overflow();
        return Value::Int(r);
      case BinOpKind::kMul:
        if (__builtin_mul_overflow(a, b, &r)) Overflow();
        return Value::Int(r);
      case BinOpKind::kDiv:
        if (b == 0) interp.Raise(t.zero_division_error, "division by zero");
        return Value::Float(static_cast<double>(a) / static_cast<double>(b));
      case BinOpKind::kFloorDiv: {
        if (b == 0) interp.Raise(t.zero_division_error, "integer division or modulo by zero");
        if (a == std::numeric_limits<int64_t>::min() && b == -1) Overflow();
        int64_t q = a / b;
        if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
        return Value::Int(q);
      }
      case BinOpKind::kMod: {
        if (b == 0) interp.Raise(t.zero_division_error, "integer modulo by zero");
        if (b == -1) return Value::Int(0);
        int64_t m = a % b;
        if (m != 0 && ((m < 0) != (b < 0))) m += b;
        return Value::Int(m);
      }
      case BinOpKind::kPow:
        if (b < 0) {
          if (a == 0)
            interp.Raise(t.zero_division_error, "0.0 cannot be raised to a negative power");
          return Value::Float(std::pow(static_cast<double>(a), static_cast<double>(b)));
        }
        return Value::Int(Pow(a, b));
      case BinOpKind::kLShift:
        if (b < 0) interp.Raise(t.value_error, "negative shift count");
        if (a == 0) return Value::Int(0);
        if (b >= 63 || (a > 0 ? a > (std::numeric_limits<int64_t>::max() >> b)
                              : a < (std::numeric_limits<int64_t>::min() >> b))) {
          Overflow();
        }
        return Value::Int(static_cast<int64_t>(static_cast<uint64_t>(a) << b));
      case BinOpKind::kRShift:
        if (b < 0) interp.Raise(t.value_error, "negative shift count");
        return Value::Int(b >= 63 ? (a < 0 ? -1 : 0) : a >> b);
      case BinOpKind::kBitAnd:
        return both_bool ? Value::Bool((a & b) != 0) : Value::Int(a & b);
      case BinOpKind::kBitOr:
        return both_bool ? Value::Bool((a | b) != 0) : Value::Int(a | b);
      case BinOpKind::kBitXor:
        return both_bool ? Value::Bool((a ^ b) != 0) : Value::Int(a ^ b);
      case BinOpKind::kMatMul:
        break;
    }
    return Value();  // unsupported: caller raises
  }
};

}  // namespace

std::pair<double, double> FloatDivmod(double x, double y) {
  double mod = std::fmod(x, y);
  double div = (x - mod) / y;
  if (mod != 0.0) {
    if ((y < 0) != (mod < 0)) {
      mod += y;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, y);
  }
  double floordiv;
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, x / y);
  }
  return {floordiv, mod};
}

Value Interpreter::BinaryOp(BinOpKind op, const Value& a, const Value& b, bool inplace) {
  // Extension objects and dict subclasses (Counter) first: arrays define every operator against
  // numbers and each other.
  auto hooked = [](const Value& v) {
    return v.is(ObjectKind::kExtension) || (v.is(ObjectKind::kDict) && v.as<DictObject>()->type);
  };
  if (hooked(a)) {
    if (auto r = a.object()->Binary(*this, op, b, false)) return *r;
  }
  if (hooked(b)) {
    if (auto r = b.object()->Binary(*this, op, a, true)) return *r;
  }
  if (a.is_integral() && b.is_integral()) {
    Value r = IntOps{*this}.Apply(op, a.integral(), b.integral(), a.is_bool() && b.is_bool());
    if (op != BinOpKind::kMatMul) return r;
  } else if (a.is_number() && b.is_number()) {
    double x = a.number(), y = b.number();
    switch (op) {
      case BinOpKind::kAdd:
        return Value::Float(x + y);
      case BinOpKind::kSub:
        return Value::Float(x - y);
      case BinOpKind::kMul:
        return Value::Float(x * y);
      case BinOpKind::kDiv:
        if (y == 0.0) Raise(types_.zero_division_error, "float division by zero");
        return Value::Float(x / y);
      case BinOpKind::kFloorDiv:
        if (y == 0.0) Raise(types_.zero_division_error, "float floor division by zero");
        return Value::Float(FloatDivmod(x, y).first);
      case BinOpKind::kMod:
        if (y == 0.0) Raise(types_.zero_division_error, "float modulo");
        return Value::Float(FloatDivmod(x, y).second);
      case BinOpKind::kPow:
        if (x == 0.0 && y < 0.0) {
          Raise(types_.zero_division_error, "0.0 cannot be raised to a negative power");
        }
        if (x < 0.0 && y != std::floor(y) && std::isfinite(y)) {
          Raise(types_.value_error,
                "complex results are not supported (a negative number raised to a fractional "
                "power)");
        }
        return Value::Float(std::pow(x, y));
      default:
        break;
    }
  } else if (op == BinOpKind::kAdd && IsSequenceKind(a) && a.kind() == b.kind()) {
    if (auto* s = a.as<StrObject>()) {
      const std::string& t = b.as<StrObject>()->value;
      if (static_cast<int64_t>(s->value.size() + t.size()) > kMaxSequenceLength) {
        Raise(types_.overflow_error, "resulting string is too large");
      }
      return MakeStr(s->value + t);
    }
    const auto& x =
        a.is(ObjectKind::kList) ? a.as<ListObject>()->items : a.as<TupleObject>()->items;
    const auto& y =
        b.is(ObjectKind::kList) ? b.as<ListObject>()->items : b.as<TupleObject>()->items;
    std::vector<Value> items;
    items.reserve(x.size() + y.size());
    items.insert(items.end(), x.begin(), x.end());
    items.insert(items.end(), y.begin(), y.end());
    if (a.is(ObjectKind::kTuple)) return MakeTuple(std::move(items));
    auto list = std::make_shared<ListObject>(std::move(items));
    Track(list);
    return Value(list);
  } else if (op == BinOpKind::kMul &&
             ((IsSequenceKind(a) && b.is_integral()) || (a.is_integral() && IsSequenceKind(b)))) {
    const Value& seq = a.is_integral() ? b : a;
    int64_t count = std::max<int64_t>(0, (a.is_integral() ? a : b).integral());
    int64_t length = seq.is(ObjectKind::kStr)    ? seq.as<StrObject>()->value.size()
                     : seq.is(ObjectKind::kList) ? seq.as<ListObject>()->items.size()
                                                 : seq.as<TupleObject>()->items.size();
    if (length > 0 && count > kMaxSequenceLength / length) {
      Raise(
          types_.overflow_error,
          fmt::format("repeated sequence is too long (more than {} elements)", kMaxSequenceLength));
    }
    if (auto* s = seq.as<StrObject>()) {
      std::string out;
      out.reserve(s->value.size() * count);
      for (int64_t i = 0; i < count; ++i) out += s->value;
      return MakeStr(std::move(out));
    }
    const auto& src =
        seq.is(ObjectKind::kList) ? seq.as<ListObject>()->items : seq.as<TupleObject>()->items;
    std::vector<Value> items;
    items.reserve(src.size() * count);
    for (int64_t i = 0; i < count; ++i) items.insert(items.end(), src.begin(), src.end());
    if (seq.is(ObjectKind::kTuple)) return MakeTuple(std::move(items));
    auto list = std::make_shared<ListObject>(std::move(items));
    Track(list);
    return Value(list);
  } else if (op == BinOpKind::kMod && a.is(ObjectKind::kStr)) {
    return PercentFormat(*this, a.as<StrObject>()->value, b);
  } else if (a.is(ObjectKind::kSet) && b.is(ObjectKind::kSet) &&
             (op == BinOpKind::kBitOr || op == BinOpKind::kBitAnd || op == BinOpKind::kSub ||
              op == BinOpKind::kBitXor)) {
    return SetOperation(op, *a.as<SetObject>(), *b.as<SetObject>());
  } else if (op == BinOpKind::kBitOr && a.is(ObjectKind::kDict) && b.is(ObjectKind::kDict)) {
    auto dict = std::make_shared<DictObject>();
    Track(dict);
    for (const auto& [k, v] : a.as<DictObject>()->Items()) dict->Set(*this, k, v);
    for (const auto& [k, v] : b.as<DictObject>()->Items()) dict->Set(*this, k, v);
    return Value(dict);
  }
  if (op == BinOpKind::kAdd && IsSequenceKind(a) && !a.is(ObjectKind::kTuple)) {
    Raise(types_.type_error, fmt::format("can only concatenate {} (not \"{}\") to {}", TypeName(a),
                                         TypeName(b), TypeName(a)));
  }
  if (op == BinOpKind::kAdd && a.is(ObjectKind::kTuple)) {
    Raise(types_.type_error,
          fmt::format("can only concatenate tuple (not \"{}\") to tuple", TypeName(b)));
  }
  Raise(types_.type_error,
        fmt::format("unsupported operand type(s) for {}{}: '{}' and '{}'", lang::Spelling(op),
                    inplace ? "=" : "", TypeName(a), TypeName(b)));
}

Value Interpreter::SetOperation(BinOpKind op, SetObject& a, SetObject& b) {
  auto result = std::make_shared<SetObject>();
  Track(result);
  auto add = [&](const Value& v) { result->table.Set(*this, v, Value()); };
  for (const auto& [k, v] : a.table.Items()) {
    bool in_b = b.table.Contains(*this, k);
    if (op == BinOpKind::kBitOr || (op == BinOpKind::kBitAnd && in_b) ||
        ((op == BinOpKind::kSub || op == BinOpKind::kBitXor) && !in_b)) {
      add(k);
    }
  }
  if (op == BinOpKind::kBitOr || op == BinOpKind::kBitXor) {
    for (const auto& [k, v] : b.table.Items()) {
      if (op == BinOpKind::kBitOr || !a.table.Contains(*this, k)) add(k);
    }
  }
  return Value(result);
}

Value Interpreter::UnaryOp(UnaryOpKind op, const Value& a) {
  if (op == UnaryOpKind::kNot) return Value::Bool(!Truthy(a));
  if (a.is_integral()) {
    int64_t v = a.integral();
    switch (op) {
      case UnaryOpKind::kNeg:
        if (v == std::numeric_limits<int64_t>::min()) IntOps{*this}.Overflow();
        return Value::Int(-v);
      case UnaryOpKind::kPos:
        return Value::Int(v);
      case UnaryOpKind::kInvert:
        return Value::Int(~v);
      case UnaryOpKind::kNot:
        break;
    }
  }
  if (a.is_float()) {
    if (op == UnaryOpKind::kNeg) return Value::Float(-a.as_float());
    if (op == UnaryOpKind::kPos) return a;
  }
  if (a.is(ObjectKind::kExtension) || a.is(ObjectKind::kDict)) {
    if (auto r = a.object()->Unary(*this, op)) return *r;
  }
  Raise(types_.type_error,
        fmt::format("bad operand type for unary {}: '{}'", lang::Spelling(op), TypeName(a)));
}

}  // namespace pz::eval

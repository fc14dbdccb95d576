// The `math` module: constants and functions with CPython 3.11's results and errors (ValueError
// "math domain error", OverflowError "math range error"). Integer functions (factorial, comb,
// gcd, prod, ...) work on int64 and raise OverflowError where Python would need a bigger int.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "eval/builtin_support.h"
#include "eval/interpreter.h"

namespace pz::eval {

namespace {

__extension__ typedef __int128 Int128;

[[noreturn]] void DomainError(Interpreter& interp) {
  interp.Raise(interp.types().value_error, "math domain error");
}

[[noreturn]] void RangeError(Interpreter& interp) {
  interp.Raise(interp.types().overflow_error, "math range error");
}

// CPython's math_1: a nan from a non-nan is a domain error; an infinity from a finite argument
// is a range error when the function can overflow, else a domain error (a pole).
Value CheckedResult(Interpreter& interp, double x, double r, bool can_overflow) {
  if (std::isnan(r) && !std::isnan(x)) DomainError(interp);
  if (std::isinf(r) && std::isfinite(x)) {
    if (can_overflow) RangeError(interp);
    DomainError(interp);
  }
  return Value::Float(r);
}

struct Unary {
  const char* name;
  double (*fn)(double);
  bool can_overflow;
};

double Degrees(double x) { return x * (180.0 / std::numbers::pi); }
double Radians(double x) { return x * (std::numbers::pi / 180.0); }

const Unary kUnary[] = {
    {"sqrt", [](double x) { return std::sqrt(x); }, false},
    {"exp", [](double x) { return std::exp(x); }, true},
    {"exp2", [](double x) { return std::exp2(x); }, true},
    {"expm1", [](double x) { return std::expm1(x); }, true},
    {"log1p", [](double x) { return std::log1p(x); }, false},
    {"cbrt", [](double x) { return std::cbrt(x); }, false},
    {"sin", [](double x) { return std::sin(x); }, false},
    {"cos", [](double x) { return std::cos(x); }, false},
    {"tan", [](double x) { return std::tan(x); }, false},
    {"asin", [](double x) { return std::asin(x); }, false},
    {"acos", [](double x) { return std::acos(x); }, false},
    {"atan", [](double x) { return std::atan(x); }, false},
    {"sinh", [](double x) { return std::sinh(x); }, true},
    {"cosh", [](double x) { return std::cosh(x); }, true},
    {"tanh", [](double x) { return std::tanh(x); }, false},
    {"asinh", [](double x) { return std::asinh(x); }, false},
    {"acosh", [](double x) { return std::acosh(x); }, false},
    {"atanh", [](double x) { return std::atanh(x); }, false},
    {"erf", [](double x) { return std::erf(x); }, false},
    {"erfc", [](double x) { return std::erfc(x); }, false},
    {"fabs", [](double x) { return std::fabs(x); }, false},
    {"degrees", Degrees, false},
    {"radians", Radians, false},
};

// log, log2, log10: non-positive arguments are domain errors (log(0) too, unlike C).
double Log(Interpreter& interp, double x, double (*fn)(double)) {
  if (std::isnan(x) || x == INFINITY) return x;
  if (x <= 0) DomainError(interp);
  return fn(x);
}

double NaturalLog(double x) { return std::log(x); }

Value LogFunction(Interpreter& interp, CallArgs& args) {
  CheckNoKeywords(interp, "math.log", args);
  if (args.positional.empty() || args.positional.size() > 2) {
    interp.Raise(interp.types().type_error, "math.log requires 1 to 2 arguments");
  }
  double num = Log(interp, ToDouble(interp, args.positional[0]), NaturalLog);
  if (args.positional.size() == 1) return Value::Float(num);
  double den = Log(interp, ToDouble(interp, args.positional[1]), NaturalLog);
  if (den == 0) interp.Raise(interp.types().zero_division_error, "float division by zero");
  return Value::Float(num / den);
}

// floor, ceil, trunc: ints pass through, floats become ints.
Value Rounding(Interpreter& interp, CallArgs& args, const char* name, double (*fn)(double)) {
  const Value& x = OneArg(interp, name, args);
  if (x.is_integral()) return Value::Int(x.integral());
  return FloatToInt(interp, fn(ToDouble(interp, x)));
}

Value Pow(Interpreter& interp, CallArgs& args) {
  CheckArgCount(interp, "math.pow", args, 2, 2);
  double x = ToDouble(interp, args.positional[0]), y = ToDouble(interp, args.positional[1]);
  double r = std::pow(x, y);
  if (std::isfinite(x) && std::isfinite(y) && !std::isfinite(r)) {
    if (std::isnan(r) || x == 0) DomainError(interp);
    RangeError(interp);
  }
  return Value::Float(r);
}

Value MathIsClose(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "isclose", args, {"a", "b", "*", "rel_tol=", "abs_tol="});
  double a = ToDouble(interp, *bound[0]), b = ToDouble(interp, *bound[1]);
  double rel_tol = bound[2] ? ToDouble(interp, *bound[2]) : 1e-9;
  double abs_tol = bound[3] ? ToDouble(interp, *bound[3]) : 0.0;
  if (rel_tol < 0 || abs_tol < 0) {
    interp.Raise(interp.types().value_error, "tolerances must be non-negative");
  }
  if (a == b) return Value::Bool(true);
  if (std::isinf(a) || std::isinf(b)) return Value::Bool(false);
  double diff = std::fabs(b - a);
  return Value::Bool(diff <= std::fabs(rel_tol * b) || diff <= std::fabs(rel_tol * a) ||
                     diff <= abs_tol);
}

Value Prod(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "prod", args, {"iterable", "/", "*", "start="});
  Value product = bound[1] ? *bound[1] : Value::Int(1);
  interp.ForEach(*bound[0], [&](const Value& item) {
    int64_t result;
    if (product.is_int() && item.is_int() &&
        !__builtin_mul_overflow(product.as_int(), item.as_int(), &result)) {
      product = Value::Int(result);
    } else {
      product = interp.BinaryOp(lang::BinOpKind::kMul, product, item);
    }
    return true;
  });
  return product;
}

// Shewchuk's exactly rounded summation, as CPython's math.fsum.
Value FSum(Interpreter& interp, CallArgs& args) {
  const Value& iterable = OneArg(interp, "math.fsum", args);
  std::vector<double> partials;
  double special_sum = 0, inf_sum = 0;
  interp.ForEach(iterable, [&](const Value& item) {
    double x = ToDouble(interp, item);
    double original = x;
    size_t i = 0;
    for (double y : partials) {
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      double hi = x + y;
      double lo = y - (hi - x);
      if (lo != 0.0) partials[i++] = lo;
      x = hi;
    }
    partials.resize(i);
    if (x != 0.0) {
      if (!std::isfinite(x)) {
        // A non-finite x could arise from overflow of finite inputs or from inf/nan inputs.
        if (std::isfinite(original)) {
          interp.Raise(interp.types().overflow_error, "intermediate overflow in fsum");
        }
        if (std::isinf(original)) inf_sum += original;
        special_sum += original;
        partials.clear();
      } else {
        partials.push_back(x);
      }
    }
    return true;
  });
  if (special_sum != 0.0) {
    if (std::isnan(inf_sum)) interp.Raise(interp.types().value_error, "-inf + inf in fsum");
    return Value::Float(special_sum);
  }
  double hi = 0.0;
  if (!partials.empty()) {
    size_t n = partials.size();
    hi = partials[--n];
    double lo = 0;
    while (n > 0) {
      double x = hi;
      double y = partials[--n];
      hi = x + y;
      double yr = hi - x;
      lo = y - yr;
      if (lo != 0.0) break;
    }
    // Round-half-even correction when the remaining partials decide a tie.
    if (n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0))) {
      double y = lo * 2.0;
      double x = hi + y;
      double yr = x - hi;
      if (y == yr) hi = x;
    }
  }
  return Value::Float(hi);
}

uint64_t Magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : v; }

uint64_t Gcd(uint64_t a, uint64_t b) {
  while (b != 0) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

Value FitInt(Interpreter& interp, Int128 value) {
  if (value > INT64_MAX || value < INT64_MIN) RaiseIntOverflow(interp);
  return Value::Int(static_cast<int64_t>(value));
}

Value GcdFunction(Interpreter& interp, CallArgs& args) {
  CheckNoKeywords(interp, "math.gcd", args);
  uint64_t result = 0;
  for (const Value& v : args.positional) result = Gcd(result, Magnitude(ToIndex(interp, v)));
  return FitInt(interp, result);
}

Value LcmFunction(Interpreter& interp, CallArgs& args) {
  CheckNoKeywords(interp, "math.lcm", args);
  Int128 result = 1;
  for (const Value& v : args.positional) {
    uint64_t m = Magnitude(ToIndex(interp, v));
    if (result == 0 || m == 0) {
      result = 0;
      continue;
    }
    result = result / Gcd(static_cast<uint64_t>(result), m) * m;
    if (result > INT64_MAX) RaiseIntOverflow(interp);
  }
  return FitInt(interp, result);
}

int64_t NonNegative(Interpreter& interp, const Value& v, const char* what) {
  int64_t n = ToIndex(interp, v);
  if (n < 0)
    interp.Raise(interp.types().value_error,
                 fmt::format("{} must be a non-negative integer", what));
  return n;
}

Value Factorial(Interpreter& interp, CallArgs& args) {
  int64_t n = ToIndex(interp, OneArg(interp, "math.factorial", args));
  if (n < 0) {
    interp.Raise(interp.types().value_error, "factorial() not defined for negative values");
  }
  int64_t result = 1;
  for (int64_t i = 2; i <= n; ++i) {
    if (__builtin_mul_overflow(result, i, &result)) RaiseIntOverflow(interp);
  }
  return Value::Int(result);
}

Value Comb(Interpreter& interp, CallArgs& args) {
  CheckArgCount(interp, "math.comb", args, 2, 2);
  int64_t n = NonNegative(interp, args.positional[0], "n");
  int64_t k = NonNegative(interp, args.positional[1], "k");
  if (k > n) return Value::Int(0);
  k = std::min(k, n - k);
  Int128 result = 1;
  for (int64_t i = 0; i < k; ++i) {
    result = result * (n - i) / (i + 1);  // exact: C(n, i + 1)
    if (result > INT64_MAX) RaiseIntOverflow(interp);
  }
  return FitInt(interp, result);
}

Value Perm(Interpreter& interp, CallArgs& args) {
  CheckArgCount(interp, "math.perm", args, 1, 2);
  if (args.positional.size() == 1 || args.positional[1].is_none()) {
    CallArgs n{.positional = {args.positional[0]}, .span = args.span};
    return Factorial(interp, n);  // perm(n) is n!, with factorial()'s messages
  }
  int64_t n = NonNegative(interp, args.positional[0], "n");
  int64_t k = NonNegative(interp, args.positional[1], "k");
  if (k > n) return Value::Int(0);
  int64_t result = 1;
  for (int64_t i = 0; i < k; ++i) {
    if (__builtin_mul_overflow(result, n - i, &result)) RaiseIntOverflow(interp);
  }
  return Value::Int(result);
}

Value Isqrt(Interpreter& interp, CallArgs& args) {
  int64_t n = ToIndex(interp, OneArg(interp, "math.isqrt", args));
  if (n < 0) interp.Raise(interp.types().value_error, "isqrt() argument must be nonnegative");
  auto r = static_cast<int64_t>(std::sqrt(static_cast<double>(n)));
  while (static_cast<Int128>(r) * r > n) --r;
  while (static_cast<Int128>(r + 1) * (r + 1) <= n) ++r;
  return Value::Int(r);
}

Value Gamma(Interpreter& interp, CallArgs& args, bool log) {
  double x = ToDouble(interp, OneArg(interp, log ? "math.lgamma" : "math.gamma", args));
  if (std::isfinite(x) && x <= 0 && x == std::floor(x)) DomainError(interp);
  if (x == -INFINITY && !log) DomainError(interp);
  return CheckedResult(interp, x, log ? std::lgamma(x) : std::tgamma(x), true);
}

Value Hypot(Interpreter& interp, CallArgs& args) {
  CheckNoKeywords(interp, "math.hypot", args);
  double result = 0;
  bool saw_nan = false, saw_inf = false;
  for (const Value& v : args.positional) {
    double x = ToDouble(interp, v);
    saw_nan = saw_nan || std::isnan(x);
    saw_inf = saw_inf || std::isinf(x);
    result = std::hypot(result, x);
  }
  if (saw_inf) return Value::Float(INFINITY);
  if (saw_nan) return Value::Float(NAN);
  return Value::Float(result);
}

Value Binary(Interpreter& interp, CallArgs& args, const char* name) {
  CheckArgCount(interp, std::string("math.") + name, args, 2, 2);
  double x = ToDouble(interp, args.positional[0]), y = ToDouble(interp, args.positional[1]);
  std::string_view n = name;
  if (n == "atan2") return Value::Float(std::atan2(x, y));
  if (n == "copysign") return Value::Float(std::copysign(x, y));
  // fmod
  if (std::isinf(y) && std::isfinite(x)) return Value::Float(x);
  return CheckedResult(interp, x, std::fmod(x, y), false);
}

}  // namespace

std::shared_ptr<ModuleObject> MakeMathModule(Interpreter& interp) {
  auto math = std::make_shared<ModuleObject>("math");
  math->Set("pi", Value::Float(std::numbers::pi));
  math->Set("e", Value::Float(std::numbers::e));
  math->Set("tau", Value::Float(2 * std::numbers::pi));
  math->Set("inf", Value::Float(INFINITY));
  math->Set("nan", Value::Float(NAN));
  for (const Unary& unary : kUnary) {
    math->Set(unary.name, interp.MakeBuiltin(unary.name, [unary](Interpreter& in, CallArgs& args) {
      std::string name = std::string("math.") + unary.name;
      double x = ToDouble(in, OneArg(in, name, args));
      return CheckedResult(in, x, unary.fn(x), unary.can_overflow);
    }));
  }
  const std::pair<const char*, BuiltinFunctionObject::Fn> functions[] = {
      {"log", LogFunction},
      {"log2",
       [](Interpreter& in, CallArgs& args) {
         return Value::Float(Log(in, ToDouble(in, OneArg(in, "math.log2", args)),
                                 [](double v) { return std::log2(v); }));
       }},
      {"log10",
       [](Interpreter& in, CallArgs& args) {
         return Value::Float(Log(in, ToDouble(in, OneArg(in, "math.log10", args)),
                                 [](double v) { return std::log10(v); }));
       }},
      {"floor",
       [](Interpreter& in, CallArgs& a) {
         return Rounding(in, a, "math.floor", [](double v) { return std::floor(v); });
       }},
      {"ceil",
       [](Interpreter& in, CallArgs& a) {
         return Rounding(in, a, "math.ceil", [](double v) { return std::ceil(v); });
       }},
      {"trunc",
       [](Interpreter& in, CallArgs& a) {
         return Rounding(in, a, "math.trunc", [](double v) { return std::trunc(v); });
       }},
      {"pow", Pow},
      {"atan2", [](Interpreter& in, CallArgs& a) { return Binary(in, a, "atan2"); }},
      {"copysign", [](Interpreter& in, CallArgs& a) { return Binary(in, a, "copysign"); }},
      {"fmod", [](Interpreter& in, CallArgs& a) { return Binary(in, a, "fmod"); }},
      {"hypot", Hypot},
      {"isclose", MathIsClose},
      {"isfinite",
       [](Interpreter& in, CallArgs& a) {
         return Value::Bool(std::isfinite(ToDouble(in, OneArg(in, "math.isfinite", a))));
       }},
      {"isinf",
       [](Interpreter& in, CallArgs& a) {
         return Value::Bool(std::isinf(ToDouble(in, OneArg(in, "math.isinf", a))));
       }},
      {"isnan",
       [](Interpreter& in, CallArgs& a) {
         return Value::Bool(std::isnan(ToDouble(in, OneArg(in, "math.isnan", a))));
       }},
      {"modf",
       [](Interpreter& in, CallArgs& a) {
         double whole;
         double fraction = std::modf(ToDouble(in, OneArg(in, "math.modf", a)), &whole);
         return MakeTuple({Value::Float(fraction), Value::Float(whole)});
       }},
      {"frexp",
       [](Interpreter& in, CallArgs& a) {
         int exponent = 0;
         double mantissa = std::frexp(ToDouble(in, OneArg(in, "math.frexp", a)), &exponent);
         return MakeTuple({Value::Float(mantissa), Value::Int(exponent)});
       }},
      {"ldexp",
       [](Interpreter& in, CallArgs& a) {
         CheckArgCount(in, "math.ldexp", a, 2, 2);
         double x = ToDouble(in, a.positional[0]);
         int64_t e = std::clamp<int64_t>(ToIndex(in, a.positional[1]), -100000, 100000);
         return CheckedResult(in, x, std::ldexp(x, static_cast<int>(e)), true);
       }},
      {"prod", Prod},
      {"fsum", FSum},
      {"gcd", GcdFunction},
      {"lcm", LcmFunction},
      {"factorial", Factorial},
      {"comb", Comb},
      {"perm", Perm},
      {"isqrt", Isqrt},
      {"gamma", [](Interpreter& in, CallArgs& a) { return Gamma(in, a, false); }},
      {"lgamma", [](Interpreter& in, CallArgs& a) { return Gamma(in, a, true); }},
  };
  for (const auto& [name, fn] : functions) math->Set(name, interp.MakeBuiltin(name, fn));
  return math;
}

}  // namespace pz::eval

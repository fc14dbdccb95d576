// Python operators on arrays: `+ - * / // % ** @ & | ^ << >>`, unary `- + ~ abs`, and
// comparisons, each mapped to the array layer's elementwise kernels with JAX's promotion of
// weakly typed Python scalars.
#include <fmt/format.h>

#include "array/elementwise.h"
#include "array/linalg.h"
#include "eval/array_object.h"

namespace pz::eval {

using array::Array;

std::optional<array::BinaryOp> ToBinaryOp(lang::BinOpKind op) {
  switch (op) {
    case lang::BinOpKind::kAdd:
      return array::BinaryOp::kAdd;
    case lang::BinOpKind::kSub:
      return array::BinaryOp::kSub;
    case lang::BinOpKind::kMul:
      return array::BinaryOp::kMul;
    case lang::BinOpKind::kDiv:
      return array::BinaryOp::kDiv;
    case lang::BinOpKind::kFloorDiv:
      return array::BinaryOp::kFloorDiv;
    case lang::BinOpKind::kMod:
      return array::BinaryOp::kMod;
    case lang::BinOpKind::kPow:
      return array::BinaryOp::kPow;
    case lang::BinOpKind::kBitAnd:
      return array::BinaryOp::kBitAnd;
    case lang::BinOpKind::kBitOr:
      return array::BinaryOp::kBitOr;
    case lang::BinOpKind::kBitXor:
      return array::BinaryOp::kBitXor;
    case lang::BinOpKind::kLShift:
      return array::BinaryOp::kLShift;
    case lang::BinOpKind::kRShift:
      return array::BinaryOp::kRShift;
    case lang::BinOpKind::kMatMul:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<array::BinaryOp> ToCompareOp(lang::CmpOpKind op) {
  switch (op) {
    case lang::CmpOpKind::kEq:
      return array::BinaryOp::kEq;
    case lang::CmpOpKind::kNotEq:
      return array::BinaryOp::kNe;
    case lang::CmpOpKind::kLt:
      return array::BinaryOp::kLt;
    case lang::CmpOpKind::kLtE:
      return array::BinaryOp::kLe;
    case lang::CmpOpKind::kGt:
      return array::BinaryOp::kGt;
    case lang::CmpOpKind::kGtE:
      return array::BinaryOp::kGe;
    default:
      return std::nullopt;
  }
}

namespace {

// Whether the Python int `v` is a value of the integer dtype `dtype`.
bool FitsInteger(int64_t v, array::DType dtype) {
  int bits = static_cast<int>(array::ItemSize(dtype)) * 8;
  if (dtype == array::DType::kInt4 || dtype == array::DType::kUInt4) bits = 4;
  if (array::IsUnsigned(dtype)) return v >= 0 && (bits >= 63 || v <= (int64_t{1} << bits) - 1);
  return v >= -(int64_t{1} << (bits - 1)) && v <= (int64_t{1} << (bits - 1)) - 1;
}

// The other operand as an array, or nullopt when it is not array-like (the operator then falls
// back to Python's TypeError).
// The other operand of `self op other` as an array; nullopt where the operator does not apply.
// Python lists and tuples mix with numpy arrays only: JAX refuses `x + [1, 2]`.
std::optional<Array> Operand(Interpreter& interp, const ArrayObject& self, const Value& other) {
  if (other.is(ObjectKind::kList) || other.is(ObjectKind::kTuple)) {
    if (!self.numpy) return std::nullopt;
    return ToArray(interp, other);
  }
  // numpy (NEP 50): a Python int meets an integer array in the array's dtype, so 0xFFFFFFFF is
  // a uint32 and only an int out of the dtype's range overflows. (JAX reads every Python int as
  // a weak int32 first: ToArray.)
  if (self.numpy && other.is_int() && array::IsInteger(self.value.dtype())) {
    if (!FitsInteger(other.as_int(), self.value.dtype())) {
      interp.Raise(interp.types().overflow_error,
                   fmt::format("Python integer {} out of bounds for {}", other.as_int(),
                               array::DTypeName(self.value.dtype())));
    }
    Array a = GuardArrayOp(interp, [&] {
      return Array::Scalar(self.value.dtype(), static_cast<double>(other.as_int()));
    });
    a.set_weak_type(true);
    return a;
  }
  if (other.is_number()) return ToArray(interp, other);
  if (other.as<ArrayObject>() != nullptr) return ToArray(interp, other);
  return std::nullopt;
}

}  // namespace

namespace {

// Inside a kernel trace, arrays from outside the kernel may not be used (captured constants).
void CheckConstants(Interpreter& interp, const ArrayObject& self, const Value* other) {
  TraceHooks* hooks = interp.trace_hooks();
  if (hooks == nullptr) return;
  hooks->CheckConstant(interp, self);
  if (other != nullptr) {
    if (auto* array = other->as<ArrayObject>()) hooks->CheckConstant(interp, *array);
  }
}

// A result stays a numpy array when no jax Array took part.
bool NumpyResult(const ArrayObject& self, const Value& other) {
  auto* o = other.as<ArrayObject>();
  return self.numpy && (o == nullptr || o->numpy);
}

}  // namespace

namespace {

// `x op [1, 2]` with a JAX array x is a TypeError. JAX raises it itself for + and * (where a list
// has a meaning of its own) and for == and != (naming the array first either way); for the other
// operators Python raises it, naming the array's type in full.
[[noreturn]] void RefuseSequence(Interpreter& interp, const ArrayObject& self, const Value& other,
                                 bool reflected, std::string message_op, bool jax_raises) {
  std::string array = jax_raises ? std::string(self.type_name()) : "jaxlib._jax.ArrayImpl";
  std::string sequence = interp.TypeName(other);
  bool array_first = !reflected || message_op == "==";
  interp.RaiseWithNotes(interp.types().type_error,
                        fmt::format("unsupported operand type(s) for {}: '{}' and '{}'", message_op,
                                    array_first ? array : sequence, array_first ? sequence : array),
                        {"make an array of it first: `jnp.array(...)`"});
}

bool IsListOrTuple(const Value& v) { return v.is(ObjectKind::kList) || v.is(ObjectKind::kTuple); }

}  // namespace

std::optional<Value> ArrayObject::Binary(Interpreter& interp, lang::BinOpKind op,
                                         const Value& other, bool reflected) {
  std::optional<Array> rhs = Operand(interp, *this, other);
  if (!rhs && IsListOrTuple(other)) {
    bool jax_raises = op == lang::BinOpKind::kAdd || op == lang::BinOpKind::kMul;
    std::string spelling(lang::Spelling(op));
    if (op == lang::BinOpKind::kPow) spelling = "** or pow()";
    RefuseSequence(interp, *this, other, reflected, spelling, jax_raises);
  }
  if (!rhs) return std::nullopt;
  CheckConstants(interp, *this, &other);
  const Array& a = reflected ? *rhs : value;
  const Array& b = reflected ? value : *rhs;
  Array result = GuardArrayOp(interp, [&] {
    if (op == lang::BinOpKind::kMatMul) return array::Matmul(a, b, std::nullopt);
    return array::Binary(*ToBinaryOp(op), a, b);
  });
  return Value(std::make_shared<ArrayObject>(std::move(result), NumpyResult(*this, other)));
}

std::optional<Value> ArrayObject::Unary(Interpreter& interp, lang::UnaryOpKind op) {
  CheckConstants(interp, *this, nullptr);
  array::UnaryOp kernel = array::UnaryOp::kNeg;
  switch (op) {
    case lang::UnaryOpKind::kNeg:
      kernel = array::UnaryOp::kNeg;
      break;
    case lang::UnaryOpKind::kPos:
      kernel = array::UnaryOp::kPos;
      break;
    case lang::UnaryOpKind::kInvert:
      kernel = array::UnaryOp::kInvert;
      break;
    case lang::UnaryOpKind::kNot:
      return std::nullopt;
  }
  return Value(std::make_shared<ArrayObject>(
      GuardArrayOp(interp, [&] { return array::Unary(kernel, value); }), numpy));
}

std::optional<Value> ArrayObject::Compare(Interpreter& interp, lang::CmpOpKind op,
                                          const Value& other, bool reflected) {
  std::optional<array::BinaryOp> kernel = ToCompareOp(op);
  if (!kernel) return std::nullopt;
  // numpy compares an integer array with a Python int beyond its dtype exactly (NEP 50); JAX
  // raises OverflowError (in Operand).
  if (numpy && other.is_int() && array::IsInteger(value.dtype()) &&
      !FitsInteger(other.as_int(), value.dtype())) {
    std::vector<double> xs = value.ToDoubles();  // exact: every int32 / uint32 is a double
    double y = static_cast<double>(other.as_int());
    std::vector<double> result(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      double l = reflected ? y : xs[i], r = reflected ? xs[i] : y;
      bool v = false;
      switch (*kernel) {
        case array::BinaryOp::kEq:
          v = l == r;
          break;
        case array::BinaryOp::kNe:
          v = l != r;
          break;
        case array::BinaryOp::kLt:
          v = l < r;
          break;
        case array::BinaryOp::kLe:
          v = l <= r;
          break;
        case array::BinaryOp::kGt:
          v = l > r;
          break;
        default:
          v = l >= r;
          break;
      }
      result[i] = v ? 1 : 0;
    }
    return Value(std::make_shared<ArrayObject>(
        Array::FromDoubles(array::DType::kBool, value.shape(), result), true));
  }
  std::optional<Array> rhs = Operand(interp, *this, other);
  if (!rhs && IsListOrTuple(other)) {
    if (op == lang::CmpOpKind::kEq || op == lang::CmpOpKind::kNotEq) {
      RefuseSequence(interp, *this, other, reflected, "==", true);
    }
    std::string array = "jaxlib._jax.ArrayImpl", sequence = interp.TypeName(other);
    interp.RaiseWithNotes(
        interp.types().type_error,
        fmt::format("'{}' not supported between instances of '{}' and '{}'", lang::Spelling(op),
                    reflected ? sequence : array, reflected ? array : sequence),
        {"make an array of it first: `jnp.array(...)`"});
  }
  if (!rhs) {
    if (op == lang::CmpOpKind::kEq) return Value::Bool(false);
    if (op == lang::CmpOpKind::kNotEq) return Value::Bool(true);
    return std::nullopt;
  }
  CheckConstants(interp, *this, &other);
  const Array& a = reflected ? *rhs : value;
  const Array& b = reflected ? value : *rhs;
  return Value(std::make_shared<ArrayObject>(
      GuardArrayOp(interp, [&] { return array::Binary(*kernel, a, b); }),
      NumpyResult(*this, other)));
}

}  // namespace pz::eval

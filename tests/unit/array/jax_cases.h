// Shared helpers for the array tests driven by tests/unit/array/jax_expected.inc: the case
// structs the generated tables fill, building an Array from an operand, and comparing a result
// with what JAX produced (exact, or within a few ulp of the result dtype).
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "array/array.h"
#include "array/elementwise.h"
#include "array/reduce.h"

namespace pz::array::testing {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// An input: an array, or a Python scalar (weak, rank 0).
struct Operand {
  DType dtype;
  bool weak;
  Shape shape;
  std::vector<double> values;
};

// What JAX returned, or the exception it raised.
struct Expected {
  bool ok;
  DType dtype;
  bool weak;
  Shape shape;
  std::vector<double> values;
  ArrayError::Kind error_kind;
  const char* error_message;
};

struct BinaryCase {
  const char* name;
  BinaryOp op;
  Operand a;
  Operand b;
  Expected expected;
  int max_ulp;
};
struct UnaryCase {
  const char* name;
  UnaryOp op;
  Operand a;
  Expected expected;
  int max_ulp;
};
struct WhereCase {
  const char* name;
  Operand cond;
  Operand x;
  Operand y;
  Expected expected;
};
struct ClipCase {
  const char* name;
  Operand x;
  Operand lo;
  Operand hi;
  Expected expected;
};
struct ReduceCase {
  const char* name;
  ReduceOp op;
  Operand a;
  std::optional<std::vector<int>> axes;
  bool keepdims;
  Expected expected;
  int max_ulp;
};
struct LogSumExpCase {
  const char* name;
  Operand a;
  std::optional<std::vector<int>> axes;
  bool keepdims;
  Expected expected;
};
struct SoftmaxCase {
  const char* name;
  Operand a;
  std::optional<std::vector<int>> axes;
  Expected expected;
};
struct CumSumCase {
  const char* name;
  Operand a;
  std::optional<int> axis;
  Expected expected;
};

inline Array MakeArray(const Operand& operand) {
  std::vector<double> values = operand.values;
  if (IsFloating(operand.dtype)) {
    for (double& v : values) v = static_cast<float>(v);
  }
  Array a = Array::FromDoubles(operand.dtype, operand.shape, values);
  a.set_weak_type(operand.weak);
  return a;
}

// Distance in units in the last place of `dtype` between two values of that dtype.
inline int64_t UlpDistance(double a, double b, DType dtype) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
  auto ordered = [dtype](double v) -> int64_t {
    int64_t bits;
    int64_t sign_bit;
    float f = static_cast<float>(v);
    if (dtype == DType::kBFloat16) {
      bits = FloatToBFloat16Bits(f);
      sign_bit = 0x8000;
    } else if (dtype == DType::kFloat16) {
      bits = FloatToHalfBits(f);
      sign_bit = 0x8000;
    } else {
      bits = std::bit_cast<uint32_t>(f);
      sign_bit = int64_t{1} << 31;
    }
    return bits & sign_bit ? -(bits & (sign_bit - 1)) : bits;
  };
  return std::llabs(ordered(a) - ordered(b));
}

// A gtest-safe test name from a case name.
inline std::string CaseName(const char* name) {
  std::string out;
  for (const char* p = name; *p; ++p) {
    out += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
  }
  return out;
}

// Checks `actual` against `expected`: dtype, weak type, shape, then values exactly (NaN equals
// NaN, and the sign of zero counts) or within `max_ulp` for floating results.
inline void ExpectMatches(const Array& actual, const Expected& expected, int max_ulp = 0) {
  ASSERT_TRUE(expected.ok) << "JAX raised: " << expected.error_message;
  EXPECT_EQ(DTypeName(actual.dtype()), DTypeName(expected.dtype));
  EXPECT_EQ(actual.weak_type(), expected.weak);
  ASSERT_EQ(ShapeToString(actual.shape()), ShapeToString(expected.shape));
  std::vector<double> got = actual.ToDoubles();
  ASSERT_EQ(got.size(), expected.values.size());
  int reported = 0;
  for (size_t i = 0; i < got.size() && reported < 5; ++i) {
    // Expected values are written as the shortest decimals that round to the right float32.
    double e =
        IsFloating(actual.dtype()) ? static_cast<float>(expected.values[i]) : expected.values[i];
    double g = got[i];
    bool same = (std::isnan(e) && std::isnan(g)) || (e == g && std::signbit(e) == std::signbit(g));
    if (!same && max_ulp > 0 && IsFloating(actual.dtype()) && !(e == 0 && g == 0)) {
      same = UlpDistance(e, g, actual.dtype()) <= max_ulp;
    }
    if (!same) {
      ADD_FAILURE() << "element " << i << ": expected " << e << ", got " << g;
      ++reported;
    }
  }
}

// Runs `fn` and checks that it throws what JAX raised, or matches JAX's result.
template <typename F>
void ExpectJaxOutcome(const Expected& expected, F&& fn, int max_ulp = 0) {
  if (expected.ok) {
    ExpectMatches(fn(), expected, max_ulp);
    return;
  }
  try {
    Array result = fn();
    ADD_FAILURE() << "expected an error: " << expected.error_message << ", got a result of shape "
                  << ShapeToString(result.shape());
  } catch (const ArrayError& error) {
    EXPECT_EQ(static_cast<int>(error.kind), static_cast<int>(expected.error_kind));
    EXPECT_EQ(error.message, expected.error_message);
  }
}

}  // namespace pz::array::testing

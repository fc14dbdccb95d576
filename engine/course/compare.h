// The heart of `check`: compares a kernel's output with its reference and, when they differ,
// explains how: the first mismatching element, and, for the output of a pallas_call, a map of
// the output blocks (ok / wrong / never written / NaN, naming the grid step that wrote each),
// blocks that hold another block's values (a wrong index map), and NaN from uninitialised memory.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "array/array.h"
#include "course/check_report.h"
#include "support/source.h"
#include "tpu/pallas_call.h"

namespace pz::course {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

// The default tolerance for a reference of `dtype`: float32 1e-5, float16 1e-2, bfloat16 2e-2,
// integers and bool exact.
Tolerance DefaultTolerance(array::DType dtype);

// |actual - expected| <= atol + rtol * |expected|; NaN matches only NaN, an infinity only itself.
// (Always inline: comparisons call it for every element, and the course builds at -O1, which
// inlines only what it must.)
[[gnu::always_inline]] inline bool Close(double actual, double expected, Tolerance tol) {
  if (std::isnan(actual) || std::isnan(expected)) return std::isnan(actual) && std::isnan(expected);
  if (std::isinf(expected) || std::isinf(actual)) return actual == expected;
  return std::fabs(actual - expected) <= tol.atol + tol.rtol * std::fabs(expected);
}
// The first element (flat, row-major) where `actual` and `expected` (one shape) are not Close, or
// -1; `max_error` (when given) gets the largest absolute error of the finite elements before it.
// Read in place, a loop per dtype, when both are dense and of one dtype.
int64_t FirstMismatch(const array::Array& actual, const array::Array& expected, Tolerance tol,
                      double* max_error = nullptr);
// An element for messages: "0.182715" (six significant digits), "nan", "7".
std::string ValueString(array::DType dtype, double value);
// "[3, 5]".
std::string IndexString(const std::vector<int64_t>& index);

struct LeafReport {
  bool passed = false;
  std::string summary;             // one line: "37 of 8192 elements differ (atol 1e-05, ...)"
  std::vector<std::string> lines;  // the explanation, each line without indentation
  // lines[map_begin, map_end) are the map of the output's blocks (empty range without one), and
  // `operand` the kernel parameter it shows ("o_ref").
  size_t map_begin = 0, map_end = 0;
  std::string operand;
  // The result has NaN or infinities where the reference has none, and uninitialised memory
  // does not explain them: arithmetic made them (the runner traces where).
  bool unexplained_nonfinite = false;
  std::optional<Mismatch> mismatch;     // the first differing element
  std::vector<std::string> provenance;  // where NaN came from (also among `lines`)
};

// Compares `actual` with `expected` elementwise: |actual - expected| <= atol + rtol * |expected|,
// NaN matching only NaN. Shapes and dtypes must agree. `record` (the pallas_call that produced
// `actual`, or null) and `sources` add the block map and the uninitialised-memory note.
LeafReport CompareLeaf(const array::Array& actual, const array::Array& expected, Tolerance tol,
                       const tpu::OutputRecord* record, const SourceManager* sources);

}  // namespace pz::course

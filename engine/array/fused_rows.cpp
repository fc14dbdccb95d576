// RunChain (fused_rows.h): the steps run on pieces of up to kPiece floats of one row of the
// result, each by the row kernel its standalone op uses on float32 (the AVX2 lanes of
// binary_lanes.h where the CPU has them, else the scalar kernel's operation; ExpF32 for exp),
// so that the values match theirs bit for bit.
#include "array/fused_rows.h"

#include <algorithm>
#include <cmath>

#include "array/binary_lanes.h"
#include "array/broadcast.h"
#include "array/elementwise_binary_kernels.h"
#include "array/exp_f32.h"

namespace pz::array {

namespace {

// Operand slots of the row loop: the result, the source, then each step's other operand.
constexpr size_t kSlots = kMaxChainSteps + 2;
// A piece of a row: the values between the steps stay in L1 (4 KiB of a 32 KiB cache).
constexpr int64_t kPiece = 1024;
// Rows a tap reduces at a time.
constexpr int64_t kTapRows = 4;

using UnaryRow = void (*)(const float* in, float* out, int64_t n);

template <typename Op>
void ScalarRow(const float* x, int64_t x_step, const float* y, int64_t y_step, float* out,
               int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = Op::Apply(x[i * x_step], y[i * y_step]);
}

using F32Ops = binary_kernels::FloatOps<DType::kFloat32>;
struct AddOp {
  static float Apply(float x, float y) { return x + y; }
};
struct SubOp {
  static float Apply(float x, float y) { return x - y; }
};
struct MulOp {
  static float Apply(float x, float y) { return x * y; }
};
struct MaxOp {
  static float Apply(float x, float y) { return F32Ops::Max(x, y); }
};
struct MinOp {
  static float Apply(float x, float y) { return F32Ops::Min(x, y); }
};

F32BinaryLanes BinaryRow(BinaryOp op) {
  if (F32BinaryLanes lanes = F32LanesFor(op)) return lanes;
  switch (op) {
    case BinaryOp::kAdd:
      return &ScalarRow<AddOp>;
    case BinaryOp::kSub:
      return &ScalarRow<SubOp>;
    case BinaryOp::kMul:
      return &ScalarRow<MulOp>;
    case BinaryOp::kMaximum:
      return &ScalarRow<MaxOp>;
    case BinaryOp::kMinimum:
      return &ScalarRow<MinOp>;
    default:
      return nullptr;
  }
}

UnaryRow UnaryRowOf(UnaryOp op) {
  switch (op) {
    case UnaryOp::kExp:
      // As UnaryInto computes float32 exp: the C library's values, subnormals flushed.
      return [](const float* in, float* out, int64_t n) { ExpF32(in, out, n, true); };
    case UnaryOp::kNeg:
      return [](const float* in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = -in[i];
      };
    case UnaryOp::kAbs:
      return [](const float* in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = std::fabs(in[i]);
      };
    case UnaryOp::kSquare:
      return [](const float* in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[i] * in[i];
      };
    default:
      return nullptr;
  }
}

}  // namespace

bool Chainable(BinaryOp op) { return BinaryRow(op) != nullptr; }
bool Chainable(UnaryOp op) { return UnaryRowOf(op) != nullptr; }

bool RunChain(const Array& source, std::span<const ChainStep> steps, Array& out,
              std::span<const ChainTap> taps) {
  const Shape& shape = out.shape();
  const size_t rank = shape.size();
  if (rank == 0 || steps.empty() || steps.size() > kMaxChainSteps ||
      out.dtype() != DType::kFloat32 || !out.IsContiguous() || source.dtype() != DType::kFloat32) {
    return false;
  }
  const int64_t c = shape.back();
  std::array<StrideArray, kSlots> strides{};
  std::array<const float*, kSlots> base{};
  strides[0] = StridesOf(out);
  strides[1] = BroadcastStrides(source, shape);
  base[1] = reinterpret_cast<const float*>(source.raw());
  // The source is read as the value so far: along the row, element by element.
  if (c > 1 && strides[1][rank - 1] != 1) return false;
  std::array<UnaryRow, kMaxChainSteps> unary{};
  std::array<F32BinaryLanes, kMaxChainSteps> binary{};
  for (size_t k = 0; k < steps.size(); ++k) {
    const ChainStep& step = steps[k];
    if (step.unary) {
      if ((unary[k] = UnaryRowOf(*step.unary)) == nullptr) return false;
      continue;
    }
    const Array* other = step.other;
    if (other == nullptr || other->dtype() != DType::kFloat32 ||
        (binary[k] = BinaryRow(step.binary)) == nullptr) {
      return false;
    }
    strides[k + 2] = BroadcastStrides(*other, shape);
    if (strides[k + 2][rank - 1] > 1 || strides[k + 2][rank - 1] < 0) return false;
    base[k + 2] = reinterpret_cast<const float*>(other->raw());
  }
  for (const ChainTap& tap : taps) {
    if (tap.reduction.row_length() != c || tap.out == nullptr) return false;
  }
  if (c == 0) return true;
  float* const first = out.data<float>();
  // One row: `in[slot]` is where operand `slot`'s part of it starts.
  auto run_row = [&](float* row, const std::array<const float*, kSlots>& in) {
    for (int64_t p = 0; p < c; p += kPiece) {
      int64_t n = std::min(kPiece, c - p);
      float* o = row + p;
      for (size_t k = 0; k < steps.size(); ++k) {
        const float* v = k == 0 ? in[1] + p * strides[1][rank - 1] : o;
        int64_t v_step = k == 0 ? strides[1][rank - 1] : 1;
        if (unary[k] != nullptr) {
          unary[k](v, o, n);
          continue;
        }
        int64_t w_step = strides[k + 2][rank - 1];
        const float* w = in[k + 2] + p * w_step;
        if (steps[k].other_first) {
          binary[k](w, w_step, v, v_step, o, n);
        } else {
          binary[k](v, v_step, w, w_step, o, n);
        }
      }
    }
  };
  // Rows finish in order (out is contiguous): [0, done) have, [0, tapped) are reduced. The taps
  // reduce a few rows at a time, while they are in L1.
  int64_t done = 0, tapped = 0;
  auto tap_rows = [&] {
    for (const ChainTap& tap : taps) {
      tap.reduction.Rows(first + tapped * c, done - tapped, tap.out + tapped);
    }
    tapped = done;
  };
  auto rows = [&](const auto& offsets, int64_t count, const auto& row_steps) {
    for (int64_t i = 0; i < count; ++i) {
      std::array<const float*, kSlots> in{};
      for (size_t slot = 1; slot < kSlots; ++slot) {
        if (base[slot] != nullptr) in[slot] = base[slot] + offsets[slot] + i * row_steps[slot];
      }
      run_row(first + offsets[0] + i * row_steps[0], in);
      if (++done - tapped >= kTapRows) tap_rows();
    }
  };
  ForEachRow<kSlots>(std::span<const int64_t>(shape.data(), rank - 1), strides, rows);
  if (done > tapped) tap_rows();
  return true;
}

}  // namespace pz::array

// One instruction set's float32 GEMMs (gemm.h). CMake compiles this file once per instruction
// set with PZ_GEMM_ISA naming it (isa_baseline, isa_v3, isa_v4) and that set's -m flags; Eigen's
// namespace is renamed per copy, so the copies share no symbol. Keep this file to Eigen and plain
// types: a standard-library template instantiated here could still be merged with another copy's.
#ifndef PZ_GEMM_ISA
#error "PZ_GEMM_ISA names the instruction set this copy is built for"
#endif

#define PZ_CAT_(a, b) a##b
#define PZ_CAT(a, b) PZ_CAT_(a, b)
#define Eigen PZ_CAT(PzEigen_, PZ_GEMM_ISA)

#include <Eigen/Core>

#include "array/gemm.h"

namespace pz::array::gemm::PZ_GEMM_ISA {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ColMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
using RowMap = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
using ColMap = Eigen::Map<const ColMatrix, 0, Eigen::OuterStride<>>;

// The sum behind each element must not depend on the shape of the product, or a blocked matmul
// would differ in its last bits from the whole product (JAX's quickstart asserts they agree to
// rtol 1e-7). Eigen computes the columns of a row-major result in panels of three packets
// (mr); a remainder of two packets takes the same path, but a remainder of one packet or less
// takes a path that sums even and odd k in two accumulators. Such products are computed with
// zero columns appended up to the next size that avoids it, and the extra columns dropped.
int64_t ConsistentColumns(int64_t n) {
  constexpr int64_t kPacket = Eigen::internal::packet_traits<float>::size;
  constexpr int64_t kPanel = 3 * kPacket;
  int64_t rest = n % kPanel;
  if (rest == 0 || rest == 2 * kPacket) return n;
  return n - rest + (rest < 2 * kPacket ? 2 * kPacket : kPanel);
}

// c = a * b (c += a * b with `accumulate`) with every column in a panel path that sums in one
// order. A product whose columns leave a one-packet remainder is computed as two products whose
// widths do not (n - 2 packets, then 2 packets), without copies; other widths go through
// zero-padded copies of b and c.
template <typename Lhs, typename Rhs>
void Product(const Lhs& ma, const Rhs& mb, Eigen::Map<RowMatrix>& mc, bool accumulate) {
  constexpr int64_t kPacket = Eigen::internal::packet_traits<float>::size;
  auto into = [accumulate](auto&& c, const auto& a, const auto& b) {
    if (accumulate) {
      c.noalias() += a * b;
    } else {
      c.noalias() = a * b;
    }
  };
  int64_t n = mc.cols();
  int64_t padded = ConsistentColumns(n);
  if (padded == n || mc.rows() == 1) {
    into(mc, ma, mb);
    return;
  }
  if (n % (3 * kPacket) == kPacket && n >= 4 * kPacket) {
    int64_t head = n - 2 * kPacket;
    into(mc.leftCols(head), ma, mb.leftCols(head));
    into(mc.rightCols(2 * kPacket), ma, mb.rightCols(2 * kPacket));
    return;
  }
  RowMatrix wide_b = RowMatrix::Zero(mb.rows(), padded);
  wide_b.leftCols(n) = mb;
  RowMatrix wide_c(mc.rows(), padded);
  if (accumulate) {
    wide_c.leftCols(n) = mc;
    wide_c.rightCols(padded - n).setZero();
  }
  into(wide_c, ma, wide_b);
  mc = wide_c.leftCols(n);
}

bool SinglePanel(int64_t m, int64_t k, int64_t n) {
  // The blocking Eigen's GEMM computes for a row-major result (the transposed product: rows and
  // columns swap); its depth depends only on k and the L1 cache.
  Eigen::Index kc = k, mc = n, nc = m;
  Eigen::internal::computeProductBlockingSizes<float, float, 1>(kc, mc, nc, Eigen::Index{1});
  return kc >= k;
}

void Contiguous(const float* a, const float* b, float* c, int64_t batch, int64_t m, int64_t k,
                int64_t n) {
  for (int64_t i = 0; i < batch; ++i) {
    Eigen::Map<const RowMatrix> ma(a + i * m * k, m, k);
    Eigen::Map<const RowMatrix> mb(b + i * k * n, k, n);
    Eigen::Map<RowMatrix> mc(c + i * m * n, m, n);
    Product(ma, mb, mc, false);
  }
}

template <typename Lhs>
void WithRhs(const Lhs& ma, const Strided& b, const float* pb, Eigen::Map<RowMatrix>& mc, int64_t k,
             int64_t n, bool accumulate) {
  if (b.col_stride == 1) {
    Product(ma, RowMap(pb, k, n, Eigen::OuterStride<>(b.row_stride)), mc, accumulate);
  } else {
    Product(ma, ColMap(pb, k, n, Eigen::OuterStride<>(b.col_stride)), mc, accumulate);
  }
}

void StridedGemm(const Strided& a, const Strided& b, float* c, int64_t batch, int64_t m, int64_t k,
                 int64_t n, bool accumulate) {
  for (int64_t i = 0; i < batch; ++i) {
    Eigen::Map<RowMatrix> mc(c + i * m * n, m, n);
    const float* pa = a.data + i * a.batch_stride;
    const float* pb = b.data + i * b.batch_stride;
    if (a.col_stride == 1) {
      WithRhs(RowMap(pa, m, k, Eigen::OuterStride<>(a.row_stride)), b, pb, mc, k, n, accumulate);
    } else {
      WithRhs(ColMap(pa, m, k, Eigen::OuterStride<>(a.col_stride)), b, pb, mc, k, n, accumulate);
    }
  }
}

}  // namespace

extern const Kernels kKernels;
const Kernels kKernels = {&Contiguous, &StridedGemm, &SinglePanel};

}  // namespace pz::array::gemm::PZ_GEMM_ISA

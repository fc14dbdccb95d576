// One instruction set's copy of the Eigen references (eigen_ref.h); PZ_REF_ISA names it.
#ifndef PZ_REF_ISA
#error "PZ_REF_ISA names the instruction set this copy is built for"
#endif

#define PZ_CAT_(a, b) a##b
#define PZ_CAT(a, b) PZ_CAT_(a, b)
#define Eigen PZ_CAT(PzEigenBench_, PZ_REF_ISA)

#include <Eigen/Core>
#include <limits>

#include "eigen_ref.h"

namespace pz::bench::PZ_REF_ISA {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Block = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
using MutableBlock = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;

}  // namespace

void MatmulSameTiles(const float* x, const float* y, float* out, int64_t n, int64_t b) {
  const int64_t g = n / b;
  RowMatrix acc(b, b);
  for (int64_t i = 0; i < g; ++i) {
    for (int64_t j = 0; j < g; ++j) {
      acc.setZero();
      for (int64_t k = 0; k < g; ++k) {
        Block xb(x + i * b * n + k * b, b, b, Eigen::OuterStride<>(n));
        Block yb(y + k * b * n + j * b, b, b, Eigen::OuterStride<>(n));
        acc.noalias() += xb * yb;
      }
      MutableBlock(out + i * b * n + j * b, b, b, Eigen::OuterStride<>(n)) = acc;
    }
  }
}

void FlashSameDots(const float* q, const float* k, const float* v, float* out, int64_t h, int64_t t,
                   int64_t d, int64_t b) {
  const int64_t g = t / b;
  RowMatrix s(b, b), acc(b, d);
  for (int64_t head = 0; head < h; ++head) {
    const float* qh = q + head * t * d;
    const float* kh = k + head * t * d;
    const float* vh = v + head * t * d;
    for (int64_t i = 0; i < g; ++i) {
      acc.setZero();
      Block qb(qh + i * b * d, b, d, Eigen::OuterStride<>(d));
      for (int64_t j = 0; j < g; ++j) {
        Block kb(kh + j * b * d, b, d, Eigen::OuterStride<>(d));
        Block vb(vh + j * b * d, b, d, Eigen::OuterStride<>(d));
        s.noalias() = qb * kb.transpose();
        acc.noalias() += s * vb;
      }
      MutableBlock(out + head * t * d + i * b * d, b, d, Eigen::OuterStride<>(d)) = acc;
    }
  }
}

void FlashFullMath(const float* q, const float* k, const float* v, float* out, int64_t h, int64_t t,
                   int64_t d, int64_t b) {
  const int64_t g = t / b;
  RowMatrix s(b, b), acc(b, d);
  Eigen::ArrayXf m(b), m_new(b), l(b), alpha(b);
  for (int64_t head = 0; head < h; ++head) {
    const float* qh = q + head * t * d;
    const float* kh = k + head * t * d;
    const float* vh = v + head * t * d;
    for (int64_t i = 0; i < g; ++i) {
      m.setConstant(-std::numeric_limits<float>::infinity());
      l.setZero();
      acc.setZero();
      Block qb(qh + i * b * d, b, d, Eigen::OuterStride<>(d));
      for (int64_t j = 0; j < g; ++j) {
        Block kb(kh + j * b * d, b, d, Eigen::OuterStride<>(d));
        Block vb(vh + j * b * d, b, d, Eigen::OuterStride<>(d));
        s.noalias() = qb * kb.transpose();
        m_new = m.max(s.rowwise().maxCoeff().array());
        s = (s.array().colwise() - m_new).exp().matrix();
        alpha = (m - m_new).exp();
        l = alpha * l + s.rowwise().sum().array();
        acc = alpha.matrix().asDiagonal() * acc;
        acc.noalias() += s * vb;
        m = m_new;
      }
      MutableBlock(out + head * t * d + i * b * d, b, d, Eigen::OuterStride<>(d)) =
          (acc.array().colwise() / l).matrix();
    }
  }
}

}  // namespace pz::bench::PZ_REF_ISA

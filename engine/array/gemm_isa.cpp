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
#include <cstdint>
#include <cstdlib>
#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "array/gemm.h"

namespace pz::array::gemm::PZ_GEMM_ISA {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ColMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
using RowMap = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
using ColMap = Eigen::Map<const ColMatrix, 0, Eigen::OuterStride<>>;

namespace ei = Eigen::internal;
using Traits = ei::gebp_traits<float, float>;
constexpr int64_t kPacket = ei::packet_traits<float>::size;
// Eigen's kernel computes the columns of a row-major result in panels of mr columns: three
// packets where the CPU has FMA, two where it has not.
constexpr int64_t kPanel = Traits::mr;

// The sum behind each element must not depend on the shape of the product, or a blocked matmul
// would differ in its last bits from the whole product (JAX's quickstart asserts they agree to
// rtol 1e-7). A full panel and a remainder of two packets take one path; a remainder of one
// packet or less takes a path that sums in another order (even and odd k in two accumulators,
// with FMA). Widths whose remainder is that are computed with zero columns appended up to the
// next consistent width, and the extra columns dropped.
bool ConsistentWidth(int64_t n) {
  int64_t rest = n % kPanel;
  return rest == 0 || (kPanel == 3 * kPacket && rest == 2 * kPacket);
}

int64_t ConsistentColumns(int64_t n) {
  if (ConsistentWidth(n)) return n;
  int64_t rest = n % kPanel;
  if (kPanel == 3 * kPacket && rest < 2 * kPacket) return n - rest + 2 * kPacket;
  return n - rest + kPanel;
}

// Where a width whose remainder is one packet is split into two consistent ones without
// padding (n - 2 packets, then 2 packets: only with panels of three packets), n itself for a
// consistent width, or -1 for one that must be padded.
int64_t SplitHead(int64_t n) {
  if (ConsistentWidth(n)) return n;
  if (kPanel == 3 * kPacket && n % kPanel == kPacket && n >= 4 * kPacket) return n - 2 * kPacket;
  return -1;
}

// c = a * b (c += a * b with `accumulate`) by Eigen, with every column in a panel path that sums
// in one order: split at SplitHead into two products, or through zero-padded copies of b and c.
template <typename Lhs, typename Rhs>
void Product(const Lhs& ma, const Rhs& mb, Eigen::Map<RowMatrix>& mc, bool accumulate) {
  auto into = [accumulate](auto&& c, const auto& a, const auto& b) {
    if (accumulate) {
      c.noalias() += a * b;
    } else {
      c.noalias() = a * b;
    }
  };
  int64_t n = mc.cols();
  int64_t head = SplitHead(n);
  if (head == n || mc.rows() == 1) {
    into(mc, ma, mb);
    return;
  }
  if (head > 0) {
    into(mc.leftCols(head), ma, mb.leftCols(head));
    into(mc.rightCols(n - head), ma, mb.rightCols(n - head));
    return;
  }
  int64_t padded = ConsistentColumns(n);
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

// The blocking Eigen's GEMM computes for a row-major m x k x n result (the transposed product:
// rows and columns swap); its depth depends only on k and the L1 cache.
struct Blocking {
  Eigen::Index kc, mc, nc;
};

Blocking BlockingFor(int64_t m, int64_t k, int64_t n) {
  Blocking b{k, n, m};
  Eigen::internal::computeProductBlockingSizes<float, float, 1>(b.kc, b.mc, b.nc, Eigen::Index{1});
  return b;
}

bool SinglePanel(int64_t m, int64_t k, int64_t n) { return BlockingFor(m, k, n).kc >= k; }

// What the kernel reads as an element of c before adding the element's sum (gemm.h): 0, the
// stored value, or the stored value times its row's scale.
enum class Start : uint8_t { kZero, kStored, kScaled };

// Eigen's result mapper (blas_data_mapper, column-major with unit inner stride) for c^T in a
// product whose depth is one panel: the kernel reads each element once, adds its sum and writes it
// back, so that reading it as its Start gives c = a * b, c += a * b or c = diag(scale) c + a * b
// in that one pass. Column j of c^T is row j of c and takes scale[j].
class StartMapper {
 public:
  using Index = Eigen::Index;

  class LinearMapper {
   public:
    LinearMapper(float* data, Start start, float scale)
        : data_(data), start_(start), scale_(scale) {}
    void prefetch(Index i) const { ei::prefetch(data_ + i); }
    template <typename Packet>
    Packet loadPacket(Index i) const {
      switch (start_) {
        case Start::kZero:
          return ei::pset1<Packet>(0.0f);
        case Start::kStored:
          break;
        case Start::kScaled:
          // Rounded here: the kernel adds the sum to it with an FMA instruction of its own.
          return ei::pmul(ei::pset1<Packet>(scale_), ei::ploadu<Packet>(data_ + i));
      }
      return ei::ploadu<Packet>(data_ + i);
    }
    template <typename Packet>
    void storePacket(Index i, const Packet& p) const {
      ei::pstoreu(data_ + i, p);
    }

   private:
    float* data_;
    Start start_;
    float scale_;
  };

  // One element, for the kernel's scalar `res(i, j) += sum`.
  class Element {
   public:
    Element(float* p, float start) : p_(p), start_(start) {}
    void operator+=(float sum) const { *p_ = start_ + sum; }

   private:
    float* p_;
    float start_;
  };

  StartMapper(float* data, Index stride, Start start, const float* scale)
      : data_(data), stride_(stride), start_(start), scale_(scale) {}

  StartMapper getSubMapper(Index i, Index j) const {
    return StartMapper(&At(i, j), stride_, start_, start_ == Start::kScaled ? scale_ + j : scale_);
  }
  LinearMapper getLinearMapper(Index i, Index j) const {
    return LinearMapper(&At(i, j), start_, start_ == Start::kScaled ? scale_[j] : 1.0f);
  }
  Element operator()(Index i, Index j) const {
    float* p = &At(i, j);
    if (start_ == Start::kZero) return Element(p, 0.0f);
    if (start_ == Start::kStored) return Element(p, *p);
    // volatile: rounded before the kernel's add (which the compiler could otherwise fuse).
    volatile float scaled = scale_[j] * *p;
    return Element(p, scaled);
  }
  // Elements (i, j) .. (i, j + size - 1) of c^T, across columns.
  template <typename SubPacket>
  SubPacket gatherPacket(Index i, Index j) const {
    switch (start_) {
      case Start::kZero:
        return ei::pset1<SubPacket>(0.0f);
      case Start::kStored:
        break;
      case Start::kScaled:
        return ei::pmul(ei::ploadu<SubPacket>(scale_ + j),
                        ei::pgather<float, SubPacket>(&At(i, j), stride_));
    }
    return ei::pgather<float, SubPacket>(&At(i, j), stride_);
  }
  template <typename SubPacket>
  void scatterPacket(Index i, Index j, const SubPacket& p) const {
    ei::pscatter<float, SubPacket>(&At(i, j), p, stride_);
  }

 private:
  float& At(Index i, Index j) const { return data_[i + j * stride_]; }

  float* data_;
  Index stride_;
  Start start_;
  const float* scale_;  // kScaled: the scale of column 0 of this view
};

// Eigen's sequential GEMM loop (general_matrix_matrix_product) for a product whose depth is one
// panel, run on the transposed product as Eigen runs a row-major result: c^T (n x m) = b^T a^T,
// adding to c. The rows of c^T are split at `head` (SplitHead) into two parts packed apart, and
// blocked in whole panels within each part, so that every row takes the panel path it takes in
// any other product; both parts share one packing of a^T when its columns are one block (two
// Eigen products would pack it twice). The kernel's sum for an element does not depend on how
// the columns are blocked. LhsOrder and RhsOrder are the storage orders of b^T and a^T.
template <int LhsOrder, int RhsOrder>
void OnePanelProduct(const float* a, int64_t a_stride, const float* b, int64_t b_stride, float* c,
                     int64_t m, int64_t k, int64_t n, int64_t head, const Blocking& blocking,
                     Start start, const float* row_scale) {
  namespace internal = Eigen::internal;  // for ei_declare_aligned_stack_constructed_variable
  using LhsMapper = ei::const_blas_data_mapper<float, Eigen::Index, LhsOrder>;
  using RhsMapper = ei::const_blas_data_mapper<float, Eigen::Index, RhsOrder>;
  using Eigen::numext::maxi;
  using Eigen::numext::mini;
  ei::gemm_pack_lhs<float, Eigen::Index, LhsMapper, Traits::mr, Traits::LhsProgress,
                    typename Traits::LhsPacket4Packing, LhsOrder>
      pack_lhs;
  ei::gemm_pack_rhs<float, Eigen::Index, RhsMapper, Traits::nr, RhsOrder> pack_rhs;
  ei::gebp_kernel<float, float, Eigen::Index, StartMapper, Traits::mr, Traits::nr, false, false>
      gebp;
  LhsMapper lhs(b, b_stride);
  RhsMapper rhs(a, a_stride);
  StartMapper res(c, n, start, row_scale);
  Eigen::Index mc = maxi<Eigen::Index>(blocking.mc - blocking.mc % kPanel, kPanel);
  mc = mini<Eigen::Index>(mc, maxi<Eigen::Index>(head, n - head));
  Eigen::Index nc =
      blocking.nc >= m ? m : maxi<Eigen::Index>(blocking.nc - blocking.nc % Traits::nr, Traits::nr);
  ei_declare_aligned_stack_constructed_variable(float, block_a, static_cast<size_t>(k * mc), 0);
  ei_declare_aligned_stack_constructed_variable(float, block_b, static_cast<size_t>(k * nc), 0);
  bool rhs_packed = false;
  const Eigen::Index parts[3] = {0, head, n};
  for (int part = 0; part < 2; ++part) {
    for (Eigen::Index i2 = parts[part]; i2 < parts[part + 1]; i2 += mc) {
      Eigen::Index rows = mini<Eigen::Index>(mc, parts[part + 1] - i2);
      pack_lhs(block_a, lhs.getSubMapper(i2, 0), k, rows);
      for (Eigen::Index j2 = 0; j2 < m; j2 += nc) {
        Eigen::Index cols = mini<Eigen::Index>(nc, m - j2);
        if (nc < m || !rhs_packed) pack_rhs(block_b, rhs.getSubMapper(0, j2), k, cols);
        rhs_packed = true;
        gebp(res.getSubMapper(i2, j2), block_a, block_b, rows, k, cols, 1.0f);
      }
    }
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

template <int LhsOrder>
void WithLhsOrder(const Strided& a, const float* pa, const float* pb, int64_t b_stride, float* c,
                  int64_t m, int64_t k, int64_t n, int64_t head, const Blocking& blocking,
                  Start start, const float* row_scale) {
  // a^T is column-major when a is row-major.
  if (a.col_stride == 1) {
    OnePanelProduct<LhsOrder, Eigen::ColMajor>(pa, a.row_stride, pb, b_stride, c, m, k, n, head,
                                               blocking, start, row_scale);
  } else {
    OnePanelProduct<LhsOrder, Eigen::RowMajor>(pa, a.col_stride, pb, b_stride, c, m, k, n, head,
                                               blocking, start, row_scale);
  }
}

// Clears the upper halves of the vector registers as a product returns. GCC leaves them in use
// on some of the AVX-512 copy's paths even at -O3 (the unit test VectorState checks each path),
// and while they are, every plain SSE instruction after pays for it (engine/array/CMakeLists.txt).
struct UpperHalvesCleared {
#if defined(__AVX__)
  ~UpperHalvesCleared() { _mm256_zeroupper(); }
#endif
};

void StridedGemm(const Strided& a, const Strided& b, float* c, int64_t batch, int64_t m, int64_t k,
                 int64_t n, bool accumulate, const float* row_scale) {
  [[maybe_unused]] UpperHalvesCleared cleared;
  Blocking blocking = BlockingFor(m, k, n);
  int64_t head = SplitHead(n);
  bool one_panel = blocking.kc >= k && head >= 0;
  // (gemm.h takes a row scale only for accumulating products of batch 1.)
  if (row_scale != nullptr && (!accumulate || batch != 1)) std::abort();
  // A width padded for consistent sums runs as an Eigen product: c is scaled first, and the
  // product then added to it once per element (its depth is one panel: single_panel).
  if (row_scale != nullptr && !one_panel) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * n + j] = row_scale[i] * c[i * n + j];
    }
    row_scale = nullptr;
  }
  // As Eigen computes c = a * b: zeros, then the product added (here the zeros are read, not
  // stored first).
  Start start = !accumulate ? Start::kZero : row_scale != nullptr ? Start::kScaled : Start::kStored;
  for (int64_t i = 0; i < batch; ++i) {
    float* pc = c + i * m * n;
    const float* pa = a.data + i * a.batch_stride;
    const float* pb = b.data + i * b.batch_stride;
    if (one_panel) {
      // b^T is column-major when b is row-major.
      if (b.col_stride == 1) {
        WithLhsOrder<Eigen::ColMajor>(a, pa, pb, b.row_stride, pc, m, k, n, head, blocking, start,
                                      row_scale);
      } else {
        WithLhsOrder<Eigen::RowMajor>(a, pa, pb, b.col_stride, pc, m, k, n, head, blocking, start,
                                      row_scale);
      }
      continue;
    }
    Eigen::Map<RowMatrix> mc(pc, m, n);
    if (a.col_stride == 1) {
      WithRhs(RowMap(pa, m, k, Eigen::OuterStride<>(a.row_stride)), b, pb, mc, k, n, accumulate);
    } else {
      WithRhs(ColMap(pa, m, k, Eigen::OuterStride<>(a.col_stride)), b, pb, mc, k, n, accumulate);
    }
  }
}

void Contiguous(const float* a, const float* b, float* c, int64_t batch, int64_t m, int64_t k,
                int64_t n) {
  [[maybe_unused]] UpperHalvesCleared cleared;
  // Products Eigen computes with its blocked kernel take the strided path (and its one-panel
  // loop); vectors and small products Eigen computes otherwise.
  if (m > 1 && n > 1 && m + k + n >= EIGEN_GEMM_TO_COEFFBASED_THRESHOLD) {
    StridedGemm(Strided{a, m * k, k, 1}, Strided{b, k * n, n, 1}, c, batch, m, k, n, false,
                nullptr);
    return;
  }
  for (int64_t i = 0; i < batch; ++i) {
    Eigen::Map<const RowMatrix> ma(a + i * m * k, m, k);
    Eigen::Map<const RowMatrix> mb(b + i * k * n, k, n);
    Eigen::Map<RowMatrix> mc(c + i * m * n, m, n);
    Product(ma, mb, mc, false);
  }
}

}  // namespace

extern const Kernels kKernels;
const Kernels kKernels = {&Contiguous, &StridedGemm, &SinglePanel};

}  // namespace pz::array::gemm::PZ_GEMM_ISA

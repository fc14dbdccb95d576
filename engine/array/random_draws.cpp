// draws (random_draws.h): the scalar value of a draw, the lane loops picked once, and the split
// across threads.
#include "array/random_draws.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <system_error>
#include <thread>
#include <tuple>
#include <vector>

#include "array/array.h"
#include "array/element.h"
#include "array/isa.h"
#include "array/random.h"
#include "array/random_lanes.h"

namespace pz::array::draws {
namespace {

// Runs fn(begin, end) over [0, n) in pieces on the machine's hardware threads when n is large.
// Every stream here is counter based and every value depends on its own draw only, so the
// pieces are independent and the result is the same however it is split.
template <typename Fn>
void Chunked(size_t n, Fn&& fn) {
  constexpr size_t kParallelFrom = size_t{1} << 18;
  static const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8);
  if (n < kParallelFrom || threads < 2) return fn(size_t{0}, n);
  size_t piece = (n / threads + 7) & ~size_t{7};
  std::vector<std::thread> others;
  for (size_t begin = piece; begin < n; begin += piece) {
    size_t end = std::min(n, begin + piece);
    try {
      others.emplace_back([&fn, begin, end] { fn(begin, end); });
    } catch (const std::system_error&) {  // no thread to be had: this piece here
      fn(begin, end);
    }
  }
  fn(0, std::min(n, piece));
  for (std::thread& t : others) t.join();
}

// 32 random bits per element: element i hashes the 64-bit counter first + i as (high, low) words
// and xors the two output words.
void FillBitsScalar(uint32_t k0, uint32_t k1, uint64_t first, uint32_t* out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    uint64_t count = first + i;
    auto [b0, b1] =
        Threefry2x32(k0, k1, static_cast<uint32_t>(count >> 32), static_cast<uint32_t>(count));
    out[i] = b0 ^ b1;
  }
}

// XLA's float32 erf_inv (Giles, "Approximating the erfinv function", 2010), evaluated in the
// same order: w = -log1p(-x^2), then a degree-8 polynomial in w - 2.5 or sqrt(w) - 3.
float ErfInv32(float x) {
  float w = -std::log1p(x * -x);
  bool small = w < 5.0f;
  const float* c = small ? lanes::kErfInvSmall : lanes::kErfInvLarge;
  w = small ? w - 2.5f : std::sqrt(w) - 3.0f;
  float p = c[0];
  for (int i = 1; i < 9; ++i) p = std::fma(p, w, c[i]);
  if (std::fabs(x) == 1.0f) return x * std::numeric_limits<float>::infinity();
  return p * x;
}

// nextafter(-1, 0) in `dtype`: -1 plus half an ulp of 1.0 in that format (normal's lower bound).
float NormalLow(DType dtype) {
  int mantissa_bits = dtype == DType::kFloat32 ? 23 : dtype == DType::kFloat16 ? 10 : 7;
  return -1.0f + std::ldexp(1.0f, -(mantissa_bits + 1));
}

}  // namespace

// The float in [0, 1) that jax.random.uniform builds from one draw in `dtype`: the top mantissa
// bits of the draw under an exponent of 1.0, minus 1.
float UnitFloat(uint32_t bits, DType dtype) {
  switch (dtype) {
    case DType::kFloat32: {
      uint32_t pattern = (bits >> 9) | 0x3F800000u;
      float f;
      std::memcpy(&f, &pattern, sizeof f);
      return f - 1.0f;
    }
    case DType::kBFloat16:  // 7 mantissa bits: JAX draws 8 bits and drops one
      return BFloat16BitsToFloat(static_cast<uint16_t>(((bits & 0xFFu) >> 1) | 0x3F80u)) - 1.0f;
    case DType::kFloat16:  // 10 mantissa bits from a 16-bit draw
      return HalfBitsToFloat(static_cast<uint16_t>(((bits & 0xFFFFu) >> 6) | 0x3C00u)) - 1.0f;
    default:
      ThrowTypeError(
          fmt::format("uniform only accepts floating point dtypes, got {}", DTypeName(dtype)));
  }
}

// The uniform value of one draw in [lo, hi) (bounds already rounded to `dtype`).
float UniformOfDraw(uint32_t bits, DType dtype, float lo, float hi) {
  float span = RoundToDType(hi - lo, dtype);
  float unit = UnitFloat(bits, dtype);
  // XLA's CPU backend fuses float32 `unit * span + lo` into one fma; 16-bit floats are
  // computed in float32 and rounded after each op.
  float value = dtype == DType::kFloat32
                    ? std::fma(unit, span, lo)
                    : RoundToDType(RoundToDType(unit * span, dtype) + lo, dtype);
  return std::max(lo, value);
}

// jax.random.normal's value of one draw in `dtype`.
float NormalOfDraw(uint32_t bits, DType dtype) {
  float v = UniformOfDraw(bits, dtype, NormalLow(dtype), 1.0f);
  float sqrt2 = RoundToDType(static_cast<float>(std::sqrt(2.0)), dtype);
  return RoundToDType(sqrt2 * RoundToDType(ErfInv32(v), dtype), dtype);
}

namespace {

float NormalOfDrawF32(uint32_t bits) { return NormalOfDraw(bits, DType::kFloat32); }

// Whether the AVX2 lanes (random_lanes.h) agree with the loops here on this machine: threefry on
// two keys (counters across a 2^32 boundary included), and uniform and normal on draws spread
// over the whole range plus those whose uniforms lie nearest 0 (where log1pf takes its rare
// branches); an odd count exercises the lanes' tails.
bool LanesAgree() {
  struct Stream {
    uint32_t k0, k1;
    uint64_t first;
  };
  for (Stream stream : {Stream{0, 42, 0}, Stream{0x12345678, 0x9abcdef0, 0xFFFFFFF0ull}}) {
    uint32_t want[61], got[61];
    FillBitsScalar(stream.k0, stream.k1, stream.first, want, 61);
    lanes::FillBits(stream.k0, stream.k1, stream.first, got, 61);
    if (std::memcmp(want, got, sizeof want) != 0) return false;
  }
  std::vector<uint32_t> draws(4096);
  FillBitsScalar(7, 11, 0, draws.data(), draws.size());
  for (uint32_t i = 0; i < (1u << 15); ++i) draws.push_back((i << 17) | (i & 0x1FFFF));
  for (int d = -2048; d <= 2048; ++d) draws.push_back(0x80000000u + static_cast<uint32_t>(d * 512));
  for (uint32_t edge : {0u, 1u, 0x1FFu, 0x200u, 0xFFFFFFFFu, 0xFFFFFE00u, 0x7FFFFFFFu}) {
    draws.push_back(edge);
  }
  std::vector<float> got(draws.size()), uniform(draws.size() - 3);
  lanes::NormalF32(draws.data(), got.data(), draws.size(), &NormalOfDrawF32);
  lanes::UniformF32(draws.data(), uniform.data(), uniform.size(), -2.0f, 5.0f);
  for (size_t i = 0; i < draws.size(); ++i) {
    float want = NormalOfDrawF32(draws[i]);
    if (std::memcmp(&want, &got[i], sizeof want) != 0) return false;
    if (i >= uniform.size()) continue;
    want = UniformOfDraw(draws[i], DType::kFloat32, -2.0f, 5.0f);
    if (std::memcmp(&want, &uniform[i], sizeof want) != 0) return false;
  }
  return true;
}

// Whether the hot loops run in AVX2 lanes: the CPU has them, PZ_ISA allows them, and they agree
// with the scalar loops.
bool UseLanes() {
  static const bool use = RuntimeIsa() >= Isa::kAvx2Fma && lanes::Built() && LanesAgree();
  return use;
}

}  // namespace

void FillBits(uint32_t k0, uint32_t k1, uint64_t first, uint32_t* out, size_t n) {
  bool use_lanes = n >= 8 && UseLanes();
  Chunked(n, [&](size_t begin, size_t end) {
    if (use_lanes) return lanes::FillBits(k0, k1, first + begin, out + begin, end - begin);
    FillBitsScalar(k0, k1, first + begin, out + begin, end - begin);
  });
}

void UniformF32(const uint32_t* bits, float* out, size_t n, float lo, float hi) {
  bool use_lanes = UseLanes();
  Chunked(n, [&](size_t begin, size_t end) {
    if (use_lanes) return lanes::UniformF32(bits + begin, out + begin, end - begin, lo, hi);
    for (size_t i = begin; i < end; ++i) out[i] = UniformOfDraw(bits[i], DType::kFloat32, lo, hi);
  });
}

void NormalF32(const uint32_t* bits, float* out, size_t n) {
  bool use_lanes = UseLanes();
  Chunked(n, [&](size_t begin, size_t end) {
    if (use_lanes) {
      return lanes::NormalF32(bits + begin, out + begin, end - begin, &NormalOfDrawF32);
    }
    for (size_t i = begin; i < end; ++i) out[i] = NormalOfDrawF32(bits[i]);
  });
}

}  // namespace pz::array::draws

namespace pz::array {

bool RandomLanesActive() { return draws::UseLanes(); }

void CorePrng::Seed(const std::vector<uint32_t>& seeds) {
  key0_ = key1_ = 0;
  for (uint32_t seed : seeds) std::tie(key0_, key1_) = Threefry2x32(key0_, key1_, 0, seed);
  drawn_ = 0;
  seeded_ = true;
}

Array CorePrng::Draw(const Shape& shape) {
  Array out = Array::Empty(DType::kInt32, shape);
  auto n = static_cast<size_t>(out.size());
  static_assert(sizeof(int32_t) == sizeof(uint32_t));
  draws::FillBits(key0_, key1_, drawn_, reinterpret_cast<uint32_t*>(out.data<int32_t>()), n);
  drawn_ += n;
  return out;
}

}  // namespace pz::array

// jax.random on threefry2x32 keys: keys, split and fold_in, and the samplers as the primitives a
// kernel records (random_bits, then each sampler's step from the 32-bit draws). The draws and the
// per-draw float steps (random_draws.cpp) follow the partitionable counter scheme of
// jax._src.random.threefry2x32 and jax._src.random.core in the sampled dtype, so streams match
// real JAX bit for bit (normal up to the last ulps of log1p inside erf_inv).
#include "array/random.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "array/element.h"
#include "array/indexing.h"
#include "array/prims.h"
#include "array/random_draws.h"
#include "array/shape_ops.h"

namespace pz::array {
namespace {

// Threefry's key-schedule parity constant (Salmon et al., "Parallel random numbers", 2011).
constexpr uint32_t kThreefryParity = 0x1BD11BDA;
constexpr int kRotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};

uint32_t RotateLeft(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

std::pair<uint32_t, uint32_t> KeyWords(const Array& key) {
  if (key.dtype() != DType::kUInt32 || key.shape() != Shape{2}) {
    ThrowTypeError(fmt::format("expected a PRNG key of dtype uint32 and shape (2,), got {}{}",
                               DTypeName(key.dtype()), ShapeToString(key.shape())));
  }
  Array c = key.Contiguous();
  return {c.data<uint32_t>()[0], c.data<uint32_t>()[1]};
}

Array KeyArray(uint32_t word0, uint32_t word1) {
  Array key = Array::Zeros(DType::kUInt32, {2});
  key.data<uint32_t>()[0] = word0;
  key.data<uint32_t>()[1] = word1;
  return key;
}

std::vector<uint32_t> RawBits(const Array& key, const Shape& shape) {
  auto [k0, k1] = KeyWords(key);
  std::vector<uint32_t> bits(static_cast<size_t>(NumElements(shape)));
  draws::FillBits(k0, k1, 0, bits.data(), bits.size());
  return bits;
}

// The uint32 draws a sampler primitive starts from, contiguous.
Array DrawsOf(const Array& bits, std::string_view fn) {
  if (bits.dtype() != DType::kUInt32) {
    ThrowTypeError(
        fmt::format("{}: random bits must be uint32, got {}", fn, DTypeName(bits.dtype())));
  }
  return bits.Contiguous();
}

// A bound of a draw broadcast over `shape` (JAX broadcasts bounds to the rank of `shape`, then
// reshapes the draw to `shape`), contiguous.
Array BroadcastBound(const Array& bound, const Shape& shape, std::string_view fn) {
  if (shape.size() > static_cast<size_t>(kMaxRank)) {
    ThrowValueError(
        fmt::format("arrays have at most {} dimensions, got {}", kMaxRank, shape.size()));
  }
  Shape ranked = bound.shape();
  while (ranked.size() < shape.size()) ranked.insert(ranked.begin(), 1);
  bool fits = ranked.size() == shape.size();
  for (size_t i = 0; fits && i < shape.size(); ++i) fits = ranked[i] == 1 || ranked[i] == shape[i];
  if (!fits) {
    // JAX fails in different ops: uniform's multiply (TypeError), randint's broadcast (ValueError).
    std::string message = fmt::format(
        "{}: minval and maxval of shape {} do not broadcast to the sample shape {}; pass a "
        "shape= they broadcast to",
        fn, ShapeToString(bound.shape()), ShapeToString(shape));
    if (fn == "uniform") ThrowTypeError(message);
    ThrowValueError(message);
  }
  return BroadcastTo(bound, shape).Contiguous();
}

// Per-element float bounds rounded to `dtype`: one value when the bound is a scalar (the usual
// case), else one per element.
std::vector<float> BoundValues(const Array& bound, const Shape& shape, DType dtype) {
  if (bound.size() == 1 && static_cast<size_t>(bound.rank()) <= shape.size()) {
    return {static_cast<float>(bound.AsType(dtype).GetDouble(0))};
  }
  std::vector<double> wide = BroadcastBound(bound.AsType(dtype), shape, "uniform").ToDoubles();
  return std::vector<float>(wide.begin(), wide.end());
}

std::vector<float> UniformValues(const Array& bits, DType dtype, const Array& minval,
                                 const Array& maxval) {
  Array contiguous = DrawsOf(bits, "uniform");
  const Shape& shape = bits.shape();
  std::vector<float> lo = BoundValues(minval, shape, dtype);
  std::vector<float> hi = BoundValues(maxval, shape, dtype);
  const uint32_t* raw = contiguous.data<uint32_t>();
  std::vector<float> values(static_cast<size_t>(NumElements(shape)));
  size_t lo_step = lo.size() == 1 ? 0 : 1, hi_step = hi.size() == 1 ? 0 : 1;
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = draws::UniformOfDraw(raw[i], dtype, lo[i * lo_step], hi[i * hi_step]);
  }
  return values;
}

Array FromFloats(const std::vector<float>& values, DType dtype, const Shape& shape) {
  Array out = Array::Zeros(dtype, shape);
  DispatchDType(dtype, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    if constexpr (std::is_same_v<ComputeOf<D>, float>) {
      auto* dst = out.data<StorageOf<D>>();
      for (size_t i = 0; i < values.size(); ++i) dst[i] = Element<D>::Store(values[i]);
    }
  });
  return out;
}

// Sorts `order` stably by `sort_keys` (lax.sort_key_val with is_stable=True).
void SortByKeys(std::vector<int64_t>& order, const std::vector<uint32_t>& sort_keys) {
  std::vector<size_t> idx(order.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(),
                   [&](size_t a, size_t b) { return sort_keys[a] < sort_keys[b]; });
  std::vector<int64_t> sorted(order.size());
  for (size_t i = 0; i < idx.size(); ++i) sorted[i] = order[idx[i]];
  order = std::move(sorted);
}

// The rounds of jax.random's shuffle of n rows: ceil(3 ln n / ln(2^32 - 1)).
int ShuffleRounds(int64_t n) {
  constexpr double kExponent = 3.0;  // tjablin@'s static stop criterion used by JAX
  return static_cast<int>(std::ceil(kExponent * std::log(std::max<double>(1.0, n)) /
                                    std::log(static_cast<double>(UINT32_MAX))));
}

// jax.random's shuffle of arange(n): rounds of sorting by fresh 32-bit keys, each round splitting
// the key into (next key, subkey). `keys` is the first round's split, uint32 (2, 2).
std::vector<int64_t> ShuffledIndices(const Array& keys, int64_t n) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  Array split = keys.Contiguous();
  if (split.dtype() != DType::kUInt32 || split.shape() != Shape{2, 2}) {
    ThrowTypeError("a shuffle needs the uint32 (2, 2) split of a key");
  }
  for (int r = 0, rounds = ShuffleRounds(n); r < rounds; ++r) {
    if (r > 0) split = SplitKey(KeyArray(split.data<uint32_t>()[0], split.data<uint32_t>()[1]), 2);
    const uint32_t* words = split.data<uint32_t>();
    SortByKeys(order, RawBits(KeyArray(words[2], words[3]), {n}));
  }
  return order;
}

}  // namespace

std::pair<uint32_t, uint32_t> Threefry2x32(uint32_t key0, uint32_t key1, uint32_t count0,
                                           uint32_t count1) {
  const uint32_t ks[3] = {key0, key1, key0 ^ key1 ^ kThreefryParity};
  uint32_t x0 = count0 + ks[0];
  uint32_t x1 = count1 + ks[1];
  for (int block = 0; block < 5; ++block) {
    for (int rot : kRotations[block % 2]) {
      x0 += x1;
      x1 = RotateLeft(x1, rot) ^ x0;
    }
    x0 += ks[(block + 1) % 3];
    x1 += ks[(block + 2) % 3] + static_cast<uint32_t>(block + 1);
  }
  return {x0, x1};
}

Array Key(int64_t seed) { return KeyArray(0, static_cast<uint32_t>(seed)); }

Array KeyFromSeed(const Array& seed) {
  if (Recording()) {
    return RecordPrimitive({Prim::kRandomSeed, NoAttrs{}}, {seed},
                           [&] { return KeyFromSeed(seed); });
  }
  if (!IsInteger(seed.dtype()) || seed.rank() != 0) {
    ThrowTypeError(fmt::format("PRNG key seed must be an integer scalar; got {}{}",
                               DTypeName(seed.dtype()), ShapeToString(seed.shape())));
  }
  return Key(seed.GetInt(0));
}

Array SplitKey(const Array& key, int64_t num) {
  if (Recording()) {
    return RecordPrimitive({Prim::kRandomSplit, RandomAttrs{{num}, DType::kUInt32}}, {key},
                           [&] { return SplitKey(key, num); });
  }
  if (num < 0) ThrowValueError(fmt::format("split count must be non-negative, got {}", num));
  auto [k0, k1] = KeyWords(key);
  Array out = Array::Zeros(DType::kUInt32, {num, 2});
  uint32_t* dst = out.data<uint32_t>();
  for (int64_t i = 0; i < num; ++i) {
    uint64_t count = static_cast<uint64_t>(i);
    auto [b0, b1] =
        Threefry2x32(k0, k1, static_cast<uint32_t>(count >> 32), static_cast<uint32_t>(count));
    dst[2 * i] = b0;
    dst[2 * i + 1] = b1;
  }
  return out;
}

Array FoldIn(const Array& key, int64_t data) {
  if (Recording()) {  // a traced key: the data joins the recording as a constant
    return FoldIn(key, Array::Scalar(DType::kUInt32, static_cast<uint32_t>(data)));
  }
  auto [k0, k1] = KeyWords(key);
  auto [b0, b1] = Threefry2x32(k0, k1, 0, static_cast<uint32_t>(data));
  return KeyArray(b0, b1);
}

Array FoldIn(const Array& key, const Array& data) {
  if (Recording()) {
    return RecordPrimitive({Prim::kRandomFoldIn, NoAttrs{}}, {key, data},
                           [&] { return FoldIn(key, data); });
  }
  if (!IsInteger(data.dtype()) || data.rank() != 0) {
    ThrowTypeError(fmt::format("fold_in data must be an integer scalar; got {}{}",
                               DTypeName(data.dtype()), ShapeToString(data.shape())));
  }
  return FoldIn(key, data.GetInt(0));
}

Array Bits(const Array& key, const Shape& shape, DType dtype) {
  if (Recording()) {
    return RecordPrimitive({Prim::kRandomBits, RandomAttrs{shape, dtype}}, {key},
                           [&] { return Bits(key, shape, dtype); });
  }
  if (dtype != DType::kUInt32 && dtype != DType::kUInt16 && dtype != DType::kUInt8) {
    ThrowTypeError(
        fmt::format("bits only accepts unsigned integer dtypes, got {}", DTypeName(dtype)));
  }
  auto [k0, k1] = KeyWords(key);
  Array out = dtype == DType::kUInt32 ? Array::Empty(dtype, shape) : Array::Zeros(dtype, shape);
  if (dtype == DType::kUInt32) {
    draws::FillBits(k0, k1, 0, out.data<uint32_t>(), static_cast<size_t>(out.size()));
    return out;
  }
  std::vector<uint32_t> bits = RawBits(key, shape);
  if (dtype == DType::kUInt16) {
    std::transform(bits.begin(), bits.end(), out.data<uint16_t>(),
                   [](uint32_t b) { return static_cast<uint16_t>(b); });
  } else {
    std::transform(bits.begin(), bits.end(), out.data<uint8_t>(),
                   [](uint32_t b) { return static_cast<uint8_t>(b); });
  }
  return out;
}

Array Uniform(const Array& key, const Shape& shape, DType dtype, double minval, double maxval) {
  return Uniform(key, shape, dtype, Array::Scalar(DType::kFloat32, minval),
                 Array::Scalar(DType::kFloat32, maxval));
}

Array Uniform(const Array& key, const Shape& shape, DType dtype, const Array& minval,
              const Array& maxval) {
  if (!IsFloating(dtype)) {
    ThrowValueError(
        fmt::format("dtype argument to `uniform` must be a float dtype, got {}", DTypeName(dtype)));
  }
  return UniformFromBits(Bits(key, shape), dtype, minval, maxval);
}

Array UniformFromBits(const Array& bits, DType dtype, const Array& minval, const Array& maxval) {
  if (Recording()) {
    return RecordPrimitive({Prim::kRandomUniform, ConvertAttrs{dtype}}, {bits, minval, maxval},
                           [&] { return UniformFromBits(bits, dtype, minval, maxval); });
  }
  if (dtype == DType::kFloat32 && minval.size() == 1 && maxval.size() == 1 &&
      static_cast<size_t>(std::max(minval.rank(), maxval.rank())) <= bits.shape().size()) {
    // Scalar bounds (the usual case): straight into the result.
    Array contiguous = DrawsOf(bits, "uniform");
    const uint32_t* raw = contiguous.data<uint32_t>();
    auto lo = static_cast<float>(minval.AsType(dtype).GetDouble(0));
    auto hi = static_cast<float>(maxval.AsType(dtype).GetDouble(0));
    Array out = Array::Empty(dtype, bits.shape());
    draws::UniformF32(raw, out.data<float>(), static_cast<size_t>(out.size()), lo, hi);
    return out;
  }
  return FromFloats(UniformValues(bits, dtype, minval, maxval), dtype, bits.shape());
}

Array Normal(const Array& key, const Shape& shape, DType dtype) {
  if (!IsFloating(dtype)) {
    ThrowValueError(
        fmt::format("dtype argument to `normal` must be a float dtype, got {}", DTypeName(dtype)));
  }
  return NormalFromBits(Bits(key, shape), dtype);
}

Array NormalFromBits(const Array& bits, DType dtype) {
  if (Recording()) {
    return RecordPrimitive({Prim::kRandomNormal, ConvertAttrs{dtype}}, {bits},
                           [&] { return NormalFromBits(bits, dtype); });
  }
  if (!IsFloating(dtype)) {
    ThrowValueError(
        fmt::format("dtype argument to `normal` must be a float dtype, got {}", DTypeName(dtype)));
  }
  Array contiguous = DrawsOf(bits, "normal");
  const uint32_t* raw = contiguous.data<uint32_t>();
  auto n = static_cast<size_t>(contiguous.size());
  if (dtype == DType::kFloat32) {
    Array out = Array::Empty(dtype, bits.shape());
    draws::NormalF32(raw, out.data<float>(), n);
    return out;
  }
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = draws::NormalOfDraw(raw[i], dtype);
  return FromFloats(values, dtype, bits.shape());
}

Array RandInt(const Array& key, const Shape& shape, int64_t minval, int64_t maxval, DType dtype) {
  return RandInt(key, shape, Array::Scalar(DType::kInt32, static_cast<double>(minval)),
                 Array::Scalar(DType::kInt32, static_cast<double>(maxval)), dtype);
}

Array RandInt(const Array& key, const Shape& shape, const Array& minval, const Array& maxval,
              DType dtype) {
  if (!IsInteger(dtype)) {
    ThrowTypeError(fmt::format("randint only accepts integer dtypes, got {}", DTypeName(dtype)));
  }
  // JAX splits the key and draws the high and the low word of each sample from the halves.
  Array keys = SplitKey(key, 2);
  Array higher = Bits(GetIndexed(keys, {Index{.value = 0}}), shape);
  Array lower = Bits(GetIndexed(keys, {Index{.value = 1}}), shape);
  return RandIntFromBits(higher, lower, minval, maxval, dtype);
}

Array RandIntFromBits(const Array& higher_bits, const Array& lower_bits, const Array& minval,
                      const Array& maxval, DType dtype) {
  if (Recording()) {
    return RecordPrimitive(
        {Prim::kRandomRandint, ConvertAttrs{dtype}}, {higher_bits, lower_bits, minval, maxval},
        [&] { return RandIntFromBits(higher_bits, lower_bits, minval, maxval, dtype); });
  }
  if (!IsInteger(dtype)) {
    ThrowTypeError(fmt::format("randint only accepts integer dtypes, got {}", DTypeName(dtype)));
  }
  const Shape& shape = higher_bits.shape();
  if (lower_bits.shape() != shape) {
    ThrowValueError("randint: the two draws must have one shape");
  }
  Array higher_draws = DrawsOf(higher_bits, "randint");
  Array lower_draws = DrawsOf(lower_bits, "randint");
  const uint32_t* higher = higher_draws.data<uint32_t>();
  const uint32_t* lower = lower_draws.data<uint32_t>();
  // Float bounds are truncated to int32 first, as JAX's `minval.astype(int)`.
  auto as_int = [](const Array& b) { return IsInteger(b.dtype()) ? b : b.AsType(DType::kInt32); };
  Array lo_arr = as_int(minval), hi_arr = as_int(maxval);
  auto widen = [&](const Array& b) {
    Array wide = BroadcastBound(b, shape, "randint");
    std::vector<int64_t> out(static_cast<size_t>(wide.size()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = wide.GetInt(static_cast<int64_t>(i));
    return out;
  };
  std::vector<int64_t> lows = widen(lo_arr), highs = widen(hi_arr);
  // Every dtype samples in 32 bits: narrow dtypes as int32 (JAX's guard against bias) with bounds
  // clipped to the dtype (maxval to its max + 1) and wrapped at the end; 32-bit dtypes clip both
  // bounds to their range.
  constexpr uint64_t mask = 0xFFFFFFFFull;
  bool narrow = ItemSize(dtype) < 4;
  int64_t dtype_bits = static_cast<int64_t>(ItemSize(dtype)) * 8;
  int64_t type_min = IsUnsigned(dtype) ? 0 : -(int64_t{1} << (dtype_bits - 1));
  int64_t type_max = (int64_t{1} << (dtype_bits - (IsUnsigned(dtype) ? 0 : 1))) - 1;
  // "Out of range" compares maxval against the dtype max clipped to maxval's own dtype (int32
  // for Python ints).
  int64_t max_in_bound_dtype = hi_arr.dtype() == DType::kUInt32 ? int64_t{UINT32_MAX} : INT32_MAX;
  // XLA's unsigned remainder by zero returns the dividend.
  auto rem = [&](uint64_t a, uint64_t b) { return b == 0 ? a : a % b; };

  std::vector<int64_t> values(lows.size());
  for (size_t i = 0; i < values.size(); ++i) {
    bool maxval_out_of_range =
        !narrow && highs[i] > std::min<int64_t>(type_max, max_in_bound_dtype);
    int64_t lo = std::clamp(lows[i], type_min, type_max);
    int64_t hi = std::clamp(highs[i], type_min, type_max + (narrow ? 1 : 0));
    uint64_t span = static_cast<uint64_t>(hi - lo) & mask;
    if (hi <= lo) span = 1;
    if (maxval_out_of_range && hi > lo) span = (span + 1) & mask;
    uint64_t multiplier = rem(uint64_t{1} << 16, span);  // 2^32 mod span, squared below
    multiplier = rem((multiplier * multiplier) & mask, span);
    uint64_t high = higher[i] & mask;
    uint64_t low = lower[i] & mask;
    uint64_t offset = ((rem(high, span) * multiplier & mask) + rem(low, span)) & mask;
    values[i] = lo + static_cast<int64_t>(rem(offset, span));
  }
  Array out = Array::Zeros(dtype, shape);
  DispatchDType(dtype, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    if constexpr (std::is_same_v<ComputeOf<D>, int64_t>) {
      auto* dst = out.data<StorageOf<D>>();
      for (size_t i = 0; i < values.size(); ++i) dst[i] = Element<D>::Store(values[i]);
    }
  });
  return out;
}

Array Bernoulli(const Array& key, double p, const Shape& shape, DType p_dtype) {
  if (!IsFloating(p_dtype)) {
    ThrowTypeError(fmt::format("bernoulli probability `p` must have a floating dtype, got {}",
                               DTypeName(p_dtype)));
  }
  // uniform(key, shape, p's dtype) < p, as JAX composes it.
  return Binary(BinaryOp::kLt, Uniform(key, shape, p_dtype), Array::Scalar(p_dtype, p));
}

Array ShuffleRows(const Array& keys, const Array& x) {
  if (Recording()) {
    return RecordPrimitive({Prim::kRandomShuffle, NoAttrs{}}, {keys, x},
                           [&] { return ShuffleRows(keys, x); });
  }
  std::vector<int64_t> order = ShuffledIndices(keys, x.shape()[0]);
  Array source = x.Contiguous();
  Array out = Array::Zeros(x.dtype(), x.shape());
  size_t row_bytes =
      static_cast<size_t>(x.size() / std::max<int64_t>(x.shape()[0], 1)) * ItemSize(x.dtype());
  for (size_t i = 0; i < order.size(); ++i) {
    std::memcpy(out.raw() + i * row_bytes, source.raw() + order[i] * row_bytes, row_bytes);
  }
  return out;
}

Array Permutation(const Array& key, int64_t n) {
  if (n < 0) ThrowValueError(fmt::format("permutation size must be non-negative, got {}", n));
  Array indices = Array::Empty(DType::kInt32, {n});
  std::iota(indices.data<int32_t>(), indices.data<int32_t>() + n, 0);
  return Permutation(key, indices);
}

Array Permutation(const Array& key, const Array& x) {
  if (x.rank() == 0) ThrowTypeError("x must be an integer or at least 1-dimensional");
  if (ShuffleRounds(x.shape()[0]) == 0) return x.Contiguous();  // zero or one row: no split
  return ShuffleRows(SplitKey(key, 2), x);
}

}  // namespace pz::array

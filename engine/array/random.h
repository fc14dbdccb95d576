// jax.random with JAX's default PRNG, bit for bit: threefry2x32 keys (uint32[2] key data) in the
// `jax_threefry_partitionable` mode that JAX 0.10.2 enables by default (element i of a draw hashes
// the 64-bit counter i split into two words and xors the two outputs). Samplers follow
// jax._src.random: uniform's mantissa trick, normal via erf_inv (XLA's float32 polynomial),
// randint's double draw with modular span, bernoulli and the sort-based permutation.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "array/array.h"

namespace pz::array {

// The threefry2x32 block function on one counter pair, as XLA computes it (20 rounds).
std::pair<uint32_t, uint32_t> Threefry2x32(uint32_t key0, uint32_t key1, uint32_t count0,
                                           uint32_t count1);

// jax.random.PRNGKey(seed) / key_data(jax.random.key(seed)): uint32 [0, seed mod 2^32], since
// JAX's 32-bit mode truncates an integer seed to int32 before splitting it into two words.
Array Key(int64_t seed);
// The same from a 0-d integer array (a traced seed inside a kernel): the primitive random_seed.
Array KeyFromSeed(const Array& seed);
// jax.random.split(key, num): uint32 (num, 2); row i hashes counter i.
Array SplitKey(const Array& key, int64_t num);
// jax.random.fold_in(key, data): uint32 (2,); `data` is taken modulo 2^32.
Array FoldIn(const Array& key, int64_t data);
// The same with `data` a 0-d integer array: the primitive random_fold_in.
Array FoldIn(const Array& key, const Array& data);
// jax.random.bits(key, shape, dtype) for dtype uint8/uint16/uint32 (the low bits of each draw):
// the primitive random_bits, which every sampler below starts from.
Array Bits(const Array& key, const Shape& shape, DType dtype = DType::kUInt32);
// jax.random.uniform: values in [minval, maxval) of a float dtype; minval and maxval are first
// rounded to `dtype` and every step rounds to it, as JAX computes in that dtype.
Array Uniform(const Array& key, const Shape& shape, DType dtype = DType::kFloat32,
              double minval = 0.0, double maxval = 1.0);
// The same with array bounds, broadcast (after rounding to `dtype`) against `shape`.
Array Uniform(const Array& key, const Shape& shape, DType dtype, const Array& minval,
              const Array& maxval);
// jax.random.normal: sqrt(2) * erf_inv(uniform(key, shape, dtype, nextafter(-1, 0), 1)).
Array Normal(const Array& key, const Shape& shape, DType dtype = DType::kFloat32);
// jax.random.randint: integers in [minval, maxval) of an integer dtype; minval/maxval are int32
// values (as Python ints reaching JAX) and are clipped to the dtype's range; maxval <= minval
// yields minval.
Array RandInt(const Array& key, const Shape& shape, int64_t minval, int64_t maxval,
              DType dtype = DType::kInt32);
// The same with array bounds broadcast against `shape` (float bounds truncate to int32).
Array RandInt(const Array& key, const Shape& shape, const Array& minval, const Array& maxval,
              DType dtype = DType::kInt32);
// jax.random.bernoulli(key, p, shape): uniform(key, shape, p_dtype) < p, a bool array.
Array Bernoulli(const Array& key, double p, const Shape& shape, DType p_dtype = DType::kFloat32);
// jax.random.permutation(key, n): a shuffled int32 arange(n).
Array Permutation(const Array& key, int64_t n);
// jax.random.permutation(key, x): the rows (axis 0) of `x` shuffled; 0-d `x` is an error.
Array Permutation(const Array& key, const Array& x);

// ---- The samplers' second halves, one primitive each: uint32 draws (Bits(key, shape)) in ------
// The values jax.random.uniform makes of the draws `bits` (random_uniform).
Array UniformFromBits(const Array& bits, DType dtype, const Array& minval, const Array& maxval);
// The values jax.random.normal makes of them (random_normal).
Array NormalFromBits(const Array& bits, DType dtype);
// jax.random.permutation's shuffle of the rows of `x`, from the uint32 (2, 2) first split of its
// key (random_shuffle).
Array ShuffleRows(const Array& keys, const Array& x);
// The integers jax.random.randint makes of the draws of its two split keys (random_randint).
Array RandIntFromBits(const Array& higher, const Array& lower, const Array& minval,
                      const Array& maxval, DType dtype);

// Whether the hot loops (threefry, float32 uniform and normal) run in AVX2 lanes on this machine:
// RuntimeIsa() allows them and they agree bit for bit with the scalar loops at first use.
bool RandomLanesActive();

// The random number generator of an emulated TPU core, behind pltpu.prng_seed and
// pltpu.prng_random_bits. A real core's bit stream is its own and JAX's interpret mode has none;
// this one hashes the seeds into a threefry key (fold_in of each seed into the key (0, 0)) and
// draws successive 64-bit counters from it, so a seeded kernel is reproducible here and its
// samples have the right distribution, but its bits differ from a TPU's.
class CorePrng {
 public:
  void Seed(const std::vector<uint32_t>& seeds);
  bool seeded() const { return seeded_; }
  // The next NumElements(shape) draws as int32 (the dtype of pltpu.prng_random_bits).
  Array Draw(const Shape& shape);

 private:
  bool seeded_ = false;
  uint32_t key0_ = 0, key1_ = 0;
  uint64_t drawn_ = 0;
};

}  // namespace pz::array

// The prelude of generated CUDA translation units (see prelude.h).
#include "cuda/prelude.h"

namespace pz::cuda {

namespace {

constexpr std::string_view kPrelude =
    R"PRELUDE(// ---- prelude: written by pallas-puzzles, the same in every unit -------------------------------
#ifdef __CUDACC__
#define PZ_DEVICE __device__ __forceinline__
#define PZ_SHARED_DECL extern __shared__ __align__(16) char pz_smem[];
#define PZ_TRAP() __trap()
#else
// Plain C++: the host shim. Each CUDA thread is a fiber of the host device; a block's fibers
// share one OS thread, and blocks run one after the other. The C library's math functions the
// emitted code calls are declared here, not taken from <cmath>, which alone made up two thirds of
// a small unit's compile time.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
extern "C" {
float expf(float) noexcept;
float logf(float) noexcept;
float log1pf(float) noexcept;
float expm1f(float) noexcept;
float sqrtf(float) noexcept;
float tanhf(float) noexcept;
float sinf(float) noexcept;
float cosf(float) noexcept;
float tanf(float) noexcept;
float erff(float) noexcept;
float atan2f(float, float) noexcept;
float powf(float, float) noexcept;
float fmodf(float, float) noexcept;
float fmaf(float, float, float) noexcept;
float fabsf(float) noexcept;
float floorf(float) noexcept;
float ceilf(float) noexcept;
float rintf(float) noexcept;
float roundf(float) noexcept;
double trunc(double) noexcept;
}
#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf(x)
#define isfinite(x) __builtin_isfinite(x)
#define signbit(x) __builtin_signbit(x)
#define PZ_DEVICE static inline
#define __global__
#define __launch_bounds__(threads)
#define __device__
#define __restrict__ __restrict
struct pz_dim3 { unsigned x = 0, y = 1, z = 1; };
// Asynchronous copies (PZ_HOST_SM80) are held back until a wait makes them land, as late as a
// GPU may land them, so that a read before its wait sees the buffer's old contents here too.
struct pz_host_copy { void* dst; unsigned char bytes[16]; unsigned size; };
// A growing array of T (what the host shim needs of std::vector, without its header's cost).
template <typename T>
struct pz_host_list {
  T* items = nullptr;
  size_t size = 0, capacity = 0;
  void push(const T& item) {
    if (size == capacity) {
      capacity = capacity == 0 ? 16 : 2 * capacity;
      items = (T*)realloc((void*)items, capacity * sizeof(T));
      if (items == nullptr) {
        fprintf(stderr, "pz host device: out of memory for asynchronous copies\n");
        abort();
      }
    }
    items[size++] = item;
  }
  ~pz_host_list() { free(items); }
};
// One CUDA thread's state, on its fiber's stack. The fibers of a block take turns on one OS
// thread, so pz_host_self is set again after every wait. It is a plain static, not thread_local:
// a unit belongs to one host device, which runs one launch at a time on its caller's thread, and
// a thread_local of a dlopen'ed library costs a __tls_get_addr call at every use (and its
// blocks, which the sanitizers' runtime tracks, made LeakSanitizer crash at exit).
struct pz_host_thread {
  pz_dim3 thread_idx, block_idx, block_dim, grid_dim;
  char* shared;
  void (*sync)(void*);
  void* sync_context;
  // sync(warp_context) waits for the thread's warp; its lanes trade values through the warp's
  // slots, PZ_HOST_SLOT_WORDS a lane (PZ_HOST_SM80's tensor-core and ldmatrix forms).
  void* warp_context;
  unsigned* warp_slots;
  pz_host_list<pz_host_copy> copies;  // issued, not landed, in order
  pz_host_list<size_t> copy_groups;   // committed: each one's end
  unsigned reduce_half = 0;           // the half of its slots pz_group_reduce uses next
};
static pz_host_thread* pz_host_self = nullptr;
// The words of the warp's slots each lane has; the host device reads how many from the unit.
// Words 0 to 9 carry tensor-core fragments and ldmatrix rows, 16 to 23 (two halves of 4) the
// partials of pz_group_reduce.
#define PZ_HOST_SLOT_WORDS 24
extern "C" const unsigned pz_host_slot_words = PZ_HOST_SLOT_WORDS;
#define threadIdx (pz_host_self->thread_idx)
#define blockIdx (pz_host_self->block_idx)
#define blockDim (pz_host_self->block_dim)
#define gridDim (pz_host_self->grid_dim)
#define pz_host_shared (pz_host_self->shared)
#define pz_host_warp_slots (pz_host_self->warp_slots)
#define pz_host_copies (pz_host_self->copies)
#define pz_host_copy_groups (pz_host_self->copy_groups)
extern "C" void pz_host_run(void (*kernel)(const unsigned long long*),
                            const unsigned long long* args, unsigned thread, unsigned block,
                            unsigned block_dim, unsigned grid_dim, char* shared,
                            void (*sync)(void*), void* sync_context, void* warp_context,
                            unsigned* warp_slots) {
  pz_host_thread self;
  self.thread_idx.x = thread;
  self.block_idx.x = block;
  self.block_dim.x = block_dim;
  self.grid_dim.x = grid_dim;
  self.shared = shared;
  self.sync = sync;
  self.sync_context = sync_context;
  self.warp_context = warp_context;
  self.warp_slots = warp_slots;
  pz_host_self = &self;
  kernel(args);
  pz_host_self = nullptr;
}
static inline void pz_host_wait(void* context) {
  pz_host_thread* const self = pz_host_self;
  self->sync(context);
  pz_host_self = self;
}
static inline void __syncthreads() { pz_host_wait(pz_host_self->sync_context); }
static inline void pz_host_warp_sync() { pz_host_wait(pz_host_self->warp_context); }
#define PZ_SHARED_DECL char* const pz_smem = pz_host_shared;
#define PZ_TRAP() __builtin_trap()
#endif
// ---- dtypes: 16-bit floats kept as their bits; arithmetic in float ------------------------------
PZ_DEVICE float pz_f32_from_bits(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
PZ_DEVICE unsigned pz_bits_of_f32(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
PZ_DEVICE float pz_bf16_f32(unsigned short b) { return pz_f32_from_bits((unsigned)b << 16); }
PZ_DEVICE unsigned short pz_f32_bf16(float f) {
  unsigned u = pz_bits_of_f32(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);  // NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
  return (unsigned short)(u >> 16);
}
PZ_DEVICE float pz_f16_f32(unsigned short h) {
  unsigned sign = (unsigned)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1fu) return pz_f32_from_bits(sign | 0x7f800000u | (man << 13));
  if (exp == 0) {
    float v = (float)man * 5.9604644775390625e-08f;  // 2^-24
    return sign ? -v : v;
  }
  return pz_f32_from_bits(sign | ((exp + 112u) << 23) | (man << 13));
}
PZ_DEVICE unsigned short pz_f32_f16(float f) {
  unsigned u = pz_bits_of_f32(f), sign = (u >> 16) & 0x8000u;
  unsigned a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return (unsigned short)(sign | 0x7e00u);
  if (a >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);  // rounds to infinity
  if (a < 0x38800000u) {  // subnormal or zero in half: round at 2^-24
    float v = pz_f32_from_bits(a) * 16777216.0f;  // exact scaling by 2^24
    float r = rintf(v);
    return (unsigned short)(sign | (unsigned)r);
  }
  unsigned rounded = a + 0xfffu + ((a >> 13) & 1u);
  return (unsigned short)(sign | ((rounded - 0x38000000u) >> 13));
}
PZ_DEVICE float pz_round_bf16(float f) { return pz_bf16_f32(pz_f32_bf16(f)); }
// Two 16-bit elements in one register, the first in the low half (tensor-core fragments).
PZ_DEVICE unsigned pz_pack16(unsigned short lo, unsigned short hi) {
  return (unsigned)lo | ((unsigned)hi << 16);
}
PZ_DEVICE float pz_round_f16(float f) { return pz_f16_f32(pz_f32_f16(f)); }
// `p` when it is aligned to `bytes` (one asynchronous copy of that many bytes may read it), else
// null.
PZ_DEVICE const void* pz_aligned(const void* p, unsigned bytes) {
  return (unsigned long long)p % bytes == 0 ? p : nullptr;
}
// PZ_SM80: the forms of sm_80 and later (tensor cores, ldmatrix, asynchronous copies), on a GPU
// of that generation and on the host device when it runs the GPU's forms (PZ_HOST_SM80).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define PZ_SM80 1
#elif !defined(__CUDACC__) && defined(PZ_HOST_SM80)
#define PZ_SM80 1
#else
#define PZ_SM80 0
#endif
#if PZ_SM80
// One of four values by a run-time index, without indexing an array (which would put the
// accumulators of an mma tile in local memory).
PZ_DEVICE float pz_pick4(float a, float b, float c, float d, int i) {
  return i == 0 ? a : i == 1 ? b : i == 2 ? c : d;
}
#ifdef __CUDACC__
// Staged products (sm_80 and later): asynchronous 16- and 4-byte copies from global into shared
// memory, and tensor-core fragments read from shared memory by ldmatrix (four 8 x 8 matrices of
// 16-bit elements; `.trans` gives each its transpose).
PZ_DEVICE unsigned pz_shared_address(const void* p) {
  unsigned a;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
  return a;
}
PZ_DEVICE void pz_copy16_async(void* shared, const void* global) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(pz_shared_address(shared)),
               "l"(global) : "memory");
}
PZ_DEVICE void pz_copy4_async(void* shared, const void* global) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(pz_shared_address(shared)),
               "l"(global) : "memory");
}
PZ_DEVICE void pz_copies_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Waits until at most one committed group of copies is still in flight.
PZ_DEVICE void pz_copies_wait_all_but_one() { asm volatile("cp.async.wait_group 1;" ::: "memory"); }
PZ_DEVICE void pz_ldmatrix4(unsigned& a, unsigned& b, unsigned& c, unsigned& d, const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(pz_shared_address(p)));
}
PZ_DEVICE void pz_ldmatrix4_trans(unsigned& a, unsigned& b, unsigned& c, unsigned& d,
                                  const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(pz_shared_address(p)));
}
// d += a b on tensor cores: one m16 n8 k16 tile, a (row-major) and b (column-major) of 16-bit
// floats, two to a register, d of float32.
#define PZ_MMA_16816(name, type)                                                                 \
  PZ_DEVICE void name(float& d0, float& d1, float& d2, float& d3, unsigned a0, unsigned a1,      \
                      unsigned a2, unsigned a3, unsigned b0, unsigned b1) {                      \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." type "." type                          \
                 ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"         \
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)                                        \
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));                        \
  }
PZ_MMA_16816(pz_mma_bf16, "bf16")
PZ_MMA_16816(pz_mma_f16, "f16")
#else
// The host's forms of the same, lane by lane with the warp's other lanes through its slots.
static inline void pz_host_check_aligned(const void* p, unsigned bytes, const char* what) {
  if ((unsigned long long)p % bytes != 0) {
    fprintf(stderr, "pz host device: %s at %p, not %u-byte aligned (a GPU faults)\n", what, p,
            bytes);
    PZ_TRAP();
  }
}
static inline void pz_host_copy_async(void* shared, const void* global, unsigned bytes) {
  pz_host_check_aligned(shared, bytes, "an asynchronous copy's destination");
  pz_host_check_aligned(global, bytes, "an asynchronous copy's source");
  pz_host_copy copy;
  copy.dst = shared;
  copy.size = bytes;
  memcpy(copy.bytes, global, bytes);
  pz_host_copies.push(copy);
}
PZ_DEVICE void pz_copy16_async(void* shared, const void* global) {
  pz_host_copy_async(shared, global, 16);
}
PZ_DEVICE void pz_copy4_async(void* shared, const void* global) {
  pz_host_copy_async(shared, global, 4);
}
PZ_DEVICE void pz_copies_commit() { pz_host_copy_groups.push(pz_host_copies.size); }
PZ_DEVICE void pz_copies_wait_all_but_one() {
  if (pz_host_copy_groups.size < 2) return;
  size_t* const groups = pz_host_copy_groups.items;
  pz_host_copy* const copies = pz_host_copies.items;
  const size_t landed = groups[pz_host_copy_groups.size - 2];
  for (size_t i = 0; i < landed; ++i) memcpy(copies[i].dst, copies[i].bytes, copies[i].size);
  memmove((void*)copies, (void*)(copies + landed),
          (pz_host_copies.size - landed) * sizeof(pz_host_copy));
  pz_host_copies.size -= landed;
  groups[0] = groups[pz_host_copy_groups.size - 1] - landed;
  pz_host_copy_groups.size = 1;
}
static inline void pz_host_ldmatrix4(unsigned* out, const void* p, bool trans) {
  pz_host_check_aligned(p, 16, "an ldmatrix row");
  const unsigned lane = threadIdx.x & 31;
  memcpy(pz_host_warp_slots + lane * PZ_HOST_SLOT_WORDS + 8, &p, sizeof p);
  pz_host_warp_sync();
  auto row_of = [](unsigned from) {
    const unsigned short* row;
    memcpy(&row, pz_host_warp_slots + from * PZ_HOST_SLOT_WORDS + 8, sizeof row);
    return row;
  };
  for (unsigned j = 0; j < 4; ++j) {
    // Lane t holds row t / 4, columns 2 (t % 4) and the next, of matrix j (rows from lanes
    // 8 j to 8 j + 7); transposed, the same of the matrix's transpose.
    const unsigned r = lane >> 2, c = (lane & 3) * 2;
    out[j] = trans ? pz_pack16(row_of(8 * j + c)[r], row_of(8 * j + c + 1)[r])
                   : pz_pack16(row_of(8 * j + r)[c], row_of(8 * j + r)[c + 1]);
  }
  pz_host_warp_sync();
}
PZ_DEVICE void pz_ldmatrix4(unsigned& a, unsigned& b, unsigned& c, unsigned& d, const void* p) {
  unsigned out[4];
  pz_host_ldmatrix4(out, p, false);
  a = out[0], b = out[1], c = out[2], d = out[3];
}
PZ_DEVICE void pz_ldmatrix4_trans(unsigned& a, unsigned& b, unsigned& c, unsigned& d,
                                  const void* p) {
  unsigned out[4];
  pz_host_ldmatrix4(out, p, true);
  a = out[0], b = out[1], c = out[2], d = out[3];
}
// Lane (g, t) of the warp holds a's rows g and g + 8, columns 2 t, 2 t + 1 and those + 8; b's
// rows 2 t, 2 t + 1 and those + 8 of column g; d's rows g and g + 8, columns 2 t and 2 t + 1.
static inline void pz_host_mma(float* d, const unsigned* a, const unsigned* b,
                               float (*widen)(unsigned short)) {
  const unsigned lane = threadIdx.x & 31;
  unsigned* const mine = pz_host_warp_slots + lane * PZ_HOST_SLOT_WORDS;
  for (int i = 0; i < 4; ++i) mine[i] = a[i];
  mine[4] = b[0];
  mine[5] = b[1];
  pz_host_warp_sync();
  float sums[4];
  for (unsigned q = 0; q < 4; ++q) {
    const unsigned row = (lane >> 2) + (q >> 1) * 8, col = (lane & 3) * 2 + (q & 1);
    float sum = d[q];
    for (unsigned k = 0; k < 16; ++k) {
      const unsigned aw =
          pz_host_warp_slots[((row & 7) * 4 + ((k & 7) >> 1)) * PZ_HOST_SLOT_WORDS + (row >> 3) +
                             2 * (k >> 3)];
      const unsigned bw =
          pz_host_warp_slots[(col * 4 + ((k & 7) >> 1)) * PZ_HOST_SLOT_WORDS + 4 + (k >> 3)];
      const unsigned shift = (k & 1) * 16;
      sum += widen((unsigned short)(aw >> shift)) * widen((unsigned short)(bw >> shift));
    }
    sums[q] = sum;
  }
  pz_host_warp_sync();
  for (int q = 0; q < 4; ++q) d[q] = sums[q];
}
#define PZ_MMA_16816(name, widen)                                                                \
  PZ_DEVICE void name(float& d0, float& d1, float& d2, float& d3, unsigned a0, unsigned a1,      \
                      unsigned a2, unsigned a3, unsigned b0, unsigned b1) {                      \
    float d[4] = {d0, d1, d2, d3};                                                               \
    const unsigned a[4] = {a0, a1, a2, a3}, b[2] = {b0, b1};                                     \
    pz_host_mma(d, a, b, widen);                                                                 \
    d0 = d[0], d1 = d[1], d2 = d[2], d3 = d[3];                                                  \
  }
PZ_MMA_16816(pz_mma_bf16, pz_bf16_f32)
PZ_MMA_16816(pz_mma_f16, pz_f16_f32)
#endif
#endif
// convert_element_type from float to an integer: truncation, saturating, NaN -> 0.
PZ_DEVICE long long pz_f2i(float v, long long lo, long long hi) {
  if (isnan(v)) return 0;
  double t = trunc((double)v);
  if (t <= (double)lo) return lo;
  if (t >= (double)hi) return hi;
  return (long long)t;
}

// ---- elementwise semantics of the array layer (XLA on CPU) --------------------------------------
PZ_DEVICE float pz_fmax(float a, float b) {
  if (isnan(a) || isnan(b)) return pz_f32_from_bits(0x7fc00000u);
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}
PZ_DEVICE float pz_fmin(float a, float b) {
  if (isnan(a) || isnan(b)) return pz_f32_from_bits(0x7fc00000u);
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}
PZ_DEVICE float pz_fsign(float v) { return isnan(v) ? v : v > 0 ? 1.0f : v < 0 ? -1.0f : v; }
PZ_DEVICE float pz_ffloordiv(float a, float b) {
  float mod = fmodf(a, b);
  float div = (b == 0 ? a : a - mod) / b;
  if (mod != 0 && pz_fsign(b) != pz_fsign(mod)) div -= 1.0f;
  return roundf(div);
}
PZ_DEVICE float pz_fmod(float a, float b) {
  float trunc_ = fmodf(a, b);
  return (trunc_ != 0 && ((trunc_ < 0) != (b < 0))) ? trunc_ + b : trunc_;
}
PZ_DEVICE float pz_rsqrt(float x) { return 1.0f / sqrtf(x); }
PZ_DEVICE float pz_logistic(float x) { return 1.0f / (1.0f + expf(-x)); }
// 16-bit logistic and exp2 as XLA expands them, each step rounded to the operand's precision (the
// emulator's too): 1 / (1 + exp(-x)), and exp(x * ln 2) with ln 2 in that precision.
PZ_DEVICE float pz_logistic_bf16(float x) {
  return 1.0f / pz_round_bf16(1.0f + pz_round_bf16(expf(-x)));
}
PZ_DEVICE float pz_logistic_f16(float x) {
  return 1.0f / pz_round_f16(1.0f + pz_round_f16(expf(-x)));
}
PZ_DEVICE float pz_exp2(float x) { return expf(x * 0.693147180559945f); }
PZ_DEVICE float pz_exp2_bf16(float x) {
  return expf(pz_round_bf16(x * pz_round_bf16(0.693147180559945f)));
}
PZ_DEVICE float pz_exp2_f16(float x) {
  return expf(pz_round_f16(x * pz_round_f16(0.693147180559945f)));
}
PZ_DEVICE float pz_fpow_int(float base, long long y) {
  bool invert = y < 0;
  unsigned long long n = invert ? (unsigned long long)(-y) : (unsigned long long)y;
  float acc = 1.0f;
  while (n) {
    if (n & 1) acc *= base;
    base *= base;
    n >>= 1;
  }
  return invert ? 1.0f / acc : acc;
}
// Integers: x / 0 is -1, x % 0 is x (XLA); floor division and the divisor-signed remainder.
PZ_DEVICE long long pz_idiv(long long a, long long b) { return b == 0 ? -1 : a / b; }
PZ_DEVICE long long pz_irem(long long a, long long b) { return b == 0 ? a : a % b; }
PZ_DEVICE long long pz_ifloordiv(long long a, long long b, bool is_signed) {
  long long q = pz_idiv(a, b);
  if (is_signed && ((a > 0) - (a < 0)) != ((b > 0) - (b < 0)) && pz_irem(a, b) != 0) --q;
  return q;
}
PZ_DEVICE long long pz_imod(long long a, long long b) {
  if (b == 0) b = 1;
  long long t = a % b;
  return (t != 0 && ((t < 0) != (b < 0))) ? t + b : t;
}
PZ_DEVICE long long pz_ipow(long long base, long long exponent, long long mask, bool is_signed,
                            int bits) {
  // jnp.power on integers: binary exponentiation over the exponent's low 6 bits, wrapping.
  unsigned long long e = (unsigned long long)exponent & (unsigned long long)mask;
  unsigned long long acc = (base == 0 && exponent != 0) ? 0 : 1, b = (unsigned long long)base;
  for (int i = 0; i < 6; ++i) {
    if (e & 1) acc *= b;
    b *= b;
    e >>= 1;
  }
  acc &= (unsigned long long)mask;
  if (is_signed && bits < 64 && (acc >> (bits - 1)) & 1) return (long long)(acc | ~(unsigned long long)mask);
  return (long long)acc;
}
PZ_DEVICE long long pz_shl(long long a, long long b, int bits) {
  return (b < 0 || b >= bits) ? 0 : (long long)((unsigned long long)a << b);
}
PZ_DEVICE long long pz_sar(long long a, long long b, int bits) {
  return (b < 0 || b >= bits) ? (a < 0 ? -1 : 0) : (a >> b);
}
PZ_DEVICE unsigned long long pz_shr(unsigned long long a, long long b, int bits) {
  return (b < 0 || b >= bits) ? 0 : (a >> b);
}
PZ_DEVICE long long pz_clampll(long long v, long long lo, long long hi) {
  return v < lo ? lo : v > hi ? hi : v;
}
// A fault of the kernel (emit.h's DeviceFault): its status row, read by the host after the launch.
PZ_DEVICE void pz_fault(long long* status, long long code, long long instr, long long step,
                        long long a, long long b, long long c, long long d) {
  status[0] = code;
  status[1] = instr;
  status[2] = step;
  status[3] = a;
  status[4] = b;
  status[5] = c;
  status[6] = d;
}
// ---- reductions across the lanes of a warp ------------------------------------------------------
// Argmax and argmin partials: the best value so far, whether it is a NaN (the first NaN wins, as
// in numpy), and its index; `at` < 0 when the partial has seen no element yet.
template <typename T>
struct pz_arg {
  T best;
  int nan;
  long long at;
};
// Two partials over disjoint elements: the NaN, else the larger (smaller) value, ties to the
// lower index.
template <typename T>
PZ_DEVICE pz_arg<T> pz_arg_merge(pz_arg<T> a, pz_arg<T> b, bool max) {
  if (a.at < 0) return b;
  if (b.at < 0) return a;
  if (a.nan || b.nan) return a.nan && b.nan ? (a.at < b.at ? a : b) : (a.nan ? a : b);
  if (max ? b.best > a.best : b.best < a.best) return b;
  if (max ? a.best > b.best : a.best < b.best) return a;
  return a.at < b.at ? a : b;
}
// pz_group_reduce(v, width, merge): each aligned group of `width` lanes (a power of two, at most
// 32) combines its lanes' values as a tree, merge(lower, upper) at each level: lane 0 of the
// group takes lane width / 2's partial, then width / 4's, and so on down to lane 1's, where each
// of those lanes has done the same with the lanes above it. Every lane of the group returns
// lane 0's result. All 32 lanes of the warp call it together.
#ifdef __CUDACC__
#define PZ_SHUFFLES(type)                                                                        \
  PZ_DEVICE type pz_shfl_xor(type v, unsigned m) { return __shfl_xor_sync(0xffffffffu, v, m); } \
  PZ_DEVICE type pz_shfl_first(type v, unsigned width) {                                        \
    return __shfl_sync(0xffffffffu, v, 0, width);                                                \
  }
PZ_SHUFFLES(float)
PZ_SHUFFLES(int)
PZ_SHUFFLES(unsigned)
PZ_SHUFFLES(long long)
template <typename T>
PZ_DEVICE pz_arg<T> pz_shfl_xor(pz_arg<T> v, unsigned m) {
  return pz_arg<T>{pz_shfl_xor(v.best, m), pz_shfl_xor(v.nan, m), pz_shfl_xor(v.at, m)};
}
template <typename T>
PZ_DEVICE pz_arg<T> pz_shfl_first(pz_arg<T> v, unsigned width) {
  return pz_arg<T>{pz_shfl_first(v.best, width), pz_shfl_first(v.nan, width),
                   pz_shfl_first(v.at, width)};
}
template <typename T, typename F>
PZ_DEVICE T pz_group_reduce(T v, unsigned width, F merge) {
  for (unsigned m = width >> 1; m > 0; m >>= 1) v = merge(v, pz_shfl_xor(v, m));
  return pz_shfl_first(v, width);
}
#else
// The host's form: the lanes post their values in the warp's slots (alternate halves, so that
// a lane still reading one call's values is never overwritten by the next call), meet at the
// warp's barrier once, and each computes its group's tree from the posted values.
template <typename T, typename F>
static inline T pz_group_reduce(T v, unsigned width, F merge) {
  static_assert(sizeof(T) <= 16, "a partial fits half of a lane's reduction words");
  pz_host_thread* const self = pz_host_self;
  const unsigned lane = threadIdx.x & 31, at = 16 + 4 * self->reduce_half;
  self->reduce_half ^= 1u;
  memcpy(pz_host_warp_slots + lane * PZ_HOST_SLOT_WORDS + at, &v, sizeof v);
  pz_host_warp_sync();
  T values[32];
  const unsigned first = lane & ~(width - 1);
  for (unsigned i = 0; i < width; ++i) {
    memcpy(&values[i], pz_host_warp_slots + (first + i) * PZ_HOST_SLOT_WORDS + at, sizeof v);
  }
  for (unsigned m = width >> 1; m > 0; m >>= 1) {
    for (unsigned l = 0; l < m; ++l) values[l] = merge(values[l], values[l + m]);
  }
  return values[0];
}
#endif
// ---- end of prelude -------------------------------------------------------------------------------
)PRELUDE";

// jax.random (array/random.h) for the units whose kernels draw random numbers: the same
// threefry2x32 words, counters and per-draw float steps as the emulator, so the draws agree bit
// for bit (normal up to the device's log1pf in erf_inv). Only what a TPU kernel can draw: 32-bit
// words, and float32 samples of them (Mosaic lowers no narrower draw, and no split key).
constexpr char kRandomPrelude[] = R"PRELUDE(
// ---- random numbers: jax.random's threefry2x32 and samplers ------------------------------------
// The threefry2x32 block function on counter (c0, c1) under key (k0, k1): 20 rounds.
PZ_DEVICE void pz_threefry(unsigned k0, unsigned k1, unsigned c0, unsigned c1, unsigned* o0,
                           unsigned* o1) {
  const unsigned ks2 = k0 ^ k1 ^ 0x1BD11BDAu;
  unsigned x0 = c0 + k0, x1 = c1 + k1;
#define PZ_MIX(r) x0 += x1; x1 = ((x1 << (r)) | (x1 >> (32 - (r)))) ^ x0;
#define PZ_MIX_EVEN PZ_MIX(13) PZ_MIX(15) PZ_MIX(26) PZ_MIX(6)
#define PZ_MIX_ODD PZ_MIX(17) PZ_MIX(29) PZ_MIX(16) PZ_MIX(24)
  PZ_MIX_EVEN x0 += k1; x1 += ks2 + 1u;
  PZ_MIX_ODD x0 += ks2; x1 += k0 + 2u;
  PZ_MIX_EVEN x0 += k0; x1 += k1 + 3u;
  PZ_MIX_ODD x0 += k1; x1 += ks2 + 4u;
  PZ_MIX_EVEN x0 += ks2; x1 += k0 + 5u;
#undef PZ_MIX_ODD
#undef PZ_MIX_EVEN
#undef PZ_MIX
  *o0 = x0;
  *o1 = x1;
}
// Draw `count` of a key: the two words of its 64-bit counter's block, xored.
PZ_DEVICE unsigned pz_draw(unsigned k0, unsigned k1, unsigned long long count) {
  unsigned a, b;
  pz_threefry(k0, k1, (unsigned)(count >> 32), (unsigned)count, &a, &b);
  return a ^ b;
}
// Word `word` of the key fold_in(key, data) makes: the block of counter (0, data).
PZ_DEVICE unsigned pz_fold_in(unsigned k0, unsigned k1, unsigned data, long long word) {
  unsigned a, b;
  pz_threefry(k0, k1, 0u, data, &a, &b);
  return word == 0 ? a : b;
}
// uniform's float32 value of a draw in [lo, hi): the draw's top 23 bits as the mantissa of a
// float in [1, 2), minus 1, scaled by one fma (XLA on CPU fuses it) and kept at least lo.
PZ_DEVICE float pz_uniform_f32(unsigned bits, float lo, float hi) {
  float unit = pz_f32_from_bits((bits >> 9) | 0x3F800000u) - 1.0f;
  float v = fmaf(unit, hi - lo, lo);
  return lo < v ? v : lo;
}
// XLA's float32 erf_inv (Giles 2010), in the emulator's order.
PZ_DEVICE float pz_erfinv(float x) {
  float w = -log1pf(x * -x);
  float p;
  if (w < 5.0f) {
    w = w - 2.5f;
    p = 2.81022636e-08f;
    p = fmaf(p, w, 3.43273939e-07f);
    p = fmaf(p, w, -3.5233877e-06f);
    p = fmaf(p, w, -4.39150654e-06f);
    p = fmaf(p, w, 0.00021858087f);
    p = fmaf(p, w, -0.00125372503f);
    p = fmaf(p, w, -0.00417768164f);
    p = fmaf(p, w, 0.246640727f);
    p = fmaf(p, w, 1.50140941f);
  } else {
    w = sqrtf(w) - 3.0f;
    p = -0.000200214257f;
    p = fmaf(p, w, 0.000100950558f);
    p = fmaf(p, w, 0.00134934322f);
    p = fmaf(p, w, -0.00367342844f);
    p = fmaf(p, w, 0.00573950773f);
    p = fmaf(p, w, -0.0076224613f);
    p = fmaf(p, w, 0.00943887047f);
    p = fmaf(p, w, 1.00167406f);
    p = fmaf(p, w, 2.83297682f);
  }
  if (fabsf(x) == 1.0f) return x * pz_f32_from_bits(0x7f800000u);
  return p * x;
}
// normal's float32 value of a draw: sqrt(2) erf_inv(u), u uniform in [nextafter(-1, 0), 1).
PZ_DEVICE float pz_normal_f32(unsigned bits) {
  return 1.41421354f * pz_erfinv(pz_uniform_f32(bits, -0.99999994f, 1.0f));
}
// ---- end of the random numbers ------------------------------------------------------------------
)PRELUDE";

// The log of prints (emit.h): room for a record of `words` words, or null when the log is full
// (counted). The host device runs one block at a time.
constexpr char kPrintPrelude[] = R"PRELUDE(
// ---- the log of prints ------------------------------------------------------------------------
PZ_DEVICE unsigned long long* pz_log_reserve(unsigned long long* log, unsigned long long words) {
#ifdef __CUDACC__
  unsigned long long at = atomicAdd(log, words);
#else
  unsigned long long at = log[0];
  log[0] += words;
#endif
  if (at + words > log[1]) {
#ifdef __CUDACC__
    atomicAdd(log + 2, 1ull);
#else
    ++log[2];
#endif
    return nullptr;
  }
  return log + 3 + at;
}
)PRELUDE";

}  // namespace

std::string_view Prelude() { return kPrelude; }

std::string_view PrintPrelude() { return kPrintPrelude; }

std::string_view RandomPrelude() { return kRandomPrelude; }

}  // namespace pz::cuda

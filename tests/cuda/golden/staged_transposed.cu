// ---- prelude: written by pallas-puzzles, the same in every unit -------------------------------
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

// `x_ref` of pz_kernel_0: element `pz_off` of its window, in HBM (a direct window)
PZ_DEVICE unsigned short pz_kernel_0_r0_read(const unsigned short* pz_hbm, const long long* pz_e, long long pz_off) {
  [[maybe_unused]] const unsigned pz_o = (unsigned)pz_off;
  const long long pz_a0 = pz_e[3] + (long long)(pz_o / 128);
  const long long pz_a1 = pz_e[4] + (long long)(pz_o % 128);
  return (true && pz_a0 >= 0 && pz_a0 < 256 && pz_a1 >= 0 && pz_a1 < 320) ? pz_hbm[pz_a0 * 320 + pz_a1 * 1] : (unsigned short)0x7fc0u;
}
PZ_DEVICE const void* pz_kernel_0_r0_run(const unsigned short* pz_hbm, const long long* pz_e, long long pz_off, int pz_n) {
  if (pz_off % pz_n != 0) return nullptr;
  [[maybe_unused]] const unsigned pz_o = (unsigned)pz_off;
  const long long pz_a0 = pz_e[3] + (long long)(pz_o / 128);
  const long long pz_a1 = pz_e[4] + (long long)(pz_o % 128);
  if (!(true && pz_a0 >= 0 && pz_a0 < 256 && pz_a1 >= 0 && pz_a1 < 320 && pz_a1 + pz_n <= 320)) return nullptr;
  return pz_aligned(pz_hbm + pz_a0 * 320 + pz_a1 * 1, pz_n * 2);
}
PZ_DEVICE const unsigned short* pz_kernel_0_r0_origin(const unsigned short* pz_hbm, const long long* pz_e) {
  const long long pz_a0 = pz_e[3];
  const long long pz_a1 = pz_e[4];
  return (true && pz_a0 >= 0 && pz_a0 + 256 <= 256 && pz_a1 >= 0 && pz_a1 + 128 <= 320) ? pz_hbm + pz_a0 * 320 + pz_a1 * 1 : nullptr;
}
PZ_DEVICE long long pz_kernel_0_r0_at(long long pz_off) {
  [[maybe_unused]] const unsigned pz_o = (unsigned)pz_off;
  return (long long)(pz_o / 128) * 320 + (long long)(pz_o % 128) * 1;
}
// `y_ref` of pz_kernel_0: element `pz_off` of its window, in HBM (a direct window)
PZ_DEVICE unsigned short pz_kernel_0_r1_read(const unsigned short* pz_hbm, const long long* pz_e, long long pz_off) {
  [[maybe_unused]] const unsigned pz_o = (unsigned)pz_off;
  const long long pz_a0 = pz_e[5] + (long long)(pz_o / 256);
  const long long pz_a1 = pz_e[6] + (long long)(pz_o % 256);
  return (true && pz_a0 >= 0 && pz_a0 < 256 && pz_a1 >= 0 && pz_a1 < 256) ? pz_hbm[pz_a0 * 256 + pz_a1 * 1] : (unsigned short)0x7fc0u;
}
PZ_DEVICE const void* pz_kernel_0_r1_run(const unsigned short* pz_hbm, const long long* pz_e, long long pz_off, int pz_n) {
  if (pz_off % pz_n != 0) return nullptr;
  [[maybe_unused]] const unsigned pz_o = (unsigned)pz_off;
  const long long pz_a0 = pz_e[5] + (long long)(pz_o / 256);
  const long long pz_a1 = pz_e[6] + (long long)(pz_o % 256);
  if (!(true && pz_a0 >= 0 && pz_a0 < 256 && pz_a1 >= 0 && pz_a1 < 256 && pz_a1 + pz_n <= 256)) return nullptr;
  return pz_aligned(pz_hbm + pz_a0 * 256 + pz_a1 * 1, pz_n * 2);
}
PZ_DEVICE const unsigned short* pz_kernel_0_r1_origin(const unsigned short* pz_hbm, const long long* pz_e) {
  const long long pz_a0 = pz_e[5];
  const long long pz_a1 = pz_e[6];
  return (true && pz_a0 >= 0 && pz_a0 + 128 <= 256 && pz_a1 >= 0 && pz_a1 + 256 <= 256) ? pz_hbm + pz_a0 * 256 + pz_a1 * 1 : nullptr;
}
PZ_DEVICE long long pz_kernel_0_r1_at(long long pz_off) {
  [[maybe_unused]] const unsigned pz_o = (unsigned)pz_off;
  return (long long)(pz_o / 256) * 256 + (long long)(pz_o % 256) * 1;
}
// `o_ref` of pz_kernel_0: element `pz_off` of its window, in HBM (a direct window)
PZ_DEVICE float pz_kernel_0_r2_read(const float* pz_hbm, const long long* pz_e, long long pz_off) {
  [[maybe_unused]] const unsigned pz_o = (unsigned)pz_off;
  const long long pz_a0 = pz_e[7] + (long long)(pz_o / 128);
  const long long pz_a1 = pz_e[8] + (long long)(pz_o % 128);
  return (true && pz_a0 >= 0 && pz_a0 < 320 && pz_a1 >= 0 && pz_a1 < 256) ? pz_hbm[pz_a0 * 256 + pz_a1 * 1] : pz_f32_from_bits(0x7fc00000u);
}
PZ_DEVICE const void* pz_kernel_0_r2_run(const float* pz_hbm, const long long* pz_e, long long pz_off, int pz_n) {
  if (pz_off % pz_n != 0) return nullptr;
  [[maybe_unused]] const unsigned pz_o = (unsigned)pz_off;
  const long long pz_a0 = pz_e[7] + (long long)(pz_o / 128);
  const long long pz_a1 = pz_e[8] + (long long)(pz_o % 128);
  if (!(true && pz_a0 >= 0 && pz_a0 < 320 && pz_a1 >= 0 && pz_a1 < 256 && pz_a1 + pz_n <= 256)) return nullptr;
  return pz_aligned(pz_hbm + pz_a0 * 256 + pz_a1 * 1, pz_n * 4);
}
PZ_DEVICE const float* pz_kernel_0_r2_origin(const float* pz_hbm, const long long* pz_e) {
  const long long pz_a0 = pz_e[7];
  const long long pz_a1 = pz_e[8];
  return (true && pz_a0 >= 0 && pz_a0 + 128 <= 320 && pz_a1 >= 0 && pz_a1 + 128 <= 256) ? pz_hbm + pz_a0 * 256 + pz_a1 * 1 : nullptr;
}
PZ_DEVICE long long pz_kernel_0_r2_at(long long pz_off) {
  [[maybe_unused]] const unsigned pz_o = (unsigned)pz_off;
  return (long long)(pz_o / 128) * 256 + (long long)(pz_o % 128) * 1;
}
PZ_DEVICE void pz_kernel_0_r2_write(float* pz_hbm, const long long* pz_e, long long pz_off, float pz_v) {
  [[maybe_unused]] const unsigned pz_o = (unsigned)pz_off;
  const long long pz_a0 = pz_e[7] + (long long)(pz_o / 128);
  const long long pz_a1 = pz_e[8] + (long long)(pz_o % 128);
  if (true && pz_a0 >= 0 && pz_a0 < 320 && pz_a1 >= 0 && pz_a1 < 256) pz_hbm[pz_a0 * 256 + pz_a1 * 1] = pz_v;
}
// pallas_call `kernel` at line 23
extern "C" __global__ void __launch_bounds__(512) pz_kernel_0(const unsigned long long* __restrict__ pz_args) {
  PZ_SHARED_DECL
  [[maybe_unused]] long long* const pz_status = (long long*)pz_args[0] + 8 * (long long)blockIdx.x;
  const long long* const pz_table = (const long long*)pz_args[1];
  [[maybe_unused]] char* const pz_gmem = (char*)pz_args[2] + (long long)blockIdx.x * (long long)pz_args[4];
  const long long pz_chains = (long long)pz_args[3];
  [[maybe_unused]] unsigned short* const pz_hbm0 = (unsigned short*)pz_args[6];
  [[maybe_unused]] unsigned short* const pz_hbm1 = (unsigned short*)pz_args[7];
  [[maybe_unused]] float* const pz_hbm2 = (float*)pz_args[8];
  [[maybe_unused]] unsigned short* const r0 = pz_hbm0;  // x_ref (direct window)
  [[maybe_unused]] unsigned short* const r1 = pz_hbm1;  // y_ref (direct window)
  [[maybe_unused]] float* const r2 = pz_hbm2;  // o_ref (direct window)
  [[maybe_unused]] unsigned short* v0 = nullptr;
  [[maybe_unused]] unsigned short* v1 = nullptr;
  [[maybe_unused]] float* v2 = (float*)(pz_gmem + 0);
  __syncthreads();
  const long long pz_steps = (long long)pz_args[5];
  for (long long pz_chain = blockIdx.x; pz_chain < pz_chains; pz_chain += gridDim.x) {
    for (long long pz_s = 0; pz_s < pz_steps; ++pz_s) {
      const long long pz_step = pz_chain * pz_steps + pz_s;
      const long long* const pz_e = pz_table + pz_step * 9;
      [[maybe_unused]] const int pz_g0 = (int)pz_e[0];
      [[maybe_unused]] const int pz_g1 = (int)pz_e[1];
      [[maybe_unused]] const int pz_g2 = (int)pz_e[2];
      __syncthreads();
      #if PZ_SM80
      if (blockDim.x == 512) {  // tensor cores, operand tiles staged in shared memory by asynchronous copies, two buffers each
        unsigned short* const pz_sa = (unsigned short*)(pz_smem + 0);
        unsigned short* const pz_sb = (unsigned short*)(pz_smem + 20480);
        const int pz_warp = threadIdx.x >> 5, pz_lane = threadIdx.x & 31;
        const int pz_wm = (pz_warp >> 2) * 32, pz_wn = (pz_warp & 3) * 32;
        const int pz_lr = pz_lane & 7, pz_lj = pz_lane >> 3;
        const unsigned short* const pz_fa = (const unsigned short*)pz_aligned(pz_kernel_0_r0_origin(r0, pz_e), 16);
        const unsigned short* const pz_fb = (const unsigned short*)pz_aligned(pz_kernel_0_r1_origin(r1, pz_e), 16);
        for (long long pz_tile = 0; pz_tile < 1; ++pz_tile) {
          const long long pz_b = pz_tile / 1, pz_mn = pz_tile % 1;
          const long long pz_m0 = pz_mn / 1 * 128, pz_n0 = pz_mn % 1 * 128;
          const long long pz_lo = pz_b * 0 + pz_m0 * 1, pz_ro = pz_b * 0 + pz_n0 * 256;
          float pz_d[2][4][4] = {};
          if (pz_fa != nullptr) {
            {
              const int pz_kq = (threadIdx.x >> 4), pz_x = (threadIdx.x & 15) * 8;
              unsigned short* const pz_dst = pz_sa + ((0) & 1) * 5120 + pz_kq * 136 + pz_x;
              const long long pz_at = pz_lo + pz_x * 1 + ((0) * 32 + pz_kq) * 128;
              const long long pz_w = (0) + pz_at;
              if (pz_w % 8 == 0) {
                pz_copy16_async(pz_dst, pz_fa + pz_kernel_0_r0_at(pz_w));
              } else {
                #pragma unroll
                for (int pz_j = 0; pz_j < 8; ++pz_j) pz_dst[pz_j] = pz_kernel_0_r0_read(r0, pz_e, (0) + pz_at + pz_j * 1);
              }
            }
          } else {
            {
              const int pz_kq = (threadIdx.x >> 4), pz_x = (threadIdx.x & 15) * 8;
              unsigned short* const pz_dst = pz_sa + ((0) & 1) * 5120 + pz_kq * 136 + pz_x;
              const long long pz_at = pz_lo + pz_x * 1 + ((0) * 32 + pz_kq) * 128;
              const void* const pz_src = pz_kernel_0_r0_run(r0, pz_e, (0) + pz_at, 8);
              if (pz_src != nullptr) {
                pz_copy16_async(pz_dst, pz_src);
              } else {
                #pragma unroll
                for (int pz_j = 0; pz_j < 8; ++pz_j) pz_dst[pz_j] = pz_kernel_0_r0_read(r0, pz_e, (0) + pz_at + pz_j * 1);
              }
            }
          }
          if (pz_fb != nullptr) {
            {
              const int pz_x = threadIdx.x >> 2, pz_kq = (threadIdx.x & 3) * 8;
              unsigned short* const pz_dst = pz_sb + ((0) & 1) * 5120 + pz_x * 40 + pz_kq;
              const long long pz_at = pz_ro + pz_x * 256 + ((0) * 32 + pz_kq) * 1;
              const long long pz_w = (0) + pz_at;
              if (pz_w % 8 == 0) {
                pz_copy16_async(pz_dst, pz_fb + pz_kernel_0_r1_at(pz_w));
              } else {
                #pragma unroll
                for (int pz_j = 0; pz_j < 8; ++pz_j) pz_dst[pz_j] = pz_kernel_0_r1_read(r1, pz_e, (0) + pz_at + pz_j * 1);
              }
            }
          } else {
            {
              const int pz_x = threadIdx.x >> 2, pz_kq = (threadIdx.x & 3) * 8;
              unsigned short* const pz_dst = pz_sb + ((0) & 1) * 5120 + pz_x * 40 + pz_kq;
              const long long pz_at = pz_ro + pz_x * 256 + ((0) * 32 + pz_kq) * 1;
              const void* const pz_src = pz_kernel_0_r1_run(r1, pz_e, (0) + pz_at, 8);
              if (pz_src != nullptr) {
                pz_copy16_async(pz_dst, pz_src);
              } else {
                #pragma unroll
                for (int pz_j = 0; pz_j < 8; ++pz_j) pz_dst[pz_j] = pz_kernel_0_r1_read(r1, pz_e, (0) + pz_at + pz_j * 1);
              }
            }
          }
          pz_copies_commit();
          for (int pz_kc = 0; pz_kc < 8; ++pz_kc) {
            if (pz_kc + 1 < 8) {
              if (pz_fa != nullptr) {
                {
                  const int pz_kq = (threadIdx.x >> 4), pz_x = (threadIdx.x & 15) * 8;
                  unsigned short* const pz_dst = pz_sa + ((pz_kc + 1) & 1) * 5120 + pz_kq * 136 + pz_x;
                  const long long pz_at = pz_lo + pz_x * 1 + ((pz_kc + 1) * 32 + pz_kq) * 128;
                  const long long pz_w = (0) + pz_at;
                  if (pz_w % 8 == 0) {
                    pz_copy16_async(pz_dst, pz_fa + pz_kernel_0_r0_at(pz_w));
                  } else {
                    #pragma unroll
                    for (int pz_j = 0; pz_j < 8; ++pz_j) pz_dst[pz_j] = pz_kernel_0_r0_read(r0, pz_e, (0) + pz_at + pz_j * 1);
                  }
                }
              } else {
                {
                  const int pz_kq = (threadIdx.x >> 4), pz_x = (threadIdx.x & 15) * 8;
                  unsigned short* const pz_dst = pz_sa + ((pz_kc + 1) & 1) * 5120 + pz_kq * 136 + pz_x;
                  const long long pz_at = pz_lo + pz_x * 1 + ((pz_kc + 1) * 32 + pz_kq) * 128;
                  const void* const pz_src = pz_kernel_0_r0_run(r0, pz_e, (0) + pz_at, 8);
                  if (pz_src != nullptr) {
                    pz_copy16_async(pz_dst, pz_src);
                  } else {
                    #pragma unroll
                    for (int pz_j = 0; pz_j < 8; ++pz_j) pz_dst[pz_j] = pz_kernel_0_r0_read(r0, pz_e, (0) + pz_at + pz_j * 1);
                  }
                }
              }
              if (pz_fb != nullptr) {
                {
                  const int pz_x = threadIdx.x >> 2, pz_kq = (threadIdx.x & 3) * 8;
                  unsigned short* const pz_dst = pz_sb + ((pz_kc + 1) & 1) * 5120 + pz_x * 40 + pz_kq;
                  const long long pz_at = pz_ro + pz_x * 256 + ((pz_kc + 1) * 32 + pz_kq) * 1;
                  const long long pz_w = (0) + pz_at;
                  if (pz_w % 8 == 0) {
                    pz_copy16_async(pz_dst, pz_fb + pz_kernel_0_r1_at(pz_w));
                  } else {
                    #pragma unroll
                    for (int pz_j = 0; pz_j < 8; ++pz_j) pz_dst[pz_j] = pz_kernel_0_r1_read(r1, pz_e, (0) + pz_at + pz_j * 1);
                  }
                }
              } else {
                {
                  const int pz_x = threadIdx.x >> 2, pz_kq = (threadIdx.x & 3) * 8;
                  unsigned short* const pz_dst = pz_sb + ((pz_kc + 1) & 1) * 5120 + pz_x * 40 + pz_kq;
                  const long long pz_at = pz_ro + pz_x * 256 + ((pz_kc + 1) * 32 + pz_kq) * 1;
                  const void* const pz_src = pz_kernel_0_r1_run(r1, pz_e, (0) + pz_at, 8);
                  if (pz_src != nullptr) {
                    pz_copy16_async(pz_dst, pz_src);
                  } else {
                    #pragma unroll
                    for (int pz_j = 0; pz_j < 8; ++pz_j) pz_dst[pz_j] = pz_kernel_0_r1_read(r1, pz_e, (0) + pz_at + pz_j * 1);
                  }
                }
              }
            }
            pz_copies_commit();
            pz_copies_wait_all_but_one();
            __syncthreads();
            const unsigned short* const pz_ta = pz_sa + (pz_kc & 1) * 5120;
            const unsigned short* const pz_tb = pz_sb + (pz_kc & 1) * 5120;
            #pragma unroll
            for (int pz_kk = 0; pz_kk < 32; pz_kk += 16) {
              unsigned pz_af[2][4], pz_bf[4][2];
              #pragma unroll
              for (int pz_u = 0; pz_u < 2; ++pz_u) {
                pz_ldmatrix4_trans(pz_af[pz_u][0], pz_af[pz_u][1], pz_af[pz_u][2], pz_af[pz_u][3], pz_ta + (pz_kk + pz_lr + (pz_lj >> 1) * 8) * 136 + pz_wm + pz_u * 16 + (pz_lj & 1) * 8);
              }
              #pragma unroll
              for (int pz_v = 0; pz_v < 4; pz_v += 2) {
                pz_ldmatrix4(pz_bf[pz_v][0], pz_bf[pz_v][1], pz_bf[pz_v + 1][0], pz_bf[pz_v + 1][1], pz_tb + (pz_wn + pz_v * 8 + pz_lr + (pz_lj >> 1) * 8) * 40 + pz_kk + (pz_lj & 1) * 8);
              }
              #pragma unroll
              for (int pz_u = 0; pz_u < 2; ++pz_u) {
                #pragma unroll
                for (int pz_v = 0; pz_v < 4; ++pz_v) {
                  pz_mma_bf16(pz_d[pz_u][pz_v][0], pz_d[pz_u][pz_v][1], pz_d[pz_u][pz_v][2], pz_d[pz_u][pz_v][3], pz_af[pz_u][0], pz_af[pz_u][1], pz_af[pz_u][2], pz_af[pz_u][3], pz_bf[pz_v][0], pz_bf[pz_v][1]);
                }
              }
            }
            __syncthreads();
          }
          const int pz_gid = pz_lane >> 2, pz_tig = pz_lane & 3;
          #pragma unroll
          for (int pz_u = 0; pz_u < 2; ++pz_u) {
            #pragma unroll
            for (int pz_v0 = 0; pz_v0 < 4; ++pz_v0) {
              #pragma unroll
              for (int pz_q = 0; pz_q < 4; ++pz_q) {
                const int pz_v = (pz_v0 + pz_gid) & 3, pz_h = (pz_q & 1) ^ (pz_gid >> 2);
                const long long pz_r = pz_m0 + pz_wm + pz_u * 16 + pz_gid + (pz_q >> 1) * 8, pz_c = pz_n0 + pz_wn + pz_v * 8 + pz_tig * 2 + pz_h;
                v2[pz_b * 16384 + (pz_r) * 128 + (pz_c)] = (pz_h ? pz_pick4(pz_d[pz_u][0][(pz_q & 2) | 1], pz_d[pz_u][1][(pz_q & 2) | 1], pz_d[pz_u][2][(pz_q & 2) | 1], pz_d[pz_u][3][(pz_q & 2) | 1], pz_v) : pz_pick4(pz_d[pz_u][0][pz_q & 2], pz_d[pz_u][1][pz_q & 2], pz_d[pz_u][2][pz_q & 2], pz_d[pz_u][3][pz_q & 2], pz_v));
              }
            }
          }
        }
      } else {
        {  // tensor cores: each warp a tile of the result at a time, mma.sync m16n8k16
          const int pz_lane = threadIdx.x & 31, pz_gid = pz_lane >> 2, pz_tig = pz_lane & 3;
          for (long long pz_tile = threadIdx.x >> 5; pz_tile < 16; pz_tile += blockDim.x >> 5) {
            const long long pz_b = pz_tile / 16, pz_mn = pz_tile % 16;
            const long long pz_m0 = pz_mn / 4 * 32, pz_n0 = pz_mn % 4 * 32;
            const long long pz_lo = pz_b * 0, pz_ro = pz_b * 0;
            float pz_d[2][4][4] = {};
            for (long long pz_k = 0; pz_k < 256; pz_k += 16) {
              unsigned pz_af[2][4], pz_bf[4][2];
              #pragma unroll
              for (int pz_u = 0; pz_u < 2; ++pz_u) {
                const long long pz_r = pz_m0 + pz_u * 16 + pz_gid, pz_c = pz_k + pz_tig * 2;
                pz_af[pz_u][0] = pz_pack16(pz_kernel_0_r0_read(r0, pz_e, (0) + pz_lo + (pz_r) * 1 + (pz_c) * 128), pz_kernel_0_r0_read(r0, pz_e, (0) + pz_lo + (pz_r) * 1 + (pz_c + 1) * 128));
                pz_af[pz_u][1] = pz_pack16(pz_kernel_0_r0_read(r0, pz_e, (0) + pz_lo + (pz_r + 8) * 1 + (pz_c) * 128), pz_kernel_0_r0_read(r0, pz_e, (0) + pz_lo + (pz_r + 8) * 1 + (pz_c + 1) * 128));
                pz_af[pz_u][2] = pz_pack16(pz_kernel_0_r0_read(r0, pz_e, (0) + pz_lo + (pz_r) * 1 + (pz_c + 8) * 128), pz_kernel_0_r0_read(r0, pz_e, (0) + pz_lo + (pz_r) * 1 + (pz_c + 8 + 1) * 128));
                pz_af[pz_u][3] = pz_pack16(pz_kernel_0_r0_read(r0, pz_e, (0) + pz_lo + (pz_r + 8) * 1 + (pz_c + 8) * 128), pz_kernel_0_r0_read(r0, pz_e, (0) + pz_lo + (pz_r + 8) * 1 + (pz_c + 8 + 1) * 128));
              }
              #pragma unroll
              for (int pz_v = 0; pz_v < 4; ++pz_v) {
                const long long pz_c = pz_n0 + pz_v * 8 + pz_gid, pz_r = pz_k + pz_tig * 2;
                pz_bf[pz_v][0] = pz_pack16(pz_kernel_0_r1_read(r1, pz_e, (0) + pz_ro + (pz_r) * 1 + (pz_c) * 256), pz_kernel_0_r1_read(r1, pz_e, (0) + pz_ro + (pz_r + 1) * 1 + (pz_c) * 256));
                pz_bf[pz_v][1] = pz_pack16(pz_kernel_0_r1_read(r1, pz_e, (0) + pz_ro + (pz_r + 8) * 1 + (pz_c) * 256), pz_kernel_0_r1_read(r1, pz_e, (0) + pz_ro + (pz_r + 9) * 1 + (pz_c) * 256));
              }
              #pragma unroll
              for (int pz_u = 0; pz_u < 2; ++pz_u) {
                #pragma unroll
                for (int pz_v = 0; pz_v < 4; ++pz_v) {
                  pz_mma_bf16(pz_d[pz_u][pz_v][0], pz_d[pz_u][pz_v][1], pz_d[pz_u][pz_v][2], pz_d[pz_u][pz_v][3], pz_af[pz_u][0], pz_af[pz_u][1], pz_af[pz_u][2], pz_af[pz_u][3], pz_bf[pz_v][0], pz_bf[pz_v][1]);
                }
              }
            }
            #pragma unroll
            for (int pz_u = 0; pz_u < 2; ++pz_u) {
              #pragma unroll
              for (int pz_v0 = 0; pz_v0 < 4; ++pz_v0) {
                #pragma unroll
                for (int pz_q = 0; pz_q < 4; ++pz_q) {
                  const int pz_v = (pz_v0 + pz_gid) & 3, pz_h = (pz_q & 1) ^ (pz_gid >> 2);
                  const long long pz_r = pz_m0 + pz_u * 16 + pz_gid + (pz_q >> 1) * 8, pz_c = pz_n0 + pz_v * 8 + pz_tig * 2 + pz_h;
                  v2[pz_b * 16384 + (pz_r) * 128 + (pz_c)] = (pz_h ? pz_pick4(pz_d[pz_u][0][(pz_q & 2) | 1], pz_d[pz_u][1][(pz_q & 2) | 1], pz_d[pz_u][2][(pz_q & 2) | 1], pz_d[pz_u][3][(pz_q & 2) | 1], pz_v) : pz_pick4(pz_d[pz_u][0][pz_q & 2], pz_d[pz_u][1][pz_q & 2], pz_d[pz_u][2][pz_q & 2], pz_d[pz_u][3][pz_q & 2], pz_v));
                }
              }
            }
          }
        }
      }
      __syncthreads();
      #else
      {  // the product in tiles: each thread a 4 x 4 tile of the result at a time
        const int pz_tx_n = blockDim.x < 32 ? blockDim.x : 32, pz_ty_n = blockDim.x / pz_tx_n;
        const int pz_tx = threadIdx.x % pz_tx_n, pz_ty = threadIdx.x / pz_tx_n;
        const long long pz_bm = pz_ty_n * 4, pz_bn = pz_tx_n * 4;
        const long long pz_tm = (128 + pz_bm - 1) / pz_bm, pz_tn = (128 + pz_bn - 1) / pz_bn;
        for (long long pz_tile = 0; pz_tile < 1 * pz_tm * pz_tn; ++pz_tile) {
          const long long pz_b = pz_tile / (pz_tm * pz_tn), pz_mn = pz_tile % (pz_tm * pz_tn);
          const long long pz_m0 = pz_mn / pz_tn * pz_bm + pz_ty, pz_n0 = pz_mn % pz_tn * pz_bn + pz_tx;
          long long pz_row[4], pz_col[4];
          #pragma unroll
          for (int pz_u = 0; pz_u < 4; ++pz_u) {
            pz_row[pz_u] = pz_m0 + pz_u * pz_ty_n < 128 ? pz_m0 + pz_u * pz_ty_n : 127;
            pz_col[pz_u] = pz_n0 + pz_u * pz_tx_n < 128 ? pz_n0 + pz_u * pz_tx_n : 127;
          }
          float pz_acc[4][4] = {};
          #pragma unroll 4
          for (long long pz_k = 0; pz_k < 256; ++pz_k) {
            float pz_a[4], pz_bv[4];
            #pragma unroll
            for (int pz_u = 0; pz_u < 4; ++pz_u) {
              pz_a[pz_u] = pz_bf16_f32(pz_kernel_0_r0_read(r0, pz_e, (0) + pz_b * 0 + pz_row[pz_u] * 1 + pz_k * 128));
              pz_bv[pz_u] = pz_bf16_f32(pz_kernel_0_r1_read(r1, pz_e, (0) + pz_b * 0 + pz_k * 1 + pz_col[pz_u] * 256));
            }
            #pragma unroll
            for (int pz_u = 0; pz_u < 4; ++pz_u) {
              #pragma unroll
              for (int pz_v = 0; pz_v < 4; ++pz_v) {
                pz_acc[pz_u][pz_v] = fmaf(pz_a[pz_u], pz_bv[pz_v], pz_acc[pz_u][pz_v]);
              }
            }
          }
          #pragma unroll
          for (int pz_u = 0; pz_u < 4; ++pz_u) {
            #pragma unroll
            for (int pz_v = 0; pz_v < 4; ++pz_v) {
              if (pz_m0 + pz_u * pz_ty_n < 128 && pz_n0 + pz_v * pz_tx_n < 128) {
                v2[pz_b * 16384 + (pz_row[pz_u]) * 128 + (pz_col[pz_v])] = pz_acc[pz_u][pz_v];
              }
            }
          }
        }
      }
      __syncthreads();
      #endif
      __syncthreads();
      for (int pz_i = threadIdx.x; pz_i < 16384; pz_i += blockDim.x) {
        pz_kernel_0_r2_write(r2, pz_e, pz_i, v2[pz_i]);
      }
      __syncthreads();
      __syncthreads();
      __syncthreads();
    }
  }
}

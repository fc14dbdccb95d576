#include "array/isa.h"

#include <cstdlib>
#include <cstring>

namespace pz::array {
namespace {

Isa Detect() {
  const char* forced = std::getenv("PZ_ISA");
  if (forced != nullptr && std::strcmp(forced, "baseline") == 0) return Isa::kBaseline;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::kAvx2Fma;
#endif
  return Isa::kBaseline;
}

}  // namespace

Isa RuntimeIsa() {
  static const Isa isa = Detect();
  return isa;
}

const char* IsaName(Isa isa) { return isa == Isa::kAvx2Fma ? "avx2+fma" : "baseline"; }

}  // namespace pz::array

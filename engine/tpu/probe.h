// Switches for re-running a program whose check failed, to learn why (never set in normal runs):
// trace where the first NaN or infinity was made from numbers that were not, and try a
// comparison with its strict / non-strict twin (`>` for `>=`, ...) to see whether an
// off-by-one mask or guard is the mistake.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "support/source.h"

namespace pz::tpu {

// The first primitive of a kernel that made a NaN out of operands that held none there, or an
// infinity out of finite operands.
struct NonFiniteOrigin {
  bool found = false;
  SourceSpan span;     // the primitive's instruction
  std::string prim;    // "sub", "exp", "dot_general", ...
  std::string kernel;  // the kernel function's name
  std::vector<int64_t> grid_point;
  std::vector<int64_t> element;  // in the primitive's result
  // The operands' values at that element, for primitives that work element by element; empty for
  // the others (reductions, products), whose operands were all finite.
  std::vector<double> operands;
  double result = 0;
};

struct Probe {
  // Trace NonFiniteOrigin (the executor checks the results of every primitive).
  bool trace_nonfinite = false;
  NonFiniteOrigin nonfinite;
  std::mutex mutex;  // megacore cores share the probe
  // Comparisons (lt, le, gt, ge) traced at these spans compute their twin instead.
  std::vector<SourceSpan> flipped;
};

}  // namespace pz::tpu

// Switches for re-running a program whose check failed, to learn why (never set in normal runs):
// trace where the first NaN or infinity was made from numbers that were not, and try a
// comparison with its strict / non-strict twin (`>` for `>=`, ...) to see whether an
// off-by-one mask or guard is the mistake.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "array/array.h"
#include "kernel/ir.h"
#include "support/source.h"

namespace pz::tpu {

// One instruction the kernel ran at the captured grid step, with copies of what it made, and
// which captured entries made its inputs.
struct CapturedValue {
  // The instruction (held by value: the traced kernel is gone once its call returns).
  kernel::Op op = kernel::Op::kConstant;
  kernel::RefId ref = -1;  // loads and stores
  SourceSpan span;
  std::vector<array::Array> results;  // empty for a store
  // Per operand (a store: the value stored, then its indices), the entry that made it (-1: a
  // region parameter or something made before the step, e.g. a loop's carry).
  std::vector<int64_t> operands;
  // A load: the entry of the last store into that ref earlier in the step (-1: none).
  int64_t stored_by = -1;
};

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

  // Capture every instruction the kernel of pallas_call number `capture_call` (counting from 0
  // in the order they run) executes at grid point `capture_point`, in execution order.
  int64_t capture_call = -1;
  std::vector<int64_t> capture_point;
  int64_t calls_started = 0;  // pallas_calls run so far under this probe
  std::vector<CapturedValue> captured;
  int64_t captured_bytes = 0;
  static constexpr int64_t kMaxCapturedBytes = int64_t{64} << 20;
  static constexpr size_t kMaxCaptured = 20000;
  // While capturing: the entry that made each value id, and the last store into each ref.
  std::unordered_map<kernel::ValueId, int64_t> producer;
  std::unordered_map<kernel::RefId, int64_t> last_store;
};

}  // namespace pz::tpu

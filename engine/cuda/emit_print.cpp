// Prints for the CUDA emitter: a jax.debug.print's operands go into a record of the kernel's log
// (emit.h), which the host replays in the emulator's order after the launch: by grid step, and
// within a step in the order the chain ran them.
#include <fmt/format.h>

#include "cuda/emit_internal.h"

namespace pz::cuda {

int64_t PrintOperandWords(const kernel::ValueType& t) {
  int64_t bytes =
      std::max<int64_t>(detail::Count(t.shape), 1) * static_cast<int64_t>(array::ItemSize(t.dtype));
  return (bytes + 7) / 8;
}

int64_t PrintRecordWords(const kernel::Function& kernel, const kernel::Instr& print) {
  int64_t words = kPrintHeaderWords;
  for (kernel::ValueId v : print.operands) words += PrintOperandWords(kernel.values.at(v));
  return words;
}

namespace detail {

void Emitter::EmitPrint(const Instr& instr) {
  // Thread 0 reads arrays other threads made: after the barrier.
  Sync();
  w_.Open("if (pz_log != nullptr && threadIdx.x == 0) {");
  w_.Line(fmt::format("unsigned long long* const pz_r = pz_log_reserve(pz_log, {});",
                      PrintRecordWords(f_, instr)));
  w_.Open("if (pz_r != nullptr) {");
  w_.Line(
      fmt::format("pz_r[0] = (unsigned long long)pz_step; pz_r[1] = pz_print_seq; pz_r[2] = {};",
                  Number(instr) + 1));
  int64_t at = kPrintHeaderWords;
  for (ValueId v : instr.operands) {
    const kernel::ValueType& t = TypeOf(v);
    std::string type = StorageType(t.dtype);
    if (t.shape.empty()) {
      w_.Line(fmt::format("*({}*)(pz_r + {}) = {};", type, at, StoreExpr(t.dtype, Name(v))));
    } else {
      w_.Line(
          fmt::format("for (long long pz_j = 0; pz_j < {}; ++pz_j) (({}*)(pz_r + {}))[pz_j] = "
                      "{}[pz_j];",
                      Count(t.shape), type, at, Name(v)));
    }
    at += PrintOperandWords(t);
  }
  w_.Close();
  w_.Close();
  w_.Line("++pz_print_seq;");
}

}  // namespace detail

}  // namespace pz::cuda

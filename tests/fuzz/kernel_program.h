// The program generator of `pz_fuzz_kernel`: fuzz bytes become a Pallas program (Python source
// in the syntax the puzzles use) that is valid by construction most of the time. The generator
// tracks the shape and dtype of every value, so stores fit their refs and index maps stay in
// range, except where a choice deliberately breaks a rule. It knows nothing of the engine.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <string>

namespace pz::fuzz {

// The emulator settings a program runs under (the flags of `pallas-puzzles run`).
struct KernelRunFlags {
  bool interpret = false;  // `--semantics interpret` (else `tpu`)
  bool two_cores = false;  // `--cores 2`
  bool lint = false;       // `--lint`
  bool stats = false;      // `--stats`
  bool eager_dma = false;  // `--dma eager`
};

struct KernelProgram {
  std::string source;  // a whole Python file: imports, kernel, inputs, pallas_call, prints
  KernelRunFlags flags;
  // The command line that runs `source` saved as `file` with the same flags.
  std::string CommandLine(const std::string& file) const;
};

// Consumes bytes from `data` (running out of bytes is fine: every later choice is the first).
KernelProgram GenerateKernelProgram(FuzzedDataProvider& data);

}  // namespace pz::fuzz

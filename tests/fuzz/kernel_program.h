// The program generator of `pz_fuzz_kernel`: fuzz bytes become a Pallas program (Python source
// in the syntax the puzzles use) that is valid by construction most of the time. The generator
// tracks the shape and dtype of every value, so stores fit their refs and index maps stay in
// range, except where a choice deliberately breaks a rule. It knows nothing of the engine.
#pragma once

#include <cstdint>
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

// Where the generator's choices come from: the fuzzer's bytes (kernel_fuzz.cpp) or a seeded
// stream (SeededChoices, for the CUDA backend's differential runs).
class Choices {
 public:
  virtual ~Choices() = default;
  // A value in [0, n), for n >= 2.
  virtual int Pick(int n) = 0;
};

// Choices from a 64-bit seed (splitmix64): the same seed gives the same program on every machine.
class SeededChoices final : public Choices {
 public:
  explicit SeededChoices(uint64_t seed) : state_(seed) {}
  int Pick(int n) override;

 private:
  uint64_t state_;
};

struct KernelProgram {
  std::string source;  // a whole Python file: imports, kernel, inputs, pallas_call, prints
  KernelRunFlags flags;
  // The command line that runs `source` saved as `file` with the same flags.
  std::string CommandLine(const std::string& file) const;
};

struct GeneratorOptions {
  // The first input is a 2-D block of 128 rows and 32, 64 or 128 columns (bfloat16 mostly), and
  // the body multiplies it early: products of the sizes whose tiles the CUDA backend stages and
  // runs on tensor cores, which the small arrays otherwise hardly ever reach.
  bool matrices = false;
};

// Draws every choice from `choices` (a byte source that runs out gives 0: every later choice is
// the first).
KernelProgram GenerateKernelProgram(Choices& choices, const GeneratorOptions& options = {});

}  // namespace pz::fuzz

// Block-size tuning (`pallas-puzzles tune`): a program whose block sizes (and shapes) are
// module-level assignments `NAME = value` is run once per combination of values, with each
// assignment's right-hand side replaced. A combination is rejected when the run fails a check or
// stops with an error, when the lint finds what a TPU would not compile (a block that breaks the
// (8, 128) tiling rule, more VMEM than the scoped limit), or when its calls need more VMEM than
// the generation has; the others are ranked by the roofline lower bound of all their calls
// (roofline.h). The result is a tuned table: a Python module keyed by (TPU version, dtype, shape
// bucket) with an `infer_block_sizes` helper and a default fallback, plus the raw results as CSV
// and JSON.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "course/roofline.h"
#include "course/runner.h"

namespace pz::course {

using Binding = std::pair<std::string, std::string>;  // NAME, the value's Python source

// A program with the spans of its module-level assignments to the names tune sets.
struct ProgramTemplate {
  std::filesystem::path file;
  std::string text;
  struct Slot {
    std::string name;
    uint32_t begin = 0, end = 0;  // the right-hand side's bytes in `text`
    std::string original;         // its source
  };
  std::vector<Slot> slots;
};

// Reads `file` and finds one module-level `NAME = value` for each of `names`; the error's text
// when the file cannot be read or parsed, or a name has no such assignment.
std::optional<std::string> LoadTemplate(const std::filesystem::path& file,
                                        const std::vector<std::string>& names,
                                        ProgramTemplate& out);
// The program with the bound names' right-hand sides replaced.
std::string Instantiate(const ProgramTemplate& program, const std::vector<Binding>& bindings);

struct TuneSpec {
  std::vector<std::pair<std::string, std::vector<std::string>>> params;  // --param
  std::vector<std::vector<Binding>> shapes;  // --shapes points (one empty point without)
  RooflineTarget target;
  RunOptions run;  // the emulator's chip and cores, limits
};

struct TuneResult {
  std::vector<Binding> shape, params;
  bool ok = false;
  std::string reason;  // why it was rejected
  std::string dtype;   // the table key's dtype name
  double bound_s = 0;  // the sum of its calls' lower bounds
  int64_t grid_steps = 0, flops = 0, hbm_bytes = 0, vmem_bytes = 0;
  int rank = 0;  // 1 = fastest of its shape point; 0 when rejected
};

// Runs every combination of every shape point; `progress` hears of each result as it comes.
std::vector<TuneResult> RunTune(
    const TuneSpec& spec, const ProgramTemplate& program,
    const std::function<void(size_t done, size_t total, const TuneResult&)>& progress);

// The tuned table as a Python module; `command` is the command line that made it.
std::string TunedTableModule(const TuneSpec& spec, const ProgramTemplate& program,
                             const std::vector<TuneResult>& results, const std::string& command);
std::string TuneCsv(const TuneSpec& spec, const std::vector<TuneResult>& results);
std::string TuneJson(const TuneSpec& spec, const ProgramTemplate& program,
                     const std::vector<TuneResult>& results);
// The ranking per shape point, as text.
std::string TuneSummary(const TuneSpec& spec, const std::vector<TuneResult>& results);

// `n` rounded up to a power of two (1 for n <= 1): the shape buckets of the table.
int64_t BucketOf(int64_t n);

}  // namespace pz::course

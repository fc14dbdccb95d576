// Why a puzzle's check fails, found by running the learner's file and the solution on the same
// inputs with step records (tpu/step_record.h) and walking both in lockstep: the first call
// configured differently (grid, block shapes, index maps, scratch), the first operand that
// differs, or the first grid step after which a scratch buffer (or an output block, at its
// write-back) holds other values than the solution's. On top of that place, named patterns say
// why when the values show it: an accumulator carried over from the previous output block, a
// running sum not rescaled, a store under a `pl.when` that never ran.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "course/runner.h"

namespace pz::course {

struct Divergence {
  std::string summary;                // one line: "after grid step (0, 1), `acc_ref` differs ..."
  std::vector<std::string> lines;     // the explanation, each line without indentation
  std::vector<std::string> patterns;  // the named patterns recognised, e.g. "carried-over"
};

// Compares the learner's `program` with `solution` (both run with `options`, without printing).
// nullopt when there is nothing to tell: the program does not fail a check, the solution does
// not pass, or neither runs a pallas_call.
std::optional<Divergence> FindDivergence(const std::filesystem::path& program,
                                         const std::filesystem::path& solution,
                                         const RunOptions& options);

// The explanation as check output: a heading and indented lines.
std::string FormatDivergence(const Divergence& divergence);

}  // namespace pz::course

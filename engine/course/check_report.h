// What one check of a program found, as a value: `check(...)`, `check_saves`, `check_counts`
// and `check_overlap` each produce a CheckReport. The text a learner reads is rendered from it
// once (RenderCheck), and `check --json` and `verify` read its fields instead of the text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "support/source.h"

namespace pz::course {

// The first element where a result and its reference differ.
struct Mismatch {
  std::vector<int64_t> index;  // in the output
  std::vector<int64_t> block;  // the output block holding it (empty without a block map)
  std::string expected, got;   // as printed ("0.182715", "nan", "7")
};

struct CheckReport {
  enum class Status { kPassed, kFailed, kSkipped };

  std::string name;
  Status status = Status::kPassed;
  SourceSpan span;     // the check's call
  bool values = true;  // compares values (`check`); false for what the emulator counted
  // One line: "37 of 8192 elements differ (atol 1e-05, rtol 1e-05)", "(64, 256) float32, max abs
  // error 1.79e-07", ...
  std::string summary;
  // The explanation under the summary, one entry per printed line (indented as printed).
  std::vector<std::string> lines;
  // Findings of a value check, from its first failing output:
  std::optional<Mismatch> first_mismatch;
  std::string block_map_operand;        // the kernel parameter the map shows ("o_ref")
  std::vector<std::string> block_map;   // the map's lines ("" when none was drawn)
  std::string block_map_shown_in;       // an earlier check that drew the same map instead
  std::vector<std::string> provenance;  // where NaN came from (uninitialised memory, padding)
  // The result holds NaN or infinities that uninitialised memory does not explain.
  bool nonfinite = false;

  bool passed() const { return status != Status::kFailed; }
};

std::string_view StatusWord(CheckReport::Status status);  // "PASSED", "FAILED", "SKIPPED"

// The text a check prints: "PASSED name: summary" and the explanation's lines; with `color`,
// the status word in green, red or yellow.
std::string RenderCheck(const CheckReport& report, bool color = false);

}  // namespace pz::course

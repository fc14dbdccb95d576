// What FindDivergence does beyond comparing two step records: re-runs of the learner's program
// (and the solution's) under a tpu::Probe, to say why where no named pattern does. Internal to
// divergence.cpp and divergence_trials.cpp.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "course/divergence.h"
#include "course/eager_record.h"
#include "course/runner.h"
#include "tpu/step_record.h"

namespace pz::course {

// A program run with step records, and the files its spans point into.
struct Recorded {
  PuzzleRun run;
  std::vector<tpu::CallRecording> calls;
  std::shared_ptr<EagerRecord> eager;  // the eager steps around the kernels

  const SourceManager& sources() const { return *run.sources; }
  // "line 86" ("?" for an invalid span).
  std::string Line(SourceSpan span) const;
  // The trimmed text of the line `span` starts on.
  std::string LineText(SourceSpan span) const;
  // "line 86: corr = jnp.exp(m_old - m_new)".
  std::string At(SourceSpan span) const;
};

// Helpers the divergence files share (divergence_trials.cpp).
// Whether two arrays of one shape hold the same numbers within the tolerance that tells
// rounding from another computation (1e-5 abs, 1e-4 rel); NaN matches NaN.
bool SameValues(const array::Array& a, const array::Array& b);
// Whether every element of `a` is the same number (true for a lone one; NaN counts as one
// number): such a value is made everywhere, and matching it proves nothing.
bool UniformArray(const array::Array& a);
// "`add`", "`add` and `mul`", "`add`, `mul` and `exp`".
std::string JoinWords(const std::vector<std::string>& words);

// Tries each integer comparison of the learner's kernels with its strict / non-strict twin; when
// one flip makes every check pass, says so in `d`: the mask or guard there is off by one.
void TryFlippedComparisons(const std::filesystem::path& program, const RunOptions& options,
                           const Recorded& me, Divergence& d);

// The same for the comparisons written in the editable regions of the learner's file, outside
// its kernels too (plain Python and jax.numpy code): each is swapped in the program's text.
// True when one flip makes every check pass (said in `d`).
bool TryFlippedSourceComparisons(const std::filesystem::path& program, const RunOptions& options,
                                 const Recorded& me, Divergence& d);

// Why a failed `check_counts` fails: the measured counter part by part (each primitive's cost
// times its runs, each operand's block fetches or write-backs), shown only where the parts add
// up to the measured number, and the parts that make up the difference from the learner's
// formula named (count_breakdown.cpp). nullopt when no counted check can be broken down.
std::optional<Divergence> ExplainCounts(const Recorded& me);

// Both kernels run grid step `point` of call `call` again with every value captured. Where the
// learner's kernel wrote `ref` there, the wrong value is followed back to the first value the
// solution's kernel never computes while everything it is made from is one the solution has;
// where only the solution's kernel wrote it, the guarded writes that did not run are named.
void TraceFirstWrongValue(const std::filesystem::path& program,
                          const std::filesystem::path& solution, const RunOptions& options,
                          size_t call, const std::vector<int64_t>& point, kernel::RefId ref,
                          const Recorded& me, const Recorded& sol, Divergence& d);

}  // namespace pz::course

// The jax.numpy work a program does outside its kernels, recorded so that a wrong result can be
// followed back to where the learner's code first parts from the solution's. While a program runs
// under an EagerRecord (RunOptions::eager), every eager primitive at the top level reports its
// operands, its results and the line that ran it; each result is kept (up to a byte budget) with
// the step that made it, so the values form a graph. The solution's run is recorded the same way;
// FollowEagerValue walks the learner's graph back from a wrong value to the first value the
// solution never computes although every operand it is made from is one the solution has.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "array/prims.h"
#include "support/source.h"

namespace pz::eval {
class Environment;
class FunctionObject;
class Interpreter;
}  // namespace pz::eval

namespace pz::course {

struct Divergence;
struct Recorded;

class EagerRecord final : public array::PrimRecorder {
 public:
  struct Step {
    array::PrimCall call;
    SourceSpan span;      // the line of the program that ran it
    std::vector<int> in;  // slots of the operands; -1 where no recorded step made one
    std::vector<array::Array> in_values;
    std::vector<int> out;  // slots of the results
  };
  struct Slot {
    array::Array value;
    int producer = -1;  // the step that made it
  };

  explicit EagerRecord(int64_t budget_bytes = int64_t{128} << 20) : budget_(budget_bytes) {}

  // The interpreter whose current line each primitive is recorded with; null when the run ends.
  void Attach(const eval::Interpreter* interp) { interp_ = interp; }
  void Record(array::PrimCall call, const std::vector<array::Array>& inputs,
              const std::vector<array::Array>& outputs) override;

  // The slot holding exactly this view of storage; else the latest one with the same bits,
  // unless every element is the same number.
  int Find(const array::Array& value) const;
  // Whether this run computed `value` (a primitive's result or an operand it used), within the
  // tolerance that tells rounding from a different computation. A lone number matches only a
  // computed one that is not a plain constant.
  bool Computes(const array::Array& value) const;

  // Whether a step of primitive `prim` made exactly `value` (its bits).
  bool Makes(array::Prim prim, const array::Array& value) const;
  // The steps that took exactly `value` (its bits) as an operand, in the order they ran.
  std::vector<int> ConsumersOf(const array::Array& value) const;

  const std::vector<Step>& steps() const { return steps_; }
  const std::vector<Slot>& slots() const { return slots_; }
  bool truncated() const { return truncated_; }

  // Per check of the run, indexed like PuzzleRun::checks: each output a `check` compared, where
  // it is an array (the harness fills it while the record is attached; empty for other checks).
  std::vector<std::vector<std::optional<array::Array>>> actuals;
  // A failed `check_counts`: the recording (StepRecorder::calls) of the call it measured, and
  // each counter that differed with the number expected and the number measured.
  struct CountedCheck {
    int64_t call = -1;
    std::vector<std::tuple<std::string, int64_t, int64_t>> differ;
  };
  std::vector<CountedCheck> counted;  // indexed like PuzzleRun::checks

  // A call of a Python function (Interpreter::call_observer): what each parameter was bound to,
  // where that is an array or a number.
  struct Call {
    std::string function;   // the qualified name
    SourceSpan definition;  // its `def`
    SourceSpan site;        // the call
    struct Arg {
      std::string name;
      std::optional<array::Array> array;
      std::optional<double> number;
    };
    std::vector<Arg> args;
  };
  void RecordCall(const eval::FunctionObject& function, const eval::Environment& locals,
                  SourceSpan site);
  const std::vector<Call>& calls() const { return calls_; }

 private:
  using Key = std::tuple<const void*, int64_t, std::vector<int64_t>, std::vector<int64_t>, int>;
  static Key KeyOf(const array::Array& a);
  int NewSlot(const array::Array& value, int producer);
  static bool Matches(const array::Array& a, const array::Array& b);

  const eval::Interpreter* interp_ = nullptr;
  int64_t budget_;
  int64_t used_ = 0;
  bool truncated_ = false;
  std::vector<Step> steps_;
  std::vector<Slot> slots_;
  std::vector<Call> calls_;
  static constexpr size_t kMaxCalls = 20000;
  std::map<Key, int> index_;
  std::unordered_set<uint64_t> computed_;  // content hashes of the results
  std::unordered_set<uint64_t> bits_;      // and of the operands
};

// The first call from the learner's editable code into a function the puzzle gives (defined
// outside the regions) whose arguments differ from those of the solution's matching call (the
// same function, counted in order), said in `d`. False when every such call matches.
bool ExplainArguments(const Recorded& me, const Recorded& sol, Divergence& d);

// The content hash Computes uses for exact matches (shape, dtype and every element's bits).
uint64_t ContentHash(const array::Array& a);

// Follows the learner's wrong value `start` (a pallas_call operand or a checked result) back
// through the eager steps of `me` to the first one whose result the solution (`sol`) never
// computes while its operands are all values the solution has, and says so in `d`; or, where
// `start` itself is a value the solution computes on the way to `sol_result`, says that the
// solution goes on from there. False when the values show nothing (nothing recorded made it).
bool FollowEagerValue(const Recorded& me, const EagerRecord& mine, const EagerRecord& sol,
                      const array::Array& start, const std::optional<array::Array>& sol_result,
                      Divergence& d);

}  // namespace pz::course

// Recording an eager array computation as primitives: while a Recording is installed as the
// thread's array::PrimRecorder, every outermost primitive the computation calls is kept with
// its typed attributes, and its operands are traced back to the computation's inputs, to earlier
// primitives, or to constants it made itself. The kernel trace turns a recording into IR
// instructions (trace.cpp); Replay runs it again on other inputs, to check that it captured
// everything the computation did with its inputs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "array/prims.h"
#include "kernel/ir.h"

namespace pz::kernel {

class Recording final : public array::PrimRecorder {
 public:
  // A value the computation handled: an input, a constant, or a primitive's result.
  struct Slot {
    array::Array array;  // the value seen while recording (keeps its storage alive)
    ValueType type;
    int input = -1;     // index among the inputs, or -1
    int producer = -1;  // index of the step computing it, or -1
  };
  struct Step {
    array::PrimCall call;
    std::vector<int> in, out;  // slot indices
  };

  // Declares the next input (in order); returns its slot.
  int AddInput(const array::Array& value);
  void Record(array::PrimCall call, const std::vector<array::Array>& inputs,
              const std::vector<array::Array>& outputs) override;
  // The slot of a value the computation produced (a new constant slot for one it did not).
  int Find(const array::Array& value);

  const std::vector<Slot>& slots() const { return slots_; }
  const std::vector<Step>& steps() const { return steps_; }
  // Set when the computation derived a value from a recorded one without a primitive (a view
  // or copy the recording cannot follow): the recording is then unusable.
  const std::optional<std::string>& problem() const { return problem_; }

  // For each step, whether `results` depend on it.
  std::vector<bool> Live(const std::vector<int>& results) const;
  // Runs the live steps on `inputs` and returns the values of `results`.
  std::vector<array::Array> Replay(const std::vector<array::Array>& inputs,
                                   const std::vector<int>& results) const;

 private:
  using Key = std::tuple<const void*, int64_t, array::Shape, std::vector<int64_t>, array::DType>;
  static Key KeyOf(const array::Array& a);
  int NewSlot(const array::Array& value, int input, int producer);

  std::vector<Slot> slots_;
  std::vector<Step> steps_;
  std::map<Key, int> index_;
  std::unordered_set<const void*> storages_;  // buffers holding recorded values
  int inputs_ = 0;
  std::optional<std::string> problem_;
};

// True when both arrays have one shape and dtype and the same bytes (NaNs with equal bits).
bool SameBits(const array::Array& a, const array::Array& b);

}  // namespace pz::kernel

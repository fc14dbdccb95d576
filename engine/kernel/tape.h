// The tape of reverse-mode differentiation (autodiff.h): the primitive calls of an eager run that
// involve the values being differentiated, and the backward pass over them. Internal to the
// kernel layer's autodiff.cpp and custom_vjp.cpp.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "array/prims.h"
#include "eval/array_object.h"
#include "eval/interpreter.h"
#include "kernel/pytree.h"

namespace pz::kernel {

using array::Array;
using eval::Value;

class Tape;

// What a jax.custom_vjp call keeps for its backward pass; or, for a jax.custom_jvp call, the
// tape of its jvp rule's tangent computation (`linear`), whose backward pass is the transpose.
struct CustomRule {
  std::string name;              // the function's name, for messages
  Value bwd;                     // bwd(*nondiff, residuals, cotangents)
  std::shared_ptr<Tape> linear;  // custom_jvp: the tangents' computation
  std::vector<int> linear_in;    // its slots of the argument leaves' tangents (-1: none)
  std::vector<int> linear_out;   // its slots of the output leaves' tangents (-1: zero)
  std::vector<Value> nondiff;    // the nondiff arguments, in order
  Value residuals;
  TreeDef args_def;               // the tuple of differentiable arguments
  std::vector<Value> arg_leaves;  // its leaves
  TreeDef out_def;
  std::vector<Value> out_leaves;
};

// The primitives (and custom_vjp calls) of a computation that involve followed values, with
// their operands and results, in call order. A value is known by the exact view of storage it
// occupies; the tape keeps every value it follows alive, so that no storage is reused.
class Tape final : public array::PrimRecorder {
 public:
  struct Step {
    array::PrimCall call;
    std::shared_ptr<CustomRule> custom;  // set for a custom_vjp call
    std::vector<int> in, out;            // slots; -1 for a value the tape does not follow
    std::vector<Array> in_values, out_values;
  };

  // A new followed value (an input of the differentiated function).
  int AddInput(const Array& value) { return NewSlot(value); }

  // The slot of a followed value, or -1. A view of a followed value's storage that the tape
  // does not know (made without a primitive) is noted as the tape's problem.
  int Find(const Array& value);

  bool Follows(const Array& a) const override {
    return a.storage() != nullptr && index_.count(KeyOf(a)) != 0;
  }
  // A primitive call: kept when an operand is followed.
  void Record(array::PrimCall call, const std::vector<Array>& inputs,
              const std::vector<Array>& outputs) override;
  // A custom_vjp call with its (flattened) differentiable arguments `in` (slots, -1 where not
  // followed) and their values.
  void RecordCustom(std::shared_ptr<CustomRule> rule, std::vector<int> in,
                    std::vector<Array> in_values, const std::vector<Array>& outputs);

  const std::optional<std::string>& problem() const { return problem_; }

  // The cotangents of `wanted` slots given those of `seeded` slots (cotangents[i] for
  // seeded[i]); nullopt where a wanted slot receives none (it does not affect the seeded ones).
  std::vector<std::optional<Array>> Backward(Interpreter& interp, const std::vector<int>& seeded,
                                             const std::vector<Array>& cotangents,
                                             const std::vector<int>& wanted) const;

 private:
  using Key = std::tuple<const void*, int64_t, array::Shape, std::vector<int64_t>, array::DType>;
  static Key KeyOf(const Array& a) {
    return {a.storage(), a.offset(), a.shape(), a.strides(), a.dtype()};
  }
  int NewSlot(const Array& value);
  void AddStep(Step step, const std::vector<Array>& outputs);

  std::vector<Array> slots_;
  std::vector<Step> steps_;
  std::map<Key, int> index_;
  std::unordered_set<const void*> storages_;
  std::optional<std::string> problem_;
};

// The tape listening on this thread, or nullptr.
Tape* ActiveTape();

// True while jax.jvp records a backward pass (custom_vjp rules have no forward mode).
bool InJvpPass();
// Sets InJvpPass() for the object's lifetime.
class JvpPass {
 public:
  JvpPass();
  ~JvpPass();
  JvpPass(const JvpPass&) = delete;
  JvpPass& operator=(const JvpPass&) = delete;
};

// The cotangents of a custom_vjp step's differentiable argument leaves, from its bwd rule
// (custom_vjp.cpp).
std::vector<std::optional<Array>> CustomBackward(eval::Interpreter& interp, const CustomRule& rule,
                                                 const std::vector<Array>& out_values,
                                                 const std::vector<std::optional<Array>>& cts);

using eval::AvalString;
// A copy of `a` in storage of its own: a value the tape follows from here on, apart from `a`.
Array FreshCopy(const Array& a);
// A leaf of a differentiated argument as the array the function receives (JAX's canonical
// dtype: Python scalars are weak float32 / int32).
Array LeafArray(eval::Interpreter& interp, const Value& leaf);

}  // namespace pz::kernel

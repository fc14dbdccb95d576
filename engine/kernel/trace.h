// Tracing a kernel body or an index map into the IR, the way JAX traces a Pallas kernel: the
// Python function runs once with abstract values. Static things (ref.shape, Python loops over
// ints, pl.num_programs of a static grid) are ordinary Python values; pl.program_id and
// everything loaded from a ref are tracers, and every operation on a tracer appends an
// instruction to the Function being built. Using a tracer where Python needs a concrete value
// (`if`, `int()`, `range()`) raises the error JAX raises, with a hint naming the right tool.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "eval/array_object.h"
#include "eval/interpreter.h"
#include "eval/value.h"
#include "kernel/ir.h"

namespace pz::kernel {

// Exception types JAX uses for tracer misuse (all derive from TypeError, as in JAX), created
// once per interpreter and also importable from `jax.errors`.
struct TracerErrorTypes {
  eval::TypeObject* concretization;      // ConcretizationTypeError
  eval::TypeObject* bool_conversion;     // TracerBoolConversionError
  eval::TypeObject* integer_conversion;  // TracerIntegerConversionError
  eval::TypeObject* unexpected_tracer;   // UnexpectedTracerError
};
const TracerErrorTypes& TracerErrors(eval::Interpreter& interp);

struct TraceOptions {
  // What is traced, for messages: "kernel", "index map".
  std::string what = "kernel";
  // The pallas_call's name, for messages ("the kernel function in the pallas_call add_kernel").
  std::string call_name;
  // The pallas_call's grid (pl.num_programs, pl.program_id range checks).
  std::vector<int64_t> grid;
  // TPU rules at trace time: direct loads/stores of ANY refs are errors (the interpret mode of
  // JAX allows them).
  bool tpu_rules = true;
};

class Trace : public eval::TraceHooks, public std::enable_shared_from_this<Trace> {
 public:
  Trace(eval::Interpreter& interp, std::string name, TraceOptions options);

  eval::Interpreter& interp() { return interp_; }
  const TraceOptions& options() const { return options_; }
  Function& function() { return function_; }
  bool active() const { return active_; }

  // ---- Values ------------------------------------------------------------------------------
  ValueId NewValue(ValueType type);
  const ValueType& type(ValueId id) const { return function_.values[id]; }
  eval::Value MakeTracer(ValueId id);
  // The id of a tracer of this trace (raising UnexpectedTracerError for a tracer of a finished
  // trace or one defined in a region that is no longer open), or a Constant instruction for a
  // concrete array-like value (Python scalars are weakly typed). nullopt for other values.
  std::optional<ValueId> TryLift(const eval::Value& value);
  // Same, raising TypeError naming `what` for values that are not array-like.
  ValueId Lift(const eval::Value& value, std::string_view what);
  // A Constant instruction for an array.
  ValueId Constant(array::Array value);

  // ---- Instructions ------------------------------------------------------------------------
  // Appends an instruction to the open region at the current source span, with fresh results.
  Instr& Emit(Op op, std::vector<ValueId> operands, const std::vector<ValueType>& result_types);
  // Appends a primitive (its attributes and cost filled in), after checking that a TPU can
  // lower it when the trace follows TPU rules.
  Instr& EmitPrim(array::PrimCall call, std::vector<ValueId> operands,
                  const std::vector<ValueType>& result_types);
  // `id` converted to `dtype` (convert_element_type; the result is not weak).
  ValueId Convert(ValueId id, array::DType dtype);

  // An eager array computation over arrays standing for `operands`, as `RecordComputation`
  // runs it; returns the result arrays.
  using ArrayComputation =
      std::function<std::vector<array::Array>(const std::vector<array::Array>&)>;
  // Traces `compute` into primitives: runs it once on stand-ins of the operands' types while
  // recording the primitives it calls, checks the recording by replaying it on other
  // stand-ins against a second direct run, and appends the primitives the results depend on.
  // `what` names the computation in messages ("jax.numpy.sort"). Errors of the computation
  // propagate as they are (the eager op's errors, at the current span); a computation that
  // cannot be recorded, or one a TPU cannot lower under TPU rules, raises NotImplementedError.
  std::vector<ValueId> RecordComputation(std::string_view what,
                                         const std::vector<ValueId>& operands,
                                         const ArrayComputation& compute);
  // Runs `body` with a new region open: the region gets params of `param_types` (passed to
  // `body` as tracers) and yields the ids `body` returns.
  Region TraceRegion(const std::vector<ValueType>& param_types,
                     const std::function<std::vector<ValueId>(std::vector<eval::Value>)>& body);

  // ---- Refs --------------------------------------------------------------------------------
  RefId AddRef(RefType type);
  eval::Value MakeRef(RefId id);
  // The kernel's barrier semaphore (pltpu.get_barrier_semaphore), added on first use: a
  // kernel-wide semaphore that starts at zero and must be back at zero at the end.
  RefId BarrierSemaphore();

  // ---- TraceHooks --------------------------------------------------------------------------
  eval::Value TraceArrayFunction(
      eval::Interpreter& interp, const std::string& name,
      const std::function<eval::Value(eval::Interpreter&, eval::CallArgs&)>& fn,
      eval::CallArgs& args) override;
  void CheckConstant(eval::Interpreter& interp, const eval::ArrayObject& array) override;

  // Raises the error for a Python construct that needs a concrete value of a tracer.
  [[noreturn]] void RaiseConcretization(ValueId id, std::string_view construct);
  // Raises Mosaic's NotImplementedError for a primitive a TPU cannot lower.
  [[noreturn]] void RaiseUnlowerable(array::Prim prim, std::string_view what);
  // In `tpu` semantics, raises Mosaic's error for a call a TPU cannot lower (the primitive, or
  // its attributes); `what` is the function the user called.
  void CheckLowerable(const array::PrimCall& call, std::string_view what);

 private:
  friend class TraceScope;
  eval::Interpreter& interp_;
  TraceOptions options_;
  Function function_;
  std::vector<Region*> open_;    // innermost last
  std::vector<int> open_ids_;    // region ids of `open_`
  std::vector<int> defined_in_;  // per value: the region id defining it
  // The values of Constant instructions: RecordComputation runs on them as they are.
  std::unordered_map<ValueId, std::shared_ptr<const array::Array>> constant_values_;
  int next_region_id_ = 0;
  RefId barrier_ = -1;
  uint64_t start_serial_ = 0;
  bool active_ = false;
};

// Makes `trace` the interpreter's current trace for the scope's lifetime (restoring the
// previous hooks after), and marks it finished at the end.
class TraceScope {
 public:
  explicit TraceScope(Trace& trace);
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  Trace& trace_;
  eval::TraceHooks* previous_;
};

// The tracer a traced computation produced: shape and dtype are static, the value is not.
class TracerObject final : public eval::Object {
 public:
  TracerObject(std::shared_ptr<Trace> trace, ValueId id)
      : Object(eval::ObjectKind::kExtension), trace(std::move(trace)), id(id) {}
  std::string_view type_name() const override { return "Tracer"; }
  bool IsTracer() const override { return true; }
  std::string Repr(eval::Interpreter& interp) const override;
  std::optional<eval::Value> GetAttr(eval::Interpreter& interp, std::string_view name) override;
  std::optional<eval::Value> GetItem(eval::Interpreter& interp, const eval::Value& key) override;
  bool SetItem(eval::Interpreter& interp, const eval::Value& key,
               const eval::Value& value) override;
  std::optional<eval::Value> Binary(eval::Interpreter& interp, lang::BinOpKind op,
                                    const eval::Value& other, bool reflected) override;
  std::optional<eval::Value> Unary(eval::Interpreter& interp, lang::UnaryOpKind op) override;
  std::optional<eval::Value> Compare(eval::Interpreter& interp, lang::CmpOpKind op,
                                     const eval::Value& other, bool reflected) override;
  std::optional<bool> Truthy(eval::Interpreter& interp) override;
  std::optional<int64_t> Len(eval::Interpreter& interp) override;
  eval::ObjectRef Iter(eval::Interpreter& interp) override;
  std::optional<std::string> Format(eval::Interpreter& interp, std::string_view spec) override;

  const ValueType& type() const { return trace->type(id); }

  std::shared_ptr<Trace> trace;
  ValueId id;
};

// A kernel's view of a memory buffer (`x_ref`): a base ref and the `.at[...]` views applied to
// it. Indexing loads, item assignment stores; both record instructions.
class RefObject final : public eval::Object {
 public:
  RefObject(std::shared_ptr<Trace> trace, RefPath path, array::Shape shape)
      : Object(eval::ObjectKind::kExtension),
        trace(std::move(trace)),
        path(std::move(path)),
        shape(std::move(shape)) {}
  std::string_view type_name() const override { return "Ref"; }
  // Refs reach array functions through the trace too (`jnp.zeros_like(o_ref)`).
  bool IsTracer() const override { return true; }
  std::string Repr(eval::Interpreter& interp) const override;
  std::optional<eval::Value> GetAttr(eval::Interpreter& interp, std::string_view name) override;
  std::optional<eval::Value> GetItem(eval::Interpreter& interp, const eval::Value& key) override;
  bool SetItem(eval::Interpreter& interp, const eval::Value& key,
               const eval::Value& value) override;
  std::optional<bool> Truthy(eval::Interpreter& interp) override;

  const RefType& base() const { return trace->function().refs[path.ref]; }
  // The index `key` normalised against this view's shape (raising JAX's errors for static
  // out-of-bound indices and unsupported index kinds).
  Indexer ParseIndex(const eval::Value& key);
  // Loads ref[key] / stores `value` there (with the store rules: exact shape, exact dtype up to
  // weak-float and int-to-int casts).
  eval::Value Load(const eval::Value& key);
  void Store(const eval::Value& key, const eval::Value& value);

  std::shared_ptr<Trace> trace;
  RefPath path;        // indexers of the views applied so far
  array::Shape shape;  // after the views
};

// The trace a value belongs to if it is a tracer or ref, else nullptr.
Trace* TraceOf(const eval::Value& value);

}  // namespace pz::kernel

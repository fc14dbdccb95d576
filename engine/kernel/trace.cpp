// The trace: value and region bookkeeping, lifting of concrete values, the generic recording of
// array functions, and the Python protocol of tracers.
#include "kernel/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "array/creation.h"
#include "array/elementwise.h"
#include "array/linalg.h"
#include "kernel/record.h"

namespace pz::kernel {

using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

const TracerErrorTypes& TracerErrors(Interpreter& interp) {
  if (const TracerErrorTypes* made = interp.FindState<TracerErrorTypes>()) return *made;
  eval::TypeObject* type_error = interp.types().type_error;
  auto types = std::make_shared<TracerErrorTypes>();
  types->concretization = interp.NewExceptionType("ConcretizationTypeError", type_error);
  types->bool_conversion =
      interp.NewExceptionType("TracerBoolConversionError", types->concretization);
  types->integer_conversion = interp.NewExceptionType("TracerIntegerConversionError", type_error);
  types->unexpected_tracer = interp.NewExceptionType("UnexpectedTracerError", type_error);
  for (eval::TypeObject* t :
       {types->concretization, types->integer_conversion, types->unexpected_tracer}) {
    t->is_trace_error = true;
  }
  interp.SetState(types);
  return *types;
}

Trace::Trace(Interpreter& interp, std::string name, TraceOptions options)
    : interp_(interp), options_(std::move(options)) {
  function_.name = std::move(name);
  open_.push_back(&function_.body);
  open_ids_.push_back(next_region_id_++);
  start_serial_ = eval::ArrayObject::CurrentSerial();
}

TraceScope::TraceScope(Trace& trace) : trace_(trace), previous_(trace.interp().trace_hooks()) {
  trace_.interp().set_trace_hooks(&trace_);
  trace_.active_ = true;
}

TraceScope::~TraceScope() {
  trace_.interp().set_trace_hooks(previous_);
  trace_.active_ = false;
}

ValueId Trace::NewValue(ValueType type) {
  function_.values.push_back(std::move(type));
  defined_in_.push_back(open_ids_.back());
  return static_cast<ValueId>(function_.values.size() - 1);
}

Value Trace::MakeTracer(ValueId id) {
  return Value(std::make_shared<TracerObject>(shared_from_this(), id));
}

ValueId Trace::Constant(array::Array value) {
  ValueType type{.shape = value.shape(), .dtype = value.dtype(), .weak = value.weak_type()};
  Instr& instr = Emit(Op::kConstant, {}, {type});
  instr.constant = std::make_shared<const array::Array>(std::move(value));
  constant_values_[instr.results[0]] = instr.constant;
  return instr.results[0];
}

std::optional<ValueId> Trace::TryLift(const Value& value) {
  if (auto* tracer = value.as<TracerObject>()) {
    const TracerErrorTypes& errors = TracerErrors(interp_);
    if (tracer->trace.get() != this || !active_) {
      interp_.RaiseWithNotes(
          errors.unexpected_tracer,
          "Encountered an unexpected tracer: a value traced in another kernel or index map "
          "(or one that outlived its trace) was used here",
          {"a traced value only exists while its kernel is being traced; do not keep it in a "
           "global or pass it between kernels"});
    }
    if (std::find(open_ids_.begin(), open_ids_.end(), defined_in_[tracer->id]) == open_ids_.end()) {
      interp_.RaiseWithNotes(
          errors.unexpected_tracer,
          fmt::format("Encountered an unexpected tracer: {} was computed inside a branch or loop "
                      "body (pl.when, lax.cond, lax.fori_loop, ...) and is used outside it",
                      TypeToString(type(tracer->id))),
          {"return it from the body instead (a lax.cond result or a loop carry), or store it "
           "into a ref inside the body"});
    }
    return tracer->id;
  }
  if (auto* array = value.as<eval::ArrayObject>()) {
    CheckConstant(interp_, *array);
    return Constant(array->value);
  }
  if (value.is_bool() || value.is_int() || value.is_float()) {
    return Constant(eval::ToArray(interp_, value));
  }
  return std::nullopt;
}

ValueId Trace::Lift(const Value& value, std::string_view what) {
  if (std::optional<ValueId> id = TryLift(value)) return *id;
  if (value.as<RefObject>() != nullptr) {
    interp_.RaiseWithNotes(interp_.types().type_error,
                           fmt::format("{} is a Ref, not a value", what),
                           {"load the ref's contents first, e.g. `x_ref[...]`"});
  }
  interp_.Raise(interp_.types().type_error, fmt::format("{} must be an array or a number, not '{}'",
                                                        what, interp_.TypeName(value)));
}

Instr& Trace::Emit(Op op, std::vector<ValueId> operands,
                   const std::vector<ValueType>& result_types) {
  Instr instr;
  instr.op = op;
  instr.operands = std::move(operands);
  instr.span = interp_.current_span();
  for (const ValueType& type : result_types) instr.results.push_back(NewValue(type));
  Region& region = *open_.back();
  region.body.push_back(std::move(instr));
  return region.body.back();
}

Region Trace::TraceRegion(const std::vector<ValueType>& param_types,
                          const std::function<std::vector<ValueId>(std::vector<Value>)>& body) {
  Region region;
  open_.push_back(&region);
  open_ids_.push_back(next_region_id_++);
  struct Pop {
    Trace& t;
    ~Pop() {
      t.open_.pop_back();
      t.open_ids_.pop_back();
    }
  } pop{*this};
  std::vector<Value> params;
  for (const ValueType& type : param_types) {
    ValueId id = NewValue(type);
    region.params.push_back(id);
    params.push_back(MakeTracer(id));
  }
  region.yields = body(std::move(params));
  return region;
}

RefId Trace::AddRef(RefType type) {
  function_.refs.push_back(std::move(type));
  return static_cast<RefId>(function_.refs.size() - 1);
}

RefId Trace::BarrierSemaphore() {
  if (barrier_ < 0) {
    barrier_ = AddRef({.name = "barrier_semaphore",
                       .shape = {},
                       .dtype = array::DType::kInt32,
                       .space = MemorySpace::kSemaphore,
                       .role = RefRole::kScratch,
                       .semaphore = SemaphoreKind::kBarrier});
  }
  return barrier_;
}

Value Trace::MakeRef(RefId id) {
  return Value(std::make_shared<RefObject>(shared_from_this(), RefPath{.ref = id},
                                           function_.refs[id].shape));
}

void Trace::CheckConstant(Interpreter& interp, const eval::ArrayObject& array) {
  if (!active_ || array.serial > start_serial_ || array.value.rank() == 0) return;
  std::string type = TypeToString({.shape = array.value.shape(), .dtype = array.value.dtype()});
  if (options_.what == "kernel") {
    interp.RaiseWithNotes(
        interp.types().value_error,
        fmt::format("The kernel function in the pallas_call {} captures constants [{}]. You "
                    "should pass them as inputs.",
                    options_.call_name, type),
        {"a kernel may only use arrays it receives as refs (or builds itself, like "
         "`jnp.zeros`); pass this array to the pallas_call as an input with its own BlockSpec"});
  }
  interp.RaiseWithNotes(
      interp.types().value_error,
      fmt::format("Index map function {} for the pallas_call {} must not capture constants: [{}]",
                  function_.name, options_.call_name, type),
      {"index maps receive the grid indices (and scalar-prefetch refs); pass data they need "
       "through scalar prefetch"});
}

void Trace::RaiseConcretization(ValueId id, std::string_view construct) {
  const TracerErrorTypes& errors = TracerErrors(interp_);
  std::string traced = fmt::format("traced array with shape {}", [&] {
    const ValueType& t = type(id);
    std::string dims;
    for (size_t i = 0; i < t.shape.size(); ++i) dims += (i ? "," : "") + std::to_string(t.shape[i]);
    return fmt::format("{}[{}]", array::DTypeName(t.dtype), dims);
  }());
  if (construct == "bool") {
    interp_.RaiseWithNotes(
        errors.bool_conversion, fmt::format("Attempted boolean conversion of {}.", traced),
        {"this value is only known when the kernel runs, but Python's `if`, `while`, `and`, "
         "`or`, `not`, `min` and `max` need it now, while the kernel is traced",
         "use `pl.when(cond)` or `lax.cond` to branch, `jnp.where(cond, a, b)` to select "
         "values, `jnp.minimum`/`jnp.maximum` instead of `min`/`max`, and `lax.while_loop` "
         "for a loop with a traced condition"});
  }
  if (construct == "index") {
    interp_.RaiseWithNotes(
        errors.integer_conversion, fmt::format("The __index__() method was called on {}", traced),
        {"this value is only known when the kernel runs; `range()` and list indices need a "
         "Python int",
         "loop with `lax.fori_loop(lo, hi, body, carry)` or `pl.loop`, and index refs "
         "directly: `x_ref[i]`, `x_ref[pl.ds(i * n, n)]`"});
  }
  interp_.RaiseWithNotes(
      errors.concretization,
      fmt::format("Abstract tracer value encountered where concrete value is expected: {}", traced),
      {fmt::format("`{}` of a traced value is not possible: the value is only known when the "
                   "kernel runs",
                   construct),
       "keep it an array (e.g. `x.astype(jnp.int32)`), and use `lax.fori_loop` for loops with "
       "traced bounds"});
}

// ---- Generic recording of array functions ------------------------------------------------------

namespace {

// Where a tracer sat in a call's arguments.
struct Slot {
  bool keyword = false;
  size_t arg = 0;
  int item = -1;  // index inside a list/tuple argument, or -1
};

// Concrete stand-ins with a tracer's type, to run a computation on at trace time. The first
// (for the result types, errors and the recording) holds ones, which keep divisions and logs
// finite; the second (for checking the recording) holds small varied values, so that a step
// the recording missed changes the result.
array::Array StandIn(const ValueType& type, bool varied) {
  array::Array a;
  if (!varied) {
    a = array::Ones(type.shape, type.dtype);
  } else {
    // The values repeat with a period of 97, 5 or 3 elements: one period is converted to the
    // dtype, then copied over the array.
    bool floating = array::IsFloating(type.dtype), boolean = array::IsBool(type.dtype);
    int64_t period = floating ? 97 : boolean ? 5 : 3;
    std::vector<double> values(static_cast<size_t>(period));
    for (int64_t i = 0; i < period; ++i) {
      values[i] = floating  ? 1.0 + static_cast<double>((i * 7919 + 13) % 97) / 97.0
                  : boolean ? ((i * 7 + 3) % 5 < 2 ? 1 : 0)
                            : static_cast<double>((i * 5 + 2) % 3);
    }
    array::Array pattern = array::Array::FromDoubles(type.dtype, {period}, values);
    a = array::Array::Empty(type.dtype, type.shape);
    // The first period, then copies of all that is filled so far (each twice as long).
    size_t item = array::ItemSize(type.dtype);
    size_t total = static_cast<size_t>(a.size()) * item;
    std::memcpy(a.raw(), pattern.raw(), std::min(static_cast<size_t>(period) * item, total));
    for (size_t filled = static_cast<size_t>(period) * item; filled < total; filled *= 2) {
      std::memcpy(a.raw() + filled, a.raw(), std::min(filled, total - filled));
    }
  }
  a.set_weak_type(type.weak);
  return a;
}

Value* ArgAt(CallArgs& args, const Slot& slot) {
  return slot.keyword ? &args.keywords[slot.arg].second : &args.positional[slot.arg];
}

// Replaces the slots of `args` (a copy of the template) with `values`; list and tuple arguments
// holding slots are rebuilt, never mutated, since the template shares them.
void Fill(CallArgs& args, const std::vector<Slot>& slots, const std::vector<Value>& values) {
  std::vector<std::pair<Value*, std::vector<Value>>> rebuilt;
  for (size_t k = 0; k < slots.size(); ++k) {
    Value* arg = ArgAt(args, slots[k]);
    if (slots[k].item < 0) {
      *arg = values[k];
      continue;
    }
    auto it = std::find_if(rebuilt.begin(), rebuilt.end(),
                           [&](const auto& entry) { return entry.first == arg; });
    if (it == rebuilt.end()) {
      const std::vector<Value>* items = nullptr;
      if (auto* list = arg->as<eval::ListObject>()) items = &list->items;
      if (auto* tuple = arg->as<eval::TupleObject>()) items = &tuple->items;
      rebuilt.emplace_back(arg, *items);
      it = rebuilt.end() - 1;
    }
    it->second[slots[k].item] = values[k];
  }
  for (auto& [arg, items] : rebuilt) {
    *arg = arg->as<eval::ListObject>() != nullptr ? eval::MakeList(std::move(items))
                                                  : eval::MakeTuple(std::move(items));
  }
}

// The array leaves of a function result: the result itself, or the items of a list/tuple.
std::vector<int> ArrayLeaves(const Value& result) {
  if (result.as<eval::ArrayObject>() != nullptr) return {-1};
  std::vector<int> leaves;
  const std::vector<Value>* items = nullptr;
  if (auto* list = result.as<eval::ListObject>()) items = &list->items;
  if (auto* tuple = result.as<eval::TupleObject>()) items = &tuple->items;
  if (items != nullptr) {
    for (size_t i = 0; i < items->size(); ++i) {
      if ((*items)[i].as<eval::ArrayObject>() != nullptr) leaves.push_back(static_cast<int>(i));
    }
  }
  return leaves;
}

const array::Array& LeafArray(const Value& result, int leaf) {
  if (leaf < 0) return result.as<eval::ArrayObject>()->value;
  if (auto* list = result.as<eval::ListObject>()) {
    return list->items[leaf].as<eval::ArrayObject>()->value;
  }
  return result.as<eval::TupleObject>()->items[leaf].as<eval::ArrayObject>()->value;
}

}  // namespace

Value Trace::TraceArrayFunction(Interpreter& interp, const std::string& name,
                                const std::function<Value(Interpreter&, CallArgs&)>& fn,
                                CallArgs& args) {
  // Refs only stand for their shape and dtype (`jnp.zeros_like(o_ref)`); anything else needs
  // the ref's value, which must be loaded explicitly.
  bool like = name.size() > 5 && name.compare(name.size() - 5, 5, "_like") == 0;
  auto replace_refs = [&](Value& value) {
    auto* ref = value.as<RefObject>();
    if (ref == nullptr) return;
    if (!like) {
      interp.RaiseWithNotes(
          interp.types().type_error,
          fmt::format("{} was given the ref {}, not an array", name, ref->base().name),
          {fmt::format("load its value first: `{}[...]`", ref->base().name)});
    }
    value = eval::WrapArray(array::Zeros(ref->shape, ref->base().dtype));
  };
  bool has_refs = false;
  for (Value& v : args.positional) has_refs |= v.as<RefObject>() != nullptr;
  for (auto& kw : args.keywords) has_refs |= kw.second.as<RefObject>() != nullptr;
  if (has_refs) {
    CallArgs replaced = args;
    for (Value& v : replaced.positional) replace_refs(v);
    for (auto& kw : replaced.keywords) replace_refs(kw.second);
    bool tracers = false;
    for (const Value& v : replaced.positional) tracers |= v.as<TracerObject>() != nullptr;
    for (const auto& kw : replaced.keywords) tracers |= kw.second.as<TracerObject>() != nullptr;
    if (!tracers) return fn(interp, replaced);
    return TraceArrayFunction(interp, name, fn, replaced);
  }

  std::vector<Slot> slots;
  std::vector<ValueId> operands;
  auto visit = [&](const Value& value, Slot slot) {
    if (value.as<RefObject>() != nullptr) {
      interp.RaiseWithNotes(interp.types().type_error,
                            fmt::format("{} was given a ref, not an array", name),
                            {"load its value first: `x_ref[...]`"});
    }
    if (value.as<TracerObject>() != nullptr) {
      if (name.rfind("numpy.", 0) == 0) {
        interp.RaiseWithNotes(
            interp.types().type_error,
            fmt::format("The numpy.ndarray conversion method __array__() was called on a traced "
                        "array (in {})",
                        name),
            {"NumPy functions need concrete values; inside a kernel use the jax.numpy function "
             "of the same name"});
      }
      operands.push_back(Lift(value, "argument"));
      slots.push_back(slot);
    } else if (auto* array = value.as<eval::ArrayObject>()) {
      CheckConstant(interp, *array);
    }
  };
  auto visit_arg = [&](const Value& value, bool keyword, size_t arg) {
    visit(value, {.keyword = keyword, .arg = arg});
    const std::vector<Value>* items = nullptr;
    if (auto* list = value.as<eval::ListObject>()) items = &list->items;
    if (auto* tuple = value.as<eval::TupleObject>()) items = &tuple->items;
    if (items == nullptr) return;
    for (size_t i = 0; i < items->size(); ++i) {
      visit((*items)[i], {.keyword = keyword, .arg = arg, .item = static_cast<int>(i)});
    }
  };
  for (size_t i = 0; i < args.positional.size(); ++i) visit_arg(args.positional[i], false, i);
  for (size_t i = 0; i < args.keywords.size(); ++i) visit_arg(args.keywords[i].second, true, i);

  // Trace the function into primitives, as jax.numpy traces into lax. The first run on
  // stand-ins also gives the result's structure: a static answer (a shape, a dtype) has no
  // array leaves and is returned as it is.
  std::optional<Value> first;
  std::vector<int> leaves;
  auto compute = [&](const std::vector<array::Array>& inputs) {
    CallArgs call = args;
    std::vector<Value> values;
    values.reserve(inputs.size());
    for (const array::Array& a : inputs) values.push_back(eval::WrapArray(a));
    Fill(call, slots, values);
    Value out = fn(interp, call);
    if (!first) {
      first = out;
      leaves = ArrayLeaves(out);
    } else if (ArrayLeaves(out) != leaves) {
      return std::vector<array::Array>{};  // a different structure: the check fails
    }
    std::vector<array::Array> arrays;
    for (int leaf : leaves) arrays.push_back(LeafArray(out, leaf));
    return arrays;
  };
  std::vector<ValueId> results = RecordComputation(name, operands, compute);
  if (leaves.empty()) return *first;
  if (leaves.size() == 1 && leaves[0] < 0) return MakeTracer(results[0]);
  std::vector<Value> items;
  if (auto* list = first->as<eval::ListObject>()) items = list->items;
  if (auto* tuple = first->as<eval::TupleObject>()) items = tuple->items;
  for (size_t k = 0; k < leaves.size(); ++k) items[leaves[k]] = MakeTracer(results[k]);
  return first->as<eval::ListObject>() != nullptr ? eval::MakeList(std::move(items))
                                                  : eval::MakeTuple(std::move(items));
}

std::vector<ValueId> Trace::RecordComputation(std::string_view what,
                                              const std::vector<ValueId>& operands,
                                              const ArrayComputation& compute) {
  Recording recording;
  std::vector<array::Array> stand_ins;
  // Operands known at trace time (Python scalars, constants) take part with their values, so
  // that `x ** 2` records integer_pow with y = 2; traced operands are stood in for.
  auto stand_in = [&](ValueId id, bool varied) {
    auto constant = constant_values_.find(id);
    return constant != constant_values_.end() ? *constant->second : StandIn(type(id), varied);
  };
  for (ValueId id : operands) {
    stand_ins.push_back(stand_in(id, false));
    recording.AddInput(stand_ins.back());
  }
  std::vector<array::Array> arrays;
  {
    array::ScopedPrimRecorder scope(&recording);
    arrays = compute(stand_ins);
  }
  std::vector<int> result_slots;
  for (const array::Array& a : arrays) result_slots.push_back(recording.Find(a));
  auto untraceable = [&](const std::string& why) {
    interp_.RaiseWithNotes(
        interp_.types().not_implemented_error,
        fmt::format("{} cannot be traced inside a kernel by this emulator: {}", what, why),
        {"it computes something that is not made of the primitives the emulator records; "
         "compute it outside the kernel and pass the result in, or build it from jax.numpy "
         "arithmetic, reductions and jnp.where"});
  };
  if (recording.problem()) untraceable(*recording.problem());
  std::vector<bool> live = recording.Live(result_slots);
  const std::vector<Recording::Step>& steps = recording.steps();
  for (size_t s = 0; s < steps.size(); ++s) {
    if (live[s]) CheckLowerable(steps[s].call, what);
  }

  // The check: a second run on varied stand-ins against the recording replayed on them. A
  // computation that fails on those values is not checked.
  {
    std::vector<array::Array> varied;
    for (ValueId id : operands) varied.push_back(stand_in(id, true));
    std::optional<std::vector<array::Array>> direct;
    try {
      direct = compute(varied);
    } catch (const eval::PyError&) {
    } catch (const array::ArrayError&) {
    }
    if (direct) {
      bool same = direct->size() == result_slots.size();
      if (same) {
        try {
          std::vector<array::Array> replayed = recording.Replay(varied, result_slots);
          for (size_t i = 0; i < replayed.size() && same; ++i) {
            same = SameBits((*direct)[i], replayed[i]);
          }
        } catch (const array::ArrayError&) {
          same = false;
        }
      }
      if (!same) untraceable("its result depends on its inputs in a way that was not recorded");
    }
  }

  // The live steps become instructions.
  const std::vector<Recording::Slot>& slots = recording.slots();
  std::vector<ValueId> ids(slots.size(), kNoValue);
  auto id_of = [&](int slot) {
    if (ids[slot] == kNoValue) {
      const Recording::Slot& s = slots[slot];
      ids[slot] = s.input >= 0 ? operands[static_cast<size_t>(s.input)] : Constant(s.array);
    }
    return ids[slot];
  };
  for (size_t s = 0; s < steps.size(); ++s) {
    if (!live[s]) continue;
    std::vector<ValueId> in;
    for (int slot : steps[s].in) in.push_back(id_of(slot));
    std::vector<ValueType> types;
    for (int slot : steps[s].out) types.push_back(slots[slot].type);
    Instr& instr = EmitPrim(steps[s].call, std::move(in), types);
    for (size_t k = 0; k < steps[s].out.size(); ++k) ids[steps[s].out[k]] = instr.results[k];
  }
  std::vector<ValueId> results;
  for (int slot : result_slots) results.push_back(id_of(slot));
  return results;
}

Instr& Trace::EmitPrim(array::PrimCall call, std::vector<ValueId> operands,
                       const std::vector<ValueType>& result_types) {
  CheckLowerable(call, array::PrimName(call.prim));
  std::vector<ValueType> operand_types;
  for (ValueId id : operands) operand_types.push_back(type(id));
  Cost cost = PrimCostOf(call, operand_types, result_types);
  Instr& instr = Emit(OpOf(call.prim), std::move(operands), result_types);
  instr.prim = std::move(call);
  instr.cost = cost;
  return instr;
}

ValueId Trace::Convert(ValueId id, array::DType dtype) {
  ValueType result = type(id);
  result.dtype = dtype;
  result.weak = false;
  return EmitPrim({array::Prim::kConvertElementType, array::ConvertAttrs{dtype, false}}, {id},
                  {result})
      .results[0];
}

void Trace::CheckLowerable(const array::PrimCall& call, std::string_view what) {
  if (!options_.tpu_rules) return;
  if (!array::PrimLowersOnTpu(call.prim)) RaiseUnlowerable(call.prim, what);
  std::optional<array::TpuLimit> limit = array::TpuLoweringLimit(call);
  if (!limit) return;
  std::vector<std::string> notes;
  if (what != array::PrimName(call.prim)) {
    notes.push_back(fmt::format("{} records the primitive `{}` ({})", what,
                                array::PrimName(call.prim), array::AttrsToString(call)));
  }
  notes.push_back(std::move(limit->hint));
  interp_.RaiseWithNotes(interp_.types().assertion_error, limit->error, std::move(notes));
}

void Trace::RaiseUnlowerable(array::Prim prim, std::string_view what) {
  std::string_view name = array::PrimName(prim);
  std::vector<std::string> notes;
  if (what != name) {
    notes.push_back(fmt::format("{} records the primitive `{}`", what, name));
  }
  notes.push_back(
      "JAX's interpret mode (interpret=True) runs it, but Mosaic cannot compile it for a TPU; "
      "`--semantics interpret` emulates it anyway");
  interp_.RaiseWithNotes(interp_.types().not_implemented_error,
                         fmt::format("Unimplemented primitive in Pallas TPU lowering for tc: {}. "
                                     "Please file an issue at "
                                     "https://github.com/jax-ml/jax/issues/new/choose.",
                                     name),
                         std::move(notes));
}

Trace* TraceOf(const Value& value) {
  if (auto* tracer = value.as<TracerObject>()) return tracer->trace.get();
  if (auto* ref = value.as<RefObject>()) return ref->trace.get();
  return nullptr;
}

}  // namespace pz::kernel

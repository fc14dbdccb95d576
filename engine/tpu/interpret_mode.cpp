// pltpu's interpret-mode switches (see interpret_mode.h): InterpretParams with JAX's fields,
// defaults and checks, the global and scoped mode, and the mapping of the params onto the
// emulator's options for one call.
#include "tpu/interpret_mode.h"

#include <fmt/format.h>

#include <algorithm>

#include "eval/builtin_support.h"
#include "kernel/records.h"
#include "tpu/pallas_call.h"

namespace pz::tpu {

using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

namespace {

constexpr std::string_view kParamsType = "InterpretParams";

// InterpretParams' fields in JAX's order (its SharedInterpretParams base first), with defaults.
std::vector<std::pair<std::string, Value>> DefaultFields() {
  return {{"detect_races", Value::Bool(false)},
          {"out_of_bounds_reads", eval::MakeStr("raise")},
          {"skip_floating_point_ops", Value::Bool(false)},
          {"uninitialized_memory", eval::MakeStr("nan")},
          {"num_cores_or_threads", Value::Int(1)},
          {"vector_clock_size", Value()},
          {"logging_mode", Value()},
          {"dma_execution_mode", eval::MakeStr("on_wait")},
          {"random_seed", Value()},
          {"grid_point_recorder", Value()},
          {"allow_hbm_allocation_in_run_scoped", Value::Bool(false)},
          {"buffer_bounds", eval::MakeStr("logical")}};
}

std::string StrField(const kernel::RecordObject& params, std::string_view name) {
  auto* s = params.Get(name).as<eval::StrObject>();
  return s ? s->value : std::string();
}

// A string field must be one of `allowed` (JAX types them as Literals and fails later, at the
// call; we say so where the params are made).
void CheckChoice(Interpreter& interp, const kernel::RecordObject& params, std::string_view name,
                 std::initializer_list<std::string_view> allowed) {
  const Value& value = params.Get(name);
  auto* s = value.as<eval::StrObject>();
  if (s != nullptr && std::find(allowed.begin(), allowed.end(), s->value) != allowed.end()) return;
  std::string list;
  for (std::string_view a : allowed) list += fmt::format("{}'{}'", list.empty() ? "" : " or ", a);
  interp.Raise(interp.types().value_error, fmt::format("InterpretParams {} must be {}, got {}",
                                                       name, list, interp.Repr(value)));
}

Value MakeParams(Interpreter& interp, CallArgs& args) {
  if (!args.positional.empty()) {
    interp.Raise(interp.types().type_error,
                 fmt::format("InterpretParams.__init__() takes 1 positional argument but {} "
                             "were given",
                             args.positional.size() + 1));
  }
  std::vector<std::pair<std::string, Value>> fields = DefaultFields();
  for (const auto& [key, value] : args.keywords) {
    auto it = std::find_if(fields.begin(), fields.end(),
                           [&](const auto& field) { return field.first == key; });
    if (it == fields.end()) {
      interp.Raise(interp.types().type_error,
                   fmt::format("InterpretParams.__init__() got an unexpected keyword argument "
                               "'{}'",
                               key));
    }
    it->second = value;
  }
  auto params = std::make_shared<kernel::RecordObject>(std::string(kParamsType), fields);
  params->span = interp.current_span();
  const Value& cores = params->Get("num_cores_or_threads");
  if (!cores.is_int() || cores.as_int() < 1) {
    interp.Raise(interp.types().value_error,
                 fmt::format("Number of cores or threads must be at least 1, but got {}.",
                             interp.Repr(cores)));
  }
  const Value& clock = params->Get("vector_clock_size");
  if (clock.is_int() && clock.as_int() < 1) {
    interp.Raise(interp.types().value_error,
                 fmt::format("Vector clock size must be at least 1, but got {}.", clock.as_int()));
  }
  const Value& seed = params->Get("random_seed");
  if (!seed.is_none() && !seed.is_int()) {
    interp.Raise(interp.types().type_error,
                 fmt::format("InterpretParams random_seed must be an int or None, got {}",
                             interp.TypeName(seed)));
  }
  CheckChoice(interp, *params, "out_of_bounds_reads", {"raise", "uninitialized"});
  CheckChoice(interp, *params, "uninitialized_memory", {"nan", "zero"});
  CheckChoice(interp, *params, "dma_execution_mode", {"eager", "on_wait"});
  CheckChoice(interp, *params, "buffer_bounds", {"logical", "padded"});
  return Value(params);
}

// The params argument of set/force_tpu_interpret_mode: InterpretParams, or None (no mode).
Value ParamsArgument(Interpreter& interp, std::string_view function, CallArgs& args) {
  auto bound = eval::BindArgs(interp, function, args, {"params="});
  if (!bound[0]) {
    CallArgs defaults;
    return MakeParams(interp, defaults);
  }
  const Value& params = *bound[0];
  if (!params.is_none() && kernel::AsRecord(params, kParamsType) == nullptr) {
    interp.Raise(interp.types().type_error,
                 fmt::format("{}() takes a pltpu.InterpretParams (or None), got {}", function,
                             interp.TypeName(params)));
  }
  return params;
}

// `with pltpu.force_tpu_interpret_mode(params):` sets the mode for its body and restores the
// previous one on the way out, exception or not.
class ForcedModeObject final : public eval::Object {
 public:
  ForcedModeObject(EmulatorSession& session, Value params)
      : Object(eval::ObjectKind::kExtension), session_(session), params_(std::move(params)) {}
  std::string_view type_name() const override { return "_GeneratorContextManager"; }
  std::string Repr(Interpreter&) const override {
    return "<contextlib._GeneratorContextManager object>";
  }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override {
    auto self = std::static_pointer_cast<ForcedModeObject>(shared_from_this());
    if (name == "__enter__") {
      return interp.MakeBuiltin("__enter__", [self](Interpreter&, CallArgs&) {
        self->saved_.push_back(self->session_.interpret_params);
        self->session_.interpret_params = self->params_;
        return Value();
      });
    }
    if (name == "__exit__") {
      return interp.MakeBuiltin("__exit__", [self](Interpreter&, CallArgs&) {
        if (!self->saved_.empty()) {
          self->session_.interpret_params = self->saved_.back();
          self->saved_.pop_back();
        }
        return Value::Bool(false);
      });
    }
    return std::nullopt;
  }
  void ClearReferences() override {
    params_ = Value();
    saved_.clear();
  }

 private:
  EmulatorSession& session_;
  Value params_;
  std::vector<Value> saved_;
};

}  // namespace

void InstallInterpretMode(Interpreter& interp, EmulatorSession& session) {
  auto pltpu = interp.FindModule("jax.experimental.pallas.tpu");
  EmulatorSession* s = &session;
  pltpu->Set("InterpretParams", interp.MakeBuiltin("InterpretParams", MakeParams));
  pltpu->Set("set_tpu_interpret_mode",
             interp.MakeBuiltin("set_tpu_interpret_mode", [s](Interpreter& interp, CallArgs& args) {
               s->interpret_params = ParamsArgument(interp, "set_tpu_interpret_mode", args);
               return Value();
             }));
  pltpu->Set(
      "force_tpu_interpret_mode",
      interp.MakeBuiltin("force_tpu_interpret_mode", [s](Interpreter& interp, CallArgs& args) {
        Value params = ParamsArgument(interp, "force_tpu_interpret_mode", args);
        auto manager = std::make_shared<ForcedModeObject>(*s, params);
        interp.Track(manager);
        return Value(manager);
      }));
  // The emulator keeps no state between calls that an exception could leave behind.
  pltpu->Set(
      "reset_tpu_interpret_mode_state",
      interp.MakeBuiltin("reset_tpu_interpret_mode_state", [](Interpreter& interp, CallArgs& args) {
        eval::CheckArgCount(interp, "reset_tpu_interpret_mode_state", args, 0, 0);
        return Value();
      }));
}

EmulatorOptions OptionsForCall(Interpreter& interp, const EmulatorSession& session,
                               const Value& call_interpret, const EmulatorOptions& base) {
  const kernel::RecordObject* params = kernel::AsRecord(session.interpret_params, kParamsType);
  if (params == nullptr) params = kernel::AsRecord(call_interpret, kParamsType);
  if (params == nullptr) return base;
  // A field left at JAX's default keeps the command line's choice (`--dma`, `--cores`); a field
  // the program sets wins.
  EmulatorOptions options = base;
  if (StrField(*params, "dma_execution_mode") == "eager") options.dma_mode = DmaMode::kEager;
  if (StrField(*params, "uninitialized_memory") == "zero") {
    // Memory starts as zeros, as JAX's interpret mode then fills it; nothing is poison.
    options.zero_uninitialized = true;
    options.track_uninitialized = false;
  }
  if (StrField(*params, "out_of_bounds_reads") == "uninitialized") {
    options.out_of_bounds_reads_uninitialized = true;
  }
  // JAX's TPU interpret mode always visits the "parallel" axes in a shuffled order, drawn from
  // key(random_seed or 0).
  const Value& seed = params->Get("random_seed");
  options.parallel_order_seed = seed.is_int() ? static_cast<uint64_t>(seed.as_int()) : 0;
  int64_t cores = params->Get("num_cores_or_threads").as_int();
  if (cores > 2) {
    interp.RaiseWithNotes(
        interp.types().value_error,
        fmt::format("InterpretParams num_cores_or_threads={} is more TensorCores than the "
                    "emulator models",
                    cores),
        {"a TPU chip has one TensorCore, or two (the megacore of v4 and v5p); use 1 or 2"});
  }
  if (cores > 1 && base.semantics == Semantics::kTpu) options.cores = static_cast<int>(cores);
  return options;
}

}  // namespace pz::tpu

// The Pallas API objects and functions (see modules.h).
#include "kernel/modules.h"

#include <fmt/format.h>

#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "kernel/checkify.h"
#include "kernel/control_flow.h"
#include "kernel/cost_estimate.h"
#include "kernel/dma_api.h"
#include "kernel/prng_api.h"
#include "kernel/records.h"
#include "kernel/sharding.h"
#include "kernel/trace.h"
#include "kernel/transforms.h"
#include "support/check.h"

namespace pz::kernel {

using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

namespace {

// `pltpu.VMEM`, `pltpu.SMEM`, `pl.ANY`, ...: a memory space that, called with a shape and a
// dtype, describes a scratch buffer in it.
class MemorySpaceObject final : public eval::EnumMemberObject {
 public:
  using EnumMemberObject::EnumMemberObject;
  std::string_view type_name() const override { return "MemorySpace"; }
  std::string Repr(Interpreter&) const override { return "MemorySpace." + name; }
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override {
    auto bound = eval::BindArgs(interp, name, args, {"shape", "dtype"});
    eval::ToShape(interp, *bound[0]);
    return MakeRecord(
        "MemoryRef",
        {{"shape", *bound[0]},
         {"dtype", Value(std::make_shared<eval::DTypeObject>(eval::ToDType(interp, *bound[1])))},
         {"memory_space", Value(shared_from_this())}});
  }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view attr) override {
    if (attr == "like") {
      auto self = shared_from_this();
      return interp.MakeBuiltin("like", [self](Interpreter& interp, CallArgs& args) {
        auto bound = eval::BindArgs(interp, "like", args, {"x"});
        Value shape = interp.GetAttr(*bound[0], "shape");
        Value dtype = interp.GetAttr(*bound[0], "dtype");
        return interp.Call(Value(self), std::vector<Value>{shape, dtype});
      });
    }
    return EnumMemberObject::GetAttr(interp, attr);
  }
};

// A record constructor: binds `params` (BindArgs syntax) and stores every given argument, with
// `defaults` for the missing optional ones.
eval::BuiltinFunctionObject::Fn RecordConstructor(
    std::string type, std::vector<std::string> params,
    std::function<void(Interpreter&, std::vector<std::pair<std::string, Value>>&)> validate =
        nullptr) {
  return [type, params, validate](Interpreter& interp, CallArgs& args) {
    std::vector<std::string_view> names(params.begin(), params.end());
    std::vector<std::optional<Value>> bound;
    {
      // BindArgs takes an initializer_list; bind by hand with the same error behaviour.
      bound.resize(names.size());
      size_t positional_count = 0;
      std::vector<std::string> plain;
      bool keyword_only = false;
      for (std::string_view n : names) {
        if (n == "*") {
          keyword_only = true;
          continue;
        }
        std::string clean(n);
        if (!clean.empty() && clean.back() == '=') clean.pop_back();
        plain.push_back(clean);
        if (!keyword_only) ++positional_count;
      }
      bound.assign(plain.size(), std::nullopt);
      if (args.positional.size() > positional_count) {
        interp.Raise(interp.types().type_error,
                     fmt::format("{}() takes at most {} positional arguments ({} given)", type,
                                 positional_count, args.positional.size()));
      }
      for (size_t i = 0; i < args.positional.size(); ++i) bound[i] = args.positional[i];
      for (const auto& [key, value] : args.keywords) {
        auto it = std::find(plain.begin(), plain.end(), key);
        if (it == plain.end()) {
          interp.Raise(interp.types().type_error,
                       fmt::format("{}() got an unexpected keyword argument '{}'", type, key));
        }
        size_t k = static_cast<size_t>(it - plain.begin());
        if (bound[k]) {
          interp.Raise(interp.types().type_error,
                       fmt::format("{}() got multiple values for argument '{}'", type, key));
        }
        bound[k] = value;
      }
      std::vector<std::pair<std::string, Value>> fields;
      size_t k = 0;
      for (std::string_view n : names) {
        if (n == "*") continue;
        bool optional = n.back() == '=';
        if (!bound[k] && !optional) {
          interp.Raise(interp.types().type_error,
                       fmt::format("{}() missing required argument: '{}'", type, plain[k]));
        }
        fields.emplace_back(plain[k], bound[k].value_or(Value()));
        ++k;
      }
      if (validate) validate(interp, fields);
      Value record = MakeRecord(type, std::move(fields));
      record.as<RecordObject>()->span = args.span.valid() ? args.span : interp.current_span();
      return record;
    }
  };
}

Value& Field(std::vector<std::pair<std::string, Value>>& fields, std::string_view name) {
  for (auto& field : fields) {
    if (field.first == name) return field.second;
  }
  PZ_UNREACHABLE();
}

int64_t StaticAxis(Interpreter& interp, const Value& axis, const std::vector<int64_t>& grid,
                   const char* fn) {
  if (!axis.is_int()) {
    interp.Raise(
        interp.types().type_error,
        fmt::format("{}(axis) needs a static int axis, not '{}'", fn, interp.TypeName(axis)));
  }
  int64_t a = axis.as_int();
  if (a < 0 || a >= static_cast<int64_t>(grid.size())) {
    interp.RaiseWithNotes(
        interp.types().value_error,
        fmt::format(
            "{}({}) is out of range: the grid {} has {} axes", fn, a,
            [&] {
              std::string s = "(";
              for (size_t i = 0; i < grid.size(); ++i) {
                s += (i ? ", " : "") + std::to_string(grid[i]);
              }
              return s + (grid.size() == 1 ? ",)" : ")");
            }(),
            grid.size()),
        {"axes count from 0; the grid is set by `grid=` (or the grid spec) of the pallas_call"});
  }
  return a;
}

}  // namespace

void AddBuiltin(Interpreter& interp, eval::ModuleObject& module, const std::string& name,
                eval::BuiltinFunctionObject::Fn fn) {
  module.Set(name, interp.MakeBuiltin(module.name + "." + name, std::move(fn)));
}

void InstallKernelModules(Interpreter& interp) {
  auto jax = interp.FindModule("jax");
  auto lax = interp.FindModule("jax.lax");
  auto pl = interp.FindModule("jax.experimental.pallas");
  auto pltpu = interp.FindModule("jax.experimental.pallas.tpu");
  PZ_CHECK(jax && lax && pl && pltpu);

  // jax.errors and jax.debug
  const TracerErrorTypes& errors = TracerErrors(interp);
  auto errors_module = std::make_shared<eval::ModuleObject>("jax.errors");
  for (eval::TypeObject* type : {errors.concretization, errors.bool_conversion,
                                 errors.integer_conversion, errors.unexpected_tracer}) {
    errors_module->Set(type->name,
                       Value(std::static_pointer_cast<eval::TypeObject>(type->shared_from_this())));
  }
  interp.RegisterModule("jax.errors", errors_module);
  jax->Set("errors", Value(errors_module));
  auto debug = std::make_shared<eval::ModuleObject>("jax.debug");
  auto print_fn = [](Interpreter& interp, CallArgs& args) {
    if (args.positional.empty() || args.positional[0].as<eval::StrObject>() == nullptr) {
      interp.Raise(interp.types().type_error, "debug print needs a format string first");
    }
    std::string format = args.positional[0].as<eval::StrObject>()->value;
    std::vector<Value> rest(args.positional.begin() + 1, args.positional.end());
    std::vector<std::pair<std::string, Value>> keywords;
    for (const auto& kw : args.keywords) {
      if (kw.first != "ordered") keywords.push_back(kw);
    }
    DebugPrint(interp, format, rest, keywords);
    return Value();
  };
  AddBuiltin(interp, *debug, "print", print_fn);
  interp.RegisterModule("jax.debug", debug);
  jax->Set("debug", Value(debug));

  // jax.ShapeDtypeStruct, jax.jit (a pass-through: kernels here run without compilation)
  // jax.ShapeDtypeStruct: a class (its `like` makes one from anything with a shape and a dtype)
  // whose instances are records.
  auto make_struct = [](Interpreter& interp, eval::TypeObject&, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "ShapeDtypeStruct", args,
                                {"shape", "dtype", "*", "sharding=", "weak_type="});
    array::Shape shape = eval::ToShape(interp, *bound[0]);
    std::vector<Value> dims;
    for (int64_t d : shape) {
      if (d < 0) {
        interp.Raise(interp.types().value_error,
                     fmt::format("ShapeDtypeStruct shape must be non-negative, got {}",
                                 array::ShapeToString(shape)));
      }
      dims.push_back(Value::Int(d));
    }
    array::DType dtype = eval::ToDType(interp, *bound[1]);
    return MakeRecord("ShapeDtypeStruct",
                      {{"shape", eval::MakeTuple(std::move(dims))},
                       {"dtype", Value(std::make_shared<eval::DTypeObject>(dtype))}});
  };
  eval::TypeObject* shape_dtype_struct = interp.AdoptType(
      std::make_shared<eval::TypeObject>("ShapeDtypeStruct", interp.types().object, make_struct));
  shape_dtype_struct->module = "jax";
  shape_dtype_struct->Store(
      "like", interp.MakeBuiltin("like", [shape_dtype_struct](Interpreter& interp, CallArgs& args) {
        auto bound = eval::BindArgs(interp, "like", args, {"x"});
        Value shape = interp.GetAttr(*bound[0], "shape");
        Value dtype = interp.GetAttr(*bound[0], "dtype");
        return interp.Call(Value(shape_dtype_struct->shared_from_this()),
                           std::vector<Value>{shape, dtype});
      }));
  jax->Set("ShapeDtypeStruct", Value(shape_dtype_struct->shared_from_this()));

  // jax.Array: the class JAX arrays (not numpy's) and tracers are instances of.
  eval::TypeObject* array_type = interp.ExtensionType("Array");
  array_type->module = "jax";
  for (const char* name : {"ArrayImpl", "Tracer"}) interp.ExtensionType(name)->base = array_type;
  jax->Set("Array", Value(array_type->shared_from_this()));
  interp.FindModule("jax.numpy")->Set("ndarray", Value(array_type->shared_from_this()));
  // numpy.ndarray: the class of numpy's arrays (which are not jax.Arrays).
  eval::TypeObject* ndarray = interp.ExtensionType("ndarray");
  ndarray->module = "numpy";
  interp.FindModule("numpy")->Set("ndarray", Value(ndarray->shared_from_this()));
  // jax.typing: the names annotations use.
  auto typing = std::make_shared<eval::ModuleObject>("jax.typing");
  typing->Set("ArrayLike", Value(array_type->shared_from_this()));
  typing->Set("DTypeLike", Value(interp.types().object->shared_from_this()));
  interp.RegisterModule("jax.typing", typing);
  jax->Set("typing", Value(typing));
  // jax.lax control flow
  AddBuiltin(interp, *lax, "fori_loop", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "fori_loop", args,
                                {"lower", "upper", "body_fun", "init_val", "*", "unroll="});
    int64_t unroll = 1;
    if (bound[4] && bound[4]->is_integral()) unroll = bound[4]->integral();
    return ForiLoop(interp, *bound[0], *bound[1], *bound[2], *bound[3], unroll);
  });
  AddBuiltin(interp, *lax, "while_loop", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "while_loop", args, {"cond_fun", "body_fun", "init_val"});
    return WhileLoop(interp, *bound[0], *bound[1], *bound[2]);
  });
  AddBuiltin(interp, *lax, "cond", [](Interpreter& interp, CallArgs& args) {
    if (args.positional.size() < 3) {
      interp.Raise(interp.types().type_error,
                   "cond() needs pred, true_fun and false_fun (then the operands)");
    }
    std::vector<Value> operands(args.positional.begin() + 3, args.positional.end());
    return Cond(interp, args.positional[0], args.positional[1], args.positional[2], operands);
  });
  AddBuiltin(interp, *lax, "switch", [](Interpreter& interp, CallArgs& args) {
    if (args.positional.size() < 2) {
      interp.Raise(interp.types().type_error, "switch() needs index and branches");
    }
    std::vector<Value> branches = interp.ToVector(args.positional[1]);
    std::vector<Value> operands(args.positional.begin() + 2, args.positional.end());
    return Switch(interp, args.positional[0], branches, operands);
  });

  // pl: grid queries and helpers
  AddBuiltin(interp, *pl, "program_id", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "program_id", args, {"axis"});
    Trace* trace = CurrentTrace(interp);
    if (trace == nullptr) {
      interp.Raise(interp.types().runtime_error,
                   "pl.program_id can only be used inside a kernel passed to pl.pallas_call");
    }
    int64_t axis = StaticAxis(interp, *bound[0], trace->options().grid, "program_id");
    Instr& instr = trace->Emit(Op::kProgramId, {}, {{.shape = {}, .dtype = array::DType::kInt32}});
    instr.axis = static_cast<int>(axis);
    return trace->MakeTracer(instr.results[0]);
  });
  AddBuiltin(interp, *pl, "num_programs", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "num_programs", args, {"axis"});
    Trace* trace = CurrentTrace(interp);
    if (trace == nullptr) {
      interp.Raise(interp.types().runtime_error,
                   "pl.num_programs can only be used inside a kernel passed to pl.pallas_call");
    }
    int64_t axis = StaticAxis(interp, *bound[0], trace->options().grid, "num_programs");
    return Value::Int(trace->options().grid[axis]);
  });
  AddBuiltin(interp, *pl, "cdiv", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "cdiv", args, {"a", "b"});
    const Value& a = *bound[0];
    const Value& b = *bound[1];
    if (a.is_int() && b.is_int()) {
      if (b.as_int() == 0) interp.Raise(interp.types().zero_division_error, "cdiv by zero");
      int64_t x = a.as_int(), y = b.as_int();
      int64_t q = x / y;
      if ((x % y != 0) && ((x < 0) == (y < 0))) ++q;
      return Value::Int(q);
    }
    Value sum = interp.BinaryOp(lang::BinOpKind::kAdd, a, b);
    sum = interp.BinaryOp(lang::BinOpKind::kSub, sum, Value::Int(1));
    return interp.BinaryOp(lang::BinOpKind::kFloorDiv, sum, b);
  });
  AddBuiltin(interp, *pl, "multiple_of", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "multiple_of", args, {"x", "values"});
    return *bound[0];
  });
  auto when = [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "when", args, {"condition"});
    Value condition = *bound[0];
    return interp.MakeBuiltin("when", [condition](Interpreter& interp, CallArgs& inner) {
      auto f = eval::BindArgs(interp, "when(...)", inner, {"f"});
      When(interp, condition, *f[0]);
      return Value();
    });
  };
  AddBuiltin(interp, *pl, "when", when);
  AddBuiltin(interp, *pl, "loop", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "loop", args,
                                {"lower", "upper", "*", "step=", "unroll=", "init_carry="});
    Value lower = *bound[0], upper = *bound[1];
    Value step = bound[2].value_or(Value::Int(1));
    Value init = bound[4].value_or(Value());
    bool has_carry = bound[4].has_value() && !bound[4]->is_none();
    if (!step.is_int() || step.as_int() < 1) {
      interp.Raise(interp.types().value_error, "pl.loop step must be a positive static int");
    }
    return interp.MakeBuiltin(
        "loop", [lower, upper, step, init, has_carry](Interpreter& interp, CallArgs& inner) {
          auto f = eval::BindArgs(interp, "loop(...)", inner, {"body"});
          Value body = *f[0];
          // iterations = cdiv(upper - lower, step); i = lower + k * step
          Value span = interp.BinaryOp(lang::BinOpKind::kSub, upper, lower);
          Value count = interp.BinaryOp(
              lang::BinOpKind::kFloorDiv,
              interp.BinaryOp(lang::BinOpKind::kAdd, span, Value::Int(step.as_int() - 1)), step);
          auto wrapped = interp.MakeBuiltin(
              "loop_body", [body, lower, step, has_carry](Interpreter& interp, CallArgs& a) {
                Value i =
                    interp.BinaryOp(lang::BinOpKind::kAdd, lower,
                                    interp.BinaryOp(lang::BinOpKind::kMul, a.positional[0], step));
                if (has_carry) return interp.Call(body, std::vector<Value>{i, a.positional[1]});
                interp.Call(body, std::vector<Value>{i});
                return Value();
              });
          Value result = ForiLoop(interp, Value::Int(0), count, wrapped, init, 1);
          return has_carry ? result : Value();
        });
  });
  AddBuiltin(interp, *pl, "debug_print", [](Interpreter& interp, CallArgs& args) {
    if (args.positional.empty() || args.positional[0].as<eval::StrObject>() == nullptr) {
      interp.Raise(interp.types().type_error, "pl.debug_print needs a format string first");
    }
    std::string format = args.positional[0].as<eval::StrObject>()->value;
    std::vector<Value> rest(args.positional.begin() + 1, args.positional.end());
    DebugPrint(interp, format, rest, {});
    return Value();
  });
  auto ds = [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "ds", args, {"start", "size=", "stride="});
    Value start = *bound[0];
    Value size = bound[1].value_or(Value());
    if (start.is_none()) {  // pl.ds(None) is the whole dimension, `:`
      return Value(std::make_shared<eval::SliceObject>(Value(), Value(), Value()));
    }
    if (size.is_none()) {  // pl.ds(n) is pl.ds(0, n)
      size = start;
      start = Value::Int(0);
    }
    return MakeRecord(
        "Slice", {{"start", start}, {"size", size}, {"stride", bound[2].value_or(Value::Int(1))}});
  };
  AddBuiltin(interp, *pl, "ds", ds);
  AddBuiltin(interp, *pl, "dslice", ds);
  // pl.Slice: the class of what pl.ds makes (isinstance checks use it); called, it is pl.ds.
  eval::TypeObject* slice_type = interp.ExtensionType("Slice");
  slice_type->module = "jax.experimental.pallas";
  slice_type->constructor = [ds](Interpreter& interp, eval::TypeObject&, CallArgs& args) {
    return ds(interp, args);
  };
  pl->Set("Slice", Value(slice_type->shared_from_this()));

  // pl: specs
  AddBuiltin(interp, *pl, "BlockSpec",
             RecordConstructor("BlockSpec", {"block_shape=", "index_map=", "*",
                                             "memory_space=", "pipeline_mode=", "indexing_mode="}));
  AddBuiltin(
      interp, *pl, "GridSpec",
      RecordConstructor("GridSpec", {"grid=", "in_specs=", "out_specs=", "scratch_shapes="}));
  AddBuiltin(interp, *pltpu, "PrefetchScalarGridSpec",
             RecordConstructor(
                 "PrefetchScalarGridSpec",
                 {"num_scalar_prefetch", "grid=", "in_specs=", "out_specs=", "scratch_shapes="}));
  AddBuiltin(interp, *pl, "Blocked", RecordConstructor("Blocked", {"block_size"}));
  AddBuiltin(interp, *pl, "Element", RecordConstructor("Element", {"block_size", "padding="}));
  AddBuiltin(interp, *pl, "Squeezed", RecordConstructor("Squeezed", {}));
  pl->Set("squeezed", MakeRecord("Squeezed", {}));
  AddBuiltin(interp, *pl, "Buffered",
             RecordConstructor("Buffered", {"buffer_count=", "*", "use_lookahead="}));
  AddBuiltin(interp, *pl, "CostEstimate",
             RecordConstructor(
                 "CostEstimate",
                 {"flops", "transcendentals", "bytes_accessed", "*", "remote_bytes_transferred="},
                 [](Interpreter& interp, auto& fields) {
                   for (auto& [name, value] : fields) {
                     if (name != "remote_bytes_transferred" && !value.is_int()) {
                       interp.Raise(interp.types().value_error,
                                    fmt::format("CostEstimate {} must be a Python int, "
                                                "got {}",
                                                name, interp.TypeName(value)));
                     }
                   }
                 }));
  auto compiler_params = RecordConstructor(
      "CompilerParams",
      {"dimension_semantics=", "allow_input_fusion=", "vmem_limit_bytes=", "collective_id=",
       "flags=", "serialization_format=", "internal_scratch_in_bytes=", "kernel_type=",
       "disable_bounds_checks=", "has_side_effects=", "skip_device_barrier=",
       "needs_layout_passes=", "use_tc_tiling_on_sc="},
      [](Interpreter& interp, auto& fields) {
        Value& semantics = Field(fields, "dimension_semantics");
        if (semantics.is_none()) return;
        for (const Value& entry : interp.ToVector(semantics)) {
          auto* s = entry.as<eval::StrObject>();
          bool ok = s != nullptr && (s->value == "parallel" || s->value == "arbitrary" ||
                                     s->value == "core_parallel" || s->value == "subcore_parallel");
          if (!ok) {
            interp.Raise(interp.types().value_error,
                         fmt::format("dimension_semantics entries must be \"parallel\" or "
                                     "\"arbitrary\" (or core_parallel / subcore_parallel), got {}",
                                     interp.Repr(entry)));
          }
        }
      });
  AddBuiltin(interp, *pltpu, "CompilerParams", compiler_params);
  AddBuiltin(interp, *pltpu, "TPUCompilerParams", compiler_params);
  pltpu->Set("PARALLEL", eval::MakeStr("parallel"));
  pltpu->Set("ARBITRARY", eval::MakeStr("arbitrary"));
  pltpu->Set("CORE_PARALLEL", eval::MakeStr("core_parallel"));

  // Memory spaces.
  for (const char* name : {"VMEM", "SMEM", "ANY", "HBM", "SEMAPHORE", "HOST"}) {
    pltpu->Set(name, Value(std::make_shared<MemorySpaceObject>(name)));
  }
  pl->Set("ANY", Value(std::make_shared<MemorySpaceObject>("ANY")));
  pl->Set("HOST", Value(std::make_shared<MemorySpaceObject>("HOST")));
  auto memory_space_ns = std::make_shared<eval::ModuleObject>("MemorySpace");
  for (const char* name : {"VMEM", "SMEM", "ANY", "HBM", "SEMAPHORE"}) {
    memory_space_ns->Set(name, Value(std::make_shared<MemorySpaceObject>(name)));
  }
  pltpu->Set("MemorySpace", Value(memory_space_ns));
  pltpu->Set("TPUMemorySpace", Value(memory_space_ns));
  pl->Set("MemorySpace", Value(memory_space_ns));

  // pltpu value helpers.
  AddBuiltin(interp, *pltpu, "roll", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "roll", args,
                                {"x", "shift", "axis", "*", "stride=", "stride_axis="});
    if (bound[1]->is_int() && bound[1]->as_int() < 0) {
      interp.Raise(interp.types().value_error, "shift must be non-negative.");
    }
    if (bound[3] && !bound[3]->is_none()) {
      interp.Raise(interp.types().not_implemented_error,
                   "pltpu.roll with stride is not supported by this emulator yet");
    }
    auto jnp = interp.FindModule("jax.numpy");
    return interp.Call(jnp->attrs.at("roll"), CallArgs{.positional = {*bound[0], *bound[1]},
                                                       .keywords = {{"axis", *bound[2]}},
                                                       .span = interp.current_span()});
  });
  AddBuiltin(interp, *pltpu, "bitcast", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "bitcast", args, {"x", "ty"});
    array::DType from = eval::ToDType(interp, interp.GetAttr(*bound[0], "dtype"));
    array::DType to = eval::ToDType(interp, *bound[1]);
    if (array::ItemSize(from) != array::ItemSize(to)) {
      // Between widths, a TPU packs along the second-minor axis (its sublanes).
      interp.RaiseWithNotes(
          interp.types().not_implemented_error,
          fmt::format("pltpu.bitcast from {} to {} (different widths) is not supported by this "
                      "emulator yet",
                      array::DTypeName(from), array::DTypeName(to)),
          {"bitcast between dtypes of one width (float32 <-> int32 <-> uint32, ...) works"});
    }
    auto lax = interp.FindModule("jax.lax");
    return interp.Call(
        lax->attrs.at("bitcast_convert_type"),
        CallArgs{.positional = {*bound[0], *bound[1]}, .span = interp.current_span()});
  });
  AddBuiltin(interp, *pltpu, "repeat", [](Interpreter& interp, CallArgs& args) {
    // On a TPU, pltpu.repeat concatenates copies (jnp.tile semantics along one axis).
    auto bound = eval::BindArgs(interp, "repeat", args, {"x", "repeats", "axis"});
    int64_t n = eval::ToIndex(interp, *bound[1]);
    std::vector<Value> copies(static_cast<size_t>(std::max<int64_t>(n, 0)), *bound[0]);
    auto jnp = interp.FindModule("jax.numpy");
    return interp.Call(jnp->attrs.at("concatenate"),
                       CallArgs{.positional = {eval::MakeList(std::move(copies))},
                                .keywords = {{"axis", *bound[2]}},
                                .span = interp.current_span()});
  });

  InstallDmaApi(interp);
  InstallTransforms(interp);
  InstallCostEstimate(interp);
  InstallSharding(interp);
  InstallCheckify(interp);
  InstallPrngApi(interp);
}

}  // namespace pz::kernel

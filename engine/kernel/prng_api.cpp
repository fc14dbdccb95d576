// The core's random number generator in Pallas TPU (see prng_api.h). JAX builds the stateful
// samplers from jax.random's samplers with a key whose random_bits is prng_random_bits; here the
// draws are a PrngRandomBits instruction (int32, bitcast to uint32) and the sampler's second half
// is the same primitive jax.random's own samplers record (random_uniform, random_normal).
#include "kernel/prng_api.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "array/prims.h"
#include "array/random.h"
#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "kernel/control_flow.h"
#include "kernel/modules.h"
#include "kernel/trace.h"

namespace pz::kernel {

using array::DType;
using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

namespace {

// The kernel being traced, for an API that only a TPU kernel can call; `prim` is the primitive
// JAX's interpret mode fails to lower.
Trace& KernelTrace(Interpreter& interp, std::string_view fn, std::string_view prim) {
  Trace* trace = CurrentTrace(interp);
  if (trace == nullptr || trace->options().what != "kernel") {
    interp.Raise(interp.types().runtime_error,
                 fmt::format("{} can only be used inside a kernel passed to pl.pallas_call", fn));
  }
  if (!trace->options().tpu_rules) {
    interp.RaiseWithNotes(
        interp.types().not_implemented_error,
        fmt::format("MLIR translation rule for primitive '{}' not found for platform cpu", prim),
        {"JAX's interpret mode (interpret=True) has no model of a TPU core's random number "
         "generator; the default `tpu` semantics emulates one",
         "for random numbers that every mode computes alike, make a key inside the kernel: "
         "`jax.random.fold_in(jax.random.key(seed), pl.program_id(0))`"});
  }
  return *trace;
}

// The next draws of the core's generator: prng_random_bits, int32.
ValueId Draw(Interpreter& interp, Trace& trace, const array::Shape& shape) {
  if (shape.size() < 2) {
    interp.RaiseWithNotes(interp.types().not_implemented_error,
                          "random_bits only supports rank>=2 outputs.",
                          {fmt::format("a TPU core draws whole (sublane, lane) tiles; draw a 2-d "
                                       "block (e.g. (8, 128)) instead of shape {}",
                                       array::ShapeToString(shape))});
  }
  return trace.Emit(Op::kPrngRandomBits, {}, {{.shape = shape, .dtype = DType::kInt32}}).results[0];
}

// The same as uint32, what jax.random's samplers start from.
ValueId DrawBits(Interpreter& interp, Trace& trace, const array::Shape& shape) {
  ValueId bits = Draw(interp, trace, shape);
  return trace
      .EmitPrim({array::Prim::kBitcastConvertType, array::ConvertAttrs{DType::kUInt32}}, {bits},
                {{.shape = shape, .dtype = DType::kUInt32}})
      .results[0];
}

// A stateful sampler draws 32 bits per value (JAX's stateful key asserts it).
void Check32Bits(Interpreter& interp, DType dtype) {
  if (array::ItemSize(dtype) != 4) {
    interp.RaiseWithNotes(interp.types().assertion_error, "Bit width must be 32",
                          {fmt::format("the core's generator gives 32-bit draws; sample float32 "
                                       "and convert to {}",
                                       array::DTypeName(dtype))});
  }
}

DType FloatDType(Interpreter& interp, const std::optional<Value>& value, std::string_view fn) {
  DType dtype = value && !value->is_none() ? eval::ToDType(interp, *value) : DType::kFloat32;
  if (!array::IsFloating(dtype)) {
    interp.Raise(interp.types().value_error,
                 fmt::format("dtype argument to `{}` must be a float dtype, got {}", fn,
                             array::DTypeName(dtype)));
  }
  Check32Bits(interp, dtype);
  return dtype;
}

array::Shape ShapeArg(Interpreter& interp, const std::optional<Value>& value) {
  return value && !value->is_none() ? eval::ToShape(interp, *value) : array::Shape{};
}

// Traces `sample` over the operands into primitives; returns its one result as a tracer.
Value Sample(Interpreter& interp, Trace& trace, std::string_view what,
             const std::vector<ValueId>& operands,
             const std::function<array::Array(const std::vector<array::Array>&)>& sample) {
  std::vector<ValueId> results =
      trace.RecordComputation(what, operands, [&](const std::vector<array::Array>& in) {
        return std::vector<array::Array>{eval::GuardArrayOp(interp, [&] { return sample(in); })};
      });
  return trace.MakeTracer(results.at(0));
}

}  // namespace

void InstallPrngApi(Interpreter& interp) {
  auto& pltpu = *interp.FindModule("jax.experimental.pallas.tpu");

  AddBuiltin(interp, pltpu, "prng_seed", [](Interpreter& interp, CallArgs& args) {
    Trace& trace = KernelTrace(interp, "pltpu.prng_seed", "prng_seed");
    if (!args.keywords.empty()) {
      interp.Raise(interp.types().type_error, "prng_seed() takes no keyword arguments");
    }
    if (args.positional.empty()) {
      interp.Raise(interp.types().type_error, "pltpu.prng_seed needs at least one seed");
    }
    std::vector<ValueId> seeds;
    for (const Value& value : args.positional) {
      ValueId id = trace.Lift(value, "a seed");
      const ValueType& type = trace.type(id);
      if (!type.shape.empty() || !array::IsInteger(type.dtype)) {
        interp.Raise(
            interp.types().value_error,
            fmt::format("All seed data must be scalar integers. Got {}", TypeToString(type)));
      }
      seeds.push_back(type.dtype == DType::kInt32 ? id : trace.Convert(id, DType::kInt32));
    }
    trace.Emit(Op::kPrngSeed, std::move(seeds), {});
    return Value();
  });
  AddBuiltin(interp, pltpu, "prng_random_bits", [](Interpreter& interp, CallArgs& args) {
    auto b = eval::BindArgs(interp, "prng_random_bits", args, {"shape"});
    Trace& trace = KernelTrace(interp, "pltpu.prng_random_bits", "prng_random_bits");
    return trace.MakeTracer(Draw(interp, trace, eval::ToShape(interp, *b[0])));
  });
  AddBuiltin(interp, pltpu, "stateful_bits", [](Interpreter& interp, CallArgs& args) {
    auto b = eval::BindArgs(interp, "stateful_bits", args, {"shape=", "dtype="});
    Trace& trace = KernelTrace(interp, "pltpu.stateful_bits", "prng_random_bits");
    DType dtype = b[1] && !b[1]->is_none() ? eval::ToDType(interp, *b[1]) : DType::kUInt32;
    if (!array::IsUnsigned(dtype)) {
      interp.Raise(interp.types().value_error,
                   fmt::format("dtype argument to `bits` must be an unsigned int dtype, got {}",
                               array::DTypeName(dtype)));
    }
    Check32Bits(interp, dtype);
    return trace.MakeTracer(DrawBits(interp, trace, ShapeArg(interp, b[0])));
  });
  AddBuiltin(interp, pltpu, "stateful_uniform", [](Interpreter& interp, CallArgs& args) {
    auto b = eval::BindArgs(interp, "stateful_uniform", args,
                            {"shape=", "dtype=", "minval=", "maxval="});
    Trace& trace = KernelTrace(interp, "pltpu.stateful_uniform", "prng_random_bits");
    DType dtype = FloatDType(interp, b[1], "uniform");
    ValueId bits = DrawBits(interp, trace, ShapeArg(interp, b[0]));
    ValueId lo = trace.Lift(b[2] ? *b[2] : Value::Float(0.0), "minval");
    ValueId hi = trace.Lift(b[3] ? *b[3] : Value::Float(1.0), "maxval");
    return Sample(interp, trace, "pltpu.stateful_uniform", {bits, lo, hi}, [&](const auto& in) {
      return array::UniformFromBits(in[0], dtype, in[1], in[2]);
    });
  });
  AddBuiltin(interp, pltpu, "stateful_normal", [](Interpreter& interp, CallArgs& args) {
    auto b = eval::BindArgs(interp, "stateful_normal", args, {"shape=", "dtype="});
    Trace& trace = KernelTrace(interp, "pltpu.stateful_normal", "prng_random_bits");
    DType dtype = FloatDType(interp, b[1], "normal");
    ValueId bits = DrawBits(interp, trace, ShapeArg(interp, b[0]));
    return Sample(interp, trace, "pltpu.stateful_normal", {bits},
                  [&](const auto& in) { return array::NormalFromBits(in[0], dtype); });
  });
  AddBuiltin(interp, pltpu, "stateful_bernoulli", [](Interpreter& interp, CallArgs& args) {
    auto b = eval::BindArgs(interp, "stateful_bernoulli", args, {"p=", "shape="});
    Trace& trace = KernelTrace(interp, "pltpu.stateful_bernoulli", "prng_random_bits");
    ValueId p = trace.Lift(b[0] ? *b[0] : Value::Float(0.5), "p");
    DType dtype = trace.type(p).dtype;
    if (!array::IsFloating(dtype)) {
      interp.Raise(interp.types().type_error,
                   fmt::format("bernoulli probability `p` must have a floating dtype, got {}",
                               array::DTypeName(dtype)));
    }
    Check32Bits(interp, dtype);
    array::Shape shape =
        b[1] && !b[1]->is_none() ? eval::ToShape(interp, *b[1]) : trace.type(p).shape;
    ValueId bits = DrawBits(interp, trace, shape);
    return Sample(interp, trace, "pltpu.stateful_bernoulli", {bits, p}, [&](const auto& in) {
      array::Array u = array::UniformFromBits(in[0], dtype, array::Array::Scalar(dtype, 0.0),
                                              array::Array::Scalar(dtype, 1.0));
      return array::Binary(array::BinaryOp::kLt, u, in[1]);
    });
  });
}

}  // namespace pz::kernel

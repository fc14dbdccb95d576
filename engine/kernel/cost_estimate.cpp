// `pl.estimate_cost(fun, *args, **kwargs)`: runs `fun` once on stand-ins of its arguments (zeros of
// each ShapeDtypeStruct's shape and dtype, arrays as they are) under a primitive recorder and
// totals the primitives with JAX's cost rules (jax/_src/pallas/cost_estimate.py): one flop per
// result element of add/mul/sub/div/min/max/and/or/xor, per operand element of
// neg/floor/ceil/round/not; one transcendental per element of exp, log, sqrt, tanh, logistic and
// the trigonometric functions; integer_pow by repeated squaring; dot_general as 2 * contracted
// size * the other dimensions. Bytes accessed are the arguments' and results' bytes.
#include "kernel/cost_estimate.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "array/creation.h"
#include "array/prims.h"
#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "kernel/modules.h"
#include "kernel/pytree.h"
#include "kernel/records.h"

namespace pz::kernel {

using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

namespace {

struct JaxCost {
  int64_t flops = 0;
  int64_t transcendentals = 0;
};

class CostRecorder final : public array::PrimRecorder {
 public:
  void Record(array::PrimCall call, const std::vector<array::Array>& inputs,
              const std::vector<array::Array>& outputs) override {
    std::string_view name = array::PrimName(call.prim);
    auto any = [&](std::initializer_list<std::string_view> names) {
      return std::find(names.begin(), names.end(), name) != names.end();
    };
    if (any({"add", "mul", "sub", "div", "min", "max", "or", "and", "xor"}) && !outputs.empty()) {
      cost.flops += outputs[0].size();
    } else if (any({"neg", "floor", "ceil", "round", "not"}) && !inputs.empty()) {
      cost.flops += inputs[0].size();
    } else if (any({"cos", "sin", "tan", "sinh", "cosh", "tanh", "acos", "asin", "atan", "exp",
                    "log", "logistic", "sqrt"}) &&
               !inputs.empty()) {
      cost.transcendentals += inputs[0].size();
    } else if (name == "integer_pow" && !inputs.empty()) {
      int64_t y = std::get<array::IntegerPowAttrs>(call.attrs).y;
      int64_t per_element = y <= 1
                                ? 0
                                : static_cast<int64_t>(std::bit_width(static_cast<uint64_t>(y))) -
                                      1 + std::popcount(static_cast<uint64_t>(y));
      cost.flops += inputs[0].size() * per_element;
    } else if (name == "dot_general" && inputs.size() >= 2) {
      const array::DotDimensionNumbers& dims = std::get<array::DotAttrs>(call.attrs).dims;
      const array::Shape& x = inputs[0].shape();
      const array::Shape& y = inputs[1].shape();
      auto has = [](const std::vector<int>& list, size_t d) {
        return std::find(list.begin(), list.end(), static_cast<int>(d)) != list.end();
      };
      int64_t flops = 2;
      for (int d : dims.lhs_contracting) flops *= x[static_cast<size_t>(d)];
      for (size_t d = 0; d < x.size(); ++d) {
        if (!has(dims.lhs_contracting, d)) flops *= x[d];
      }
      for (size_t d = 0; d < y.size(); ++d) {
        if (!has(dims.rhs_contracting, d) && !has(dims.rhs_batch, d)) flops *= y[d];
      }
      cost.flops += flops;
    }
  }
  JaxCost cost;
};

int64_t Bytes(const array::Array& a) {
  return a.size() * static_cast<int64_t>(array::ItemSize(a.dtype()));
}

Value EstimateCost(Interpreter& interp, CallArgs& args) {
  if (args.positional.empty()) {
    interp.Raise(interp.types().type_error, "estimate_cost() missing required argument: 'fun'");
  }
  Value fun = args.positional[0];
  // Stand-ins: ShapeDtypeStructs become zeros; every leaf counts its bytes as read.
  std::vector<Value> leaves;
  TreeDef def = Flatten(
      interp, eval::MakeTuple({args.positional.begin() + 1, args.positional.end()}), leaves);
  int64_t bytes = 0;
  for (Value& leaf : leaves) {
    if (RecordObject* spec = AsRecord(leaf, "ShapeDtypeStruct")) {
      array::Array zeros = array::Zeros(eval::ToShape(interp, spec->Get("shape")),
                                        eval::ToDType(interp, spec->Get("dtype")));
      leaf = eval::WrapArray(std::move(zeros));
    }
    if (auto* a = leaf.as<eval::ArrayObject>()) bytes += Bytes(a->value);
  }
  CallArgs call{.positional = interp.ToVector(Unflatten(interp, def, leaves)),
                .keywords = args.keywords,
                .span = interp.current_span()};
  CostRecorder recorder;
  Value result;
  {
    array::ScopedPrimRecorder scope(&recorder);
    result = interp.Call(fun, std::move(call));
  }
  std::vector<Value> outputs;
  Flatten(interp, result, outputs);
  for (const Value& out : outputs) {
    if (auto* a = out.as<eval::ArrayObject>()) bytes += Bytes(a->value);
  }
  auto pl = interp.FindModule("jax.experimental.pallas");
  return interp.Call(
      pl->attrs.at("CostEstimate"),
      CallArgs{.keywords = {{"flops", Value::Int(recorder.cost.flops)},
                            {"transcendentals", Value::Int(recorder.cost.transcendentals)},
                            {"bytes_accessed", Value::Int(bytes)}},
               .span = interp.current_span()});
}

}  // namespace

void InstallCostEstimate(Interpreter& interp) {
  auto pl = interp.FindModule("jax.experimental.pallas");
  AddBuiltin(interp, *pl, "estimate_cost", EstimateCost);
}

}  // namespace pz::kernel

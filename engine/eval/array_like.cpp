// JAX's rule that array arguments of jax.numpy / jax.lax / jax.nn functions are arrays or
// scalars, never Python lists or tuples (`jnp.sum([1, 2])` is a TypeError in JAX, while
// `np.sum([1, 2])` is fine). Without it a program would pass here and fail in a notebook.
#include <fmt/format.h>

#include <map>
#include <set>
#include <string_view>

#include "eval/array_object.h"

namespace pz::eval {
namespace {

using Names = std::set<std::string_view>;

// Functions whose first argument is not an array (shapes, dtypes, sequences of values to
// convert, or arguments JAX accepts as sequences).
const Names kNoArrayArgument = {
    "arange",   "array", "asarray",     "array_equal",  "broadcasted_iota",
    "dtype",    "empty", "eye",         "identity",     "iota",
    "linspace", "ndim",  "one_hot",     "ones",         "shape",
    "size",     "zeros", "result_type", "promote_types"};
// jax.numpy / jax.nn functions taking two arrays first (binary ufuncs, products, comparisons).
const Names kTwoArrays = {
    "add",          "subtract",    "multiply",      "divide",      "true_divide",
    "floor_divide", "mod",         "remainder",     "power",       "pow",
    "maximum",      "minimum",     "equal",         "not_equal",   "less",
    "less_equal",   "greater",     "greater_equal", "logical_and", "logical_or",
    "logical_xor",  "bitwise_and", "bitwise_or",    "bitwise_xor", "left_shift",
    "right_shift",  "arctan2",     "hypot",         "dot",         "matmul",
    "inner",        "outer",       "vdot",          "isclose",     "allclose",
    "fmod",         "copysign",    "nextafter",     "take",        "take_along_axis"};
// jax.lax functions taking two arrays first.
const Names kLaxTwoArrays = {
    "add", "sub",   "mul",         "div",         "rem",        "max",         "min",
    "pow", "atan2", "eq",          "ne",          "lt",         "le",          "gt",
    "ge",  "dot",   "dot_general", "bitwise_and", "bitwise_or", "bitwise_xor", "nextafter"};
// Functions taking three arrays first.
const Names kThreeArrays = {"where", "clip", "select", "clamp"};
// Functions whose first argument is a sequence of arrays.
const Names kSequenceOfArrays = {"concatenate", "stack",  "hstack",
                                 "vstack",      "dstack", "column_stack"};

// jax.nn functions whose check happens inside another jax function: JAX's message names that
// one (and, for a lax primitive, uses lax's wording).
struct ReportedAs {
  std::string_view name;
  bool lax;
};
const std::map<std::string_view, ReportedAs> kNnReportedAs = {
    {"softmax", {"max", false}},
    {"relu", {"maximum", false}},
    {"sigmoid", {"logistic", true}},
};

bool IsSequence(const Value& value) {
  return value.as<ListObject>() != nullptr || value.as<TupleObject>() != nullptr;
}

}  // namespace

void CheckArrayLike(Interpreter& interp, std::string_view module, std::string_view name,
                    const CallArgs& args) {
  bool lax = module == "jax.lax";
  if (module != "jax.numpy" && module != "jax.nn" && module != "jax.scipy.special" && !lax) return;
  if (lax && name == "convert_element_type") {
    if (!args.positional.empty() && IsSequence(args.positional[0])) {
      interp.RaiseWithNotes(
          interp.types().type_error,
          fmt::format("Cannot determine dtype of {}", interp.Repr(args.positional[0])),
          {"make an array of it first: `jnp.array(...)`"});
    }
    return;
  }
  if (kNoArrayArgument.count(name)) return;
  if (module == "jax.nn") {
    if (auto it = kNnReportedAs.find(name); it != kNnReportedAs.end()) {
      name = it->second.name;
      lax = it->second.lax;
    }
  }

  auto fail = [&](const Value& value, size_t position) {
    std::string type = interp.TypeName(value);
    std::string message =
        lax ? fmt::format(
                  "Error interpreting argument to {0} as a JAX value. The problematic "
                  "value is of type <class '{1}'> and was passed to {0} at position {2}.",
                  name, type, position)
            : fmt::format(
                  "{} requires ndarray or scalar arguments, got <class '{}'> at position {}.", name,
                  type, position);
    interp.RaiseWithNotes(interp.types().type_error, std::move(message),
                          {"make an array of it first: `jnp.array(...)`"});
  };
  const std::vector<Value>& positional = args.positional;
  if (kSequenceOfArrays.count(name)) {
    if (positional.empty()) return;
    const std::vector<Value>* items = nullptr;
    if (auto* list = positional[0].as<ListObject>()) items = &list->items;
    if (auto* tuple = positional[0].as<TupleObject>()) items = &tuple->items;
    if (items == nullptr) return;
    for (size_t i = 0; i < items->size(); ++i) {
      if (IsSequence((*items)[i])) fail((*items)[i], i);
    }
    return;
  }
  size_t first = 0, count = 1;
  if (name == "einsum") {
    first = 1;  // the subscripts, then any number of operands
    count = positional.size();
  } else if (name == "full" || name == "full_like") {
    first = name == "full" ? 1 : 0;  // full(shape, fill_value); full_like(a, fill_value)
    count = name == "full" ? 1 : 2;
  } else if (lax ? kLaxTwoArrays.count(name) : kTwoArrays.count(name)) {
    count = 2;
  } else if (kThreeArrays.count(name)) {
    count = 3;
  }
  for (size_t i = first; i < positional.size() && i < first + count; ++i) {
    if (IsSequence(positional[i])) fail(positional[i], i - first);
  }
}

}  // namespace pz::eval

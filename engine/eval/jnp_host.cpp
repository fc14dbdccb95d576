// Host-side array utilities: sorting and counting (sort, argsort, unique, histogram), .npy files
// (np.save / np.load) and np.testing.assert_allclose.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "array/elementwise.h"
#include "array/npy.h"
#include "array/print.h"
#include "array/shape_ops.h"
#include "array/sort.h"
#include "eval/array_object.h"
#include "eval/builtin_support.h"

namespace pz::eval {

using array::Array;

namespace {

// numpy.testing's err_msg argument ("" when absent).
std::string ErrMsg(const std::optional<Value>& value) {
  return value && value->is(ObjectKind::kStr) ? value->as<StrObject>()->value : "";
}

// The numpy.testing comparisons: raises AssertionError (`header`, then the mismatch summary)
// unless every element of `actual` equals, or is `close` to, the one of `desired` (a single
// desired value is compared with every element); NaNs match NaNs when `equal_nan`.
void AssertArrays(Interpreter& interp, const Value& actual_value, const Value& desired_value,
                  const std::string& header, const std::string& err_msg, bool equal_nan,
                  const std::function<bool(double, double)>& close) {
  Array actual = ToArray(interp, actual_value);
  Array desired = ToArray(interp, desired_value);
  std::string extra = err_msg.empty() ? "" : "\n" + err_msg;
  if (actual.shape() != desired.shape() && desired.size() != 1) {
    interp.Raise(
        interp.types().assertion_error,
        fmt::format("{}{}\n(shapes {}, {} mismatch)", header, extra,
                    array::ShapeToString(actual.shape()), array::ShapeToString(desired.shape())));
  }
  std::vector<double> x = actual.ToDoubles();
  std::vector<double> y = desired.ToDoubles();
  int64_t mismatched = 0, first = -1;
  double max_abs = 0, max_rel = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double want = y.size() == 1 ? y[0] : y[i];
    double got = x[i];
    bool both_nan = std::isnan(got) && std::isnan(want);
    if ((both_nan && equal_nan) || got == want || close(got, want)) continue;
    if (first < 0) first = static_cast<int64_t>(i);
    ++mismatched;
    double diff = std::fabs(got - want);
    max_abs = std::max(max_abs, diff);
    if (want != 0) max_rel = std::max(max_rel, diff / std::fabs(want));
  }
  if (mismatched == 0) return;
  interp.Raise(interp.types().assertion_error,
               fmt::format("{}{}\nMismatched elements: {} / {} ({:.3g}%)\nFirst mismatch at flat "
                           "index {}: actual {} vs desired {}\nMax absolute difference: {:g}\nMax "
                           "relative difference: {:g}",
                           header, extra, mismatched, x.size(),
                           100.0 * static_cast<double>(mismatched) / static_cast<double>(x.size()),
                           first, x[first], y.size() == 1 ? y[0] : y[first], max_abs, max_rel));
}

std::optional<int> SortAxis(Interpreter& interp, const std::optional<Value>& v) {
  if (!v) return -1;
  if (v->is_none()) return std::nullopt;
  if (!v->is_integral()) interp.Raise(interp.types().type_error, "axis must be an int or None");
  return static_cast<int>(v->integral());
}

std::string PathArg(Interpreter& interp, const Value& v) {
  auto* s = v.as<StrObject>();
  if (s == nullptr) {
    interp.Raise(interp.types().type_error,
                 fmt::format("expected a file path string, got {}", interp.TypeName(v)));
  }
  return s->value;
}

}  // namespace

void InstallArrayHost(Interpreter& interp, const ArrayModules& m) {
  for (ModuleObject* module : {&m.jnp, &m.np}) {
    AddFunction(interp, *module, "sort", [](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, "sort", args,
                        {"a", "axis=", "kind=", "order=", "stable=", "descending="});
      Array a = ToArray(interp, *b[0]);
      std::optional<int> axis = SortAxis(interp, b[1]);
      Array sorted = GuardArrayOp(interp, [&] { return array::Sort(a, axis); });
      if (b[5] && interp.Truthy(*b[5])) {
        sorted = GuardArrayOp(
            interp, [&] { return array::Flip(sorted, std::vector<int>{axis.value_or(0)}); });
      }
      return WrapArray(std::move(sorted));
    });
    AddFunction(interp, *module, "argsort", [](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, "argsort", args,
                        {"a", "axis=", "kind=", "order=", "stable=", "descending="});
      Array a = ToArray(interp, *b[0]);
      std::optional<int> axis = SortAxis(interp, b[1]);
      return WrapArray(GuardArrayOp(interp, [&] { return array::ArgSort(a, axis); }));
    });
    AddFunction(interp, *module, "unique", [](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, "unique", args,
                        {"ar", "return_index=", "return_inverse=", "return_counts=", "axis=", "*",
                         "size=", "fill_value="});
      Array a = ToArray(interp, *b[0]);
      if ((b[1] && interp.Truthy(*b[1])) || (b[2] && interp.Truthy(*b[2])) ||
          (b[4] && !b[4]->is_none())) {
        interp.Raise(interp.types().value_error,
                     "`unique` supports only `return_counts`, `size` and `fill_value` here");
      }
      array::UniqueResult result = GuardArrayOp(interp, [&] { return array::Unique(a); });
      if (b[5] && !b[5]->is_none()) {
        // JAX's static-size form: pad with fill_value (default: the smallest value) or truncate.
        int64_t size = b[5]->integral();
        std::vector<double> values = result.values.ToDoubles();
        std::vector<double> counts = result.counts.ToDoubles();
        double fill = b[6] && !b[6]->is_none() ? ToArray(interp, *b[6]).GetDouble(0)
                                               : (values.empty() ? 0.0 : values.front());
        values.resize(static_cast<size_t>(size), fill);
        counts.resize(static_cast<size_t>(size), 0.0);
        result.values = Array::FromDoubles(a.dtype(), {size}, values);
        result.counts = Array::FromDoubles(array::DType::kInt32, {size}, counts);
      }
      if (b[3] && interp.Truthy(*b[3])) {
        return MakeTuple({WrapArray(result.values), WrapArray(result.counts)});
      }
      return WrapArray(result.values);
    });
    AddFunction(interp, *module, "histogram", [](Interpreter& interp, CallArgs& args) {
      auto b =
          BindArgs(interp, "histogram", args, {"a", "bins=", "range=", "weights=", "density="});
      Array a = ToArray(interp, *b[0]);
      array::HistogramArgs h;
      if (b[1] && !b[1]->is_none()) {
        if (b[1]->is_integral()) {
          h.bins = b[1]->integral();
        } else if (b[1]->as<StrObject>() != nullptr) {
          interp.Raise(interp.types().not_implemented_error,
                       "string values for `bins` not implemented.");
        } else {
          h.edges = ToArray(interp, *b[1]);
        }
      }
      if (b[2] && !b[2]->is_none()) {
        std::vector<Value> r = interp.ToVector(*b[2]);
        if (r.size() != 2) {
          interp.Raise(interp.types().value_error,
                       "`range` must be either None or a sequence of scalars");
        }
        h.range =
            std::make_pair(ToArray(interp, r[0]).GetDouble(0), ToArray(interp, r[1]).GetDouble(0));
      }
      if (b[3] && !b[3]->is_none()) h.weights = ToArray(interp, *b[3]);
      h.density = b[4] && !b[4]->is_none() && interp.Truthy(*b[4]);
      auto [counts, edges] = GuardArrayOp(interp, [&] { return array::Histogram(a, h); });
      return MakeTuple({WrapArray(counts), WrapArray(edges)});
    });
  }
  // np.ndindex(*shape): the index tuples of an array of that shape, in row-major order, lazily.
  m.np.Set("ndindex", interp.MakeBuiltin("numpy.ndindex", [](Interpreter& interp, CallArgs& args) {
    std::vector<Value> dims = args.positional;
    if (dims.size() == 1 && (dims[0].is(ObjectKind::kTuple) || dims[0].is(ObjectKind::kList))) {
      dims = interp.ToVector(dims[0]);
    }
    std::vector<int64_t> shape;
    for (const Value& d : dims) {
      int64_t n = ToIndex(interp, d);
      if (n < 0) interp.Raise(interp.types().value_error, "negative dimensions are not allowed");
      shape.push_back(n);
    }
    bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
    auto next = std::make_shared<std::vector<int64_t>>(shape.size(), 0);
    auto done = std::make_shared<bool>(empty);
    return Value(std::make_shared<IteratorObject>(
        "ndindex", [shape, next, done](Interpreter&) -> std::optional<Value> {
          if (*done) return std::nullopt;
          std::vector<Value> index;
          for (int64_t i : *next) index.push_back(Value::Int(i));
          size_t d = shape.size();
          while (d-- > 0) {  // advance like an odometer, last axis fastest
            if (++(*next)[d] < shape[d]) break;
            (*next)[d] = 0;
          }
          if (d == static_cast<size_t>(-1)) *done = true;
          return MakeTuple(std::move(index));
        }));
  }));
  AddFunction(interp, m.np, "save", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "save", args, {"file", "arr", "allow_pickle="});
    std::string path = PathArg(interp, *b[0]);
    if (path.size() < 4 || path.substr(path.size() - 4) != ".npy") path += ".npy";
    Array a = ToArray(interp, *b[1]);
    GuardArrayOp(interp, [&] {
      array::SaveNpy(path, a);
      return 0;
    });
    return Value();
  });
  AddFunction(interp, m.np, "load", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "load", args, {"file", "mmap_mode=", "allow_pickle="});
    std::string path = PathArg(interp, *b[0]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::LoadNpy(path); }));
  });

  std::shared_ptr<ModuleObject> testing = interp.FindModule("numpy.testing");
  AddFunction(interp, *testing, "assert_allclose", [](Interpreter& interp, CallArgs& args) {
    auto b =
        BindArgs(interp, "assert_allclose", args,
                 {"actual", "desired", "rtol=", "atol=", "equal_nan=", "err_msg=", "verbose="});
    double rtol = b[2] ? b[2]->number() : 1e-7;
    double atol = b[3] ? b[3]->number() : 0.0;
    bool equal_nan = !b[4] || interp.Truthy(*b[4]);
    AssertArrays(interp, *b[0], *b[1],
                 fmt::format("Not equal to tolerance rtol={:g}, atol={:g}", rtol, atol),
                 ErrMsg(b[5]), equal_nan, [&](double got, double want) {
                   return std::fabs(got - want) <= atol + rtol * std::fabs(want);
                 });
    return Value();
  });
  auto array_equal = [](const char* name) {
    return [name](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, name, args,
                        {"actual", "desired", "err_msg=", "verbose=", "*", "strict="});
      AssertArrays(interp, *b[0], *b[1], "Arrays are not equal", ErrMsg(b[2]), true,
                   [](double, double) { return false; });
      return Value();
    };
  };
  AddFunction(interp, *testing, "assert_array_equal", array_equal("assert_array_equal"));
  auto almost_equal = [](const char* name) {
    return [name](Interpreter& interp, CallArgs& args) {
      auto b =
          BindArgs(interp, name, args, {"actual", "desired", "decimal=", "err_msg=", "verbose="});
      int64_t decimal = b[2] && b[2]->is_int() ? b[2]->as_int() : 6;
      double bound = 1.5 * std::pow(10.0, -static_cast<double>(decimal));
      AssertArrays(interp, *b[0], *b[1],
                   fmt::format("Arrays are not almost equal to {} decimals", decimal), ErrMsg(b[3]),
                   true,
                   [bound](double got, double want) { return std::fabs(got - want) < bound; });
      return Value();
    };
  };
  AddFunction(interp, *testing, "assert_array_almost_equal",
              almost_equal("assert_array_almost_equal"));
}

}  // namespace pz::eval

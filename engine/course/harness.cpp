#include "course/harness.h"

#include <fmt/format.h>

#include "course/compare.h"
#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "kernel/pytree.h"
#include "tpu/pallas_call.h"

namespace pz::course {
namespace {

using eval::Interpreter;
using eval::Value;

constexpr const char* kStateKey = "course.harness";

std::optional<double> OptionalNumber(Interpreter& interp, const std::optional<Value>& value,
                                     std::string_view name) {
  if (!value || value->is_none()) return std::nullopt;
  double x = eval::ToDouble(interp, *value);
  if (!(x >= 0)) {
    interp.Raise(interp.types().value_error,
                 fmt::format("check() `{}` must be a non-negative number", name));
  }
  return x;
}

// One leaf of `actual` against the matching leaf of `expected`.
LeafReport CompareValues(Interpreter& interp, const Value& actual, const Value& expected,
                         std::optional<double> atol, std::optional<double> rtol) {
  array::Array want = eval::ToArray(interp, expected);
  auto* object = actual.as<eval::ArrayObject>();
  if (object == nullptr && !actual.is_number()) {
    return {.summary = fmt::format("the result is a `{}`, not an array", interp.TypeName(actual))};
  }
  array::Array got = eval::ToArray(interp, actual);
  Tolerance tol = DefaultTolerance(want.dtype());
  if (atol) tol.atol = *atol;
  if (rtol) tol.rtol = *rtol;
  const tpu::OutputRecord* record = nullptr;
  if (object != nullptr) {
    if (tpu::EmulatorSession* session = tpu::SessionOf(interp)) {
      record = tpu::FindOutputRecord(*session, object->serial);
    }
  }
  return CompareLeaf(got, want, tol, record, &interp.sources());
}

Value Check(Interpreter& interp, eval::CallArgs& args, HarnessState& state) {
  auto bound =
      eval::BindArgs(interp, "check", args, {"actual", "expected", "*", "atol=", "rtol=", "name="});
  std::optional<double> atol = OptionalNumber(interp, bound[2], "atol");
  std::optional<double> rtol = OptionalNumber(interp, bound[3], "rtol");
  std::string title = bound[4] && !bound[4]->is_none() ? interp.Str(*bound[4]) : "check";
  SourceSpan span = interp.current_span();

  // None leaves nothing to flatten (it is an empty pytree), so it is answered first.
  std::vector<Value> actual_leaves, expected_leaves;
  kernel::TreeDef expected_def = kernel::Flatten(interp, *bound[1], expected_leaves);
  if (!bound[0]->is_none()) kernel::Flatten(interp, *bound[0], actual_leaves);
  std::vector<std::string> lines;
  std::string summary;
  bool passed = true;
  if (bound[0]->is_none()) {
    passed = false;
    summary = "the result is None";
    lines.push_back("  the cell that computes it is not finished yet");
  } else if (actual_leaves.size() != expected_leaves.size()) {
    passed = false;
    summary = fmt::format("the result has {} array{} but the reference has {} ({})",
                          actual_leaves.size(), actual_leaves.size() == 1 ? "" : "s",
                          expected_leaves.size(), expected_def.ToString(interp));
  } else {
    std::vector<std::string> passed_summaries;
    for (size_t i = 0; i < expected_leaves.size(); ++i) {
      LeafReport leaf = CompareValues(interp, actual_leaves[i], expected_leaves[i], atol, rtol);
      std::string label = expected_leaves.size() > 1 ? fmt::format("output {}: ", i) : "";
      if (leaf.passed) {
        passed_summaries.push_back(label + leaf.summary);
        continue;
      }
      if (passed) {
        summary = label + leaf.summary;
      } else {
        lines.push_back(label + leaf.summary);
      }
      passed = false;
      for (std::string& line : leaf.lines) lines.push_back("  " + line);
    }
    if (passed) {
      for (size_t i = 0; i < passed_summaries.size(); ++i) {
        summary += (i ? "; " : "") + passed_summaries[i];
      }
    }
  }
  std::string text = fmt::format("{} {}: {}\n", passed ? "PASSED" : "FAILED", title, summary);
  for (const std::string& line : lines) text += line + "\n";
  interp.Print(text);
  state.checks.push_back({.name = title, .passed = passed, .span = span});
  return Value::Bool(passed);
}

}  // namespace

void InstallHarness(Interpreter& interp) {
  auto state = std::make_shared<HarnessState>();
  HarnessState* raw = state.get();
  interp.extension_state(kStateKey) = state;
  auto module = std::make_shared<eval::ModuleObject>("pallas_check");
  module->Set("check",
              interp.MakeBuiltin("check", [raw](Interpreter& interp, eval::CallArgs& args) {
                return Check(interp, args, *raw);
              }));
  interp.RegisterModule("pallas_check", module);
}

HarnessState* HarnessOf(Interpreter& interp) {
  return static_cast<HarnessState*>(interp.extension_state(kStateKey).get());
}

}  // namespace pz::course

#include "course/harness.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "course/compare.h"
#include "course/eager_record.h"
#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "kernel/pytree.h"
#include "tpu/pallas_call.h"
#include "tpu/step_record.h"

namespace pz::course {
namespace {

using eval::Interpreter;
using eval::Value;

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

// The leaves of a tuple/list/dict tree, dicts in key order. Unlike a JAX pytree, None is a leaf,
// as in `pallas_check.py`, so an unfinished entry of a list of results is reported as such.
void CheckLeaves(Interpreter& interp, const Value& value, std::vector<Value>& leaves) {
  if (auto* tuple = value.as<eval::TupleObject>()) {
    for (const Value& item : tuple->items) CheckLeaves(interp, item, leaves);
  } else if (auto* list = value.as<eval::ListObject>()) {
    std::vector<Value> items = list->items;  // the list may change while we recurse
    for (const Value& item : items) CheckLeaves(interp, item, leaves);
  } else if (auto* dict = value.as<eval::DictObject>()) {
    auto items = dict->Items();
    std::stable_sort(items.begin(), items.end(),
                     [&](const auto& a, const auto& b) { return interp.Less(a.first, b.first); });
    for (const auto& item : items) CheckLeaves(interp, item.second, leaves);
  } else {
    leaves.push_back(value);
  }
}

// Prints a check's text (rendered from its report) and records the report; the check's return
// value.
Value Report(Interpreter& interp, HarnessState& state, CheckReport report) {
  interp.Print(RenderCheck(report, state.color));
  bool passed = report.passed();
  state.checks.push_back(std::move(report));
  return Value::Bool(passed);
}

CheckReport::Status StatusOf(bool passed) {
  return passed ? CheckReport::Status::kPassed : CheckReport::Status::kFailed;
}

// One leaf of `actual` against the matching leaf of `expected`.
LeafReport CompareValues(Interpreter& interp, const Value& actual, const Value& expected,
                         std::optional<double> atol, std::optional<double> rtol) {
  if (actual.is_none()) {
    return {.summary = "the result is None",
            .lines = {"the cell that computes it is not finished yet"}};
  }
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
  if (object != nullptr) record = tpu::OutputRecordOf(*object);
  return CompareLeaf(got, want, tol, record, &interp.sources());
}

Value Check(Interpreter& interp, eval::CallArgs& args, HarnessState& state) {
  auto bound =
      eval::BindArgs(interp, "check", args, {"actual", "expected", "*", "atol=", "rtol=", "name="});
  std::optional<double> atol = OptionalNumber(interp, bound[2], "atol");
  std::optional<double> rtol = OptionalNumber(interp, bound[3], "rtol");
  std::string title = bound[4] && !bound[4]->is_none() ? interp.Str(*bound[4]) : "check";
  SourceSpan span = interp.current_span();

  // A result that is None as a whole is answered first.
  std::vector<Value> actual_leaves, expected_leaves, ignored;
  kernel::TreeDef expected_def = kernel::Flatten(interp, *bound[1], ignored);
  CheckLeaves(interp, *bound[1], expected_leaves);
  if (!bound[0]->is_none()) CheckLeaves(interp, *bound[0], actual_leaves);
  CheckReport report{.name = title, .span = span};
  if (state.eager != nullptr) {
    // Indexed like `checks`: this check's report comes next.
    state.eager->actuals.resize(state.checks.size() + 1);
    std::vector<std::optional<array::Array>>& compared = state.eager->actuals.back();
    for (const Value& leaf : actual_leaves) {
      const auto* a = leaf.as<eval::ArrayObject>();
      compared.push_back(a != nullptr ? std::optional(a->value) : std::nullopt);
    }
  }
  std::vector<std::string>& lines = report.lines;
  std::string& summary = report.summary;
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
      report.nonfinite |= leaf.unexplained_nonfinite;
      bool first_failure = passed;
      if (first_failure) {
        // The first failing output's findings, as values.
        report.first_mismatch = leaf.mismatch;
        report.provenance = leaf.provenance;
        report.block_map_operand = leaf.operand;
        report.block_map.assign(leaf.lines.begin() + static_cast<std::ptrdiff_t>(leaf.map_begin),
                                leaf.lines.begin() + static_cast<std::ptrdiff_t>(leaf.map_end));
        summary = label + leaf.summary;
      } else {
        lines.push_back(label + leaf.summary);
      }
      passed = false;
      // A map already drawn by an earlier check of this run is named, not drawn again.
      if (leaf.map_end > leaf.map_begin) {
        std::string map = leaf.operand + "\n";
        for (size_t l = leaf.map_begin; l < leaf.map_end; ++l) map += leaf.lines[l] + "\n";
        auto shown = std::find_if(state.maps_shown.begin(), state.maps_shown.end(),
                                  [&](const auto& entry) { return entry.first == map; });
        if (shown != state.maps_shown.end()) {
          if (first_failure) {
            report.block_map.clear();
            report.block_map_shown_in = shown->second;
          }
          leaf.lines.erase(leaf.lines.begin() + static_cast<std::ptrdiff_t>(leaf.map_begin),
                           leaf.lines.begin() + static_cast<std::ptrdiff_t>(leaf.map_end));
          leaf.lines.insert(leaf.lines.begin() + static_cast<std::ptrdiff_t>(leaf.map_begin),
                            fmt::format("the same blocks of `{}` are wrong as in check `{}` above",
                                        leaf.operand, shown->second));
        } else {
          state.maps_shown.emplace_back(map, title);
        }
      }
      for (std::string& line : leaf.lines) lines.push_back("  " + line);
    }
    if (passed) {
      for (size_t i = 0; i < passed_summaries.size(); ++i) {
        summary += (i ? "; " : "") + passed_summaries[i];
      }
    }
  }
  report.status = StatusOf(passed);
  if (passed) report.nonfinite = false;
  return Report(interp, state, std::move(report));
}

// "12.3 K"-style counts and "96.0 KiB"-style byte sizes for the work table.
std::string Count(int64_t n) {
  if (n < 10000) return std::to_string(n);
  if (n < 10000000) return fmt::format("{:.1f} K", n / 1e3);
  if (n < 10000000000) return fmt::format("{:.1f} M", n / 1e6);
  return fmt::format("{:.1f} G", n / 1e9);
}

std::string Bytes(int64_t n) {
  if (n < 1024) return fmt::format("{} B", n);
  if (n < 1024 * 1024) return fmt::format("{:.1f} KiB", n / 1024.0);
  return fmt::format("{:.1f} MiB", n / (1024.0 * 1024.0));
}

// "40 fewer grid steps (62%)"-style comparison of one counter with the baseline's.
std::string Saving(int64_t baseline, int64_t value, std::string_view what) {
  if (value == baseline) return fmt::format("the same {}", what);
  int64_t diff = baseline > value ? baseline - value : value - baseline;
  std::string percent =
      baseline > 0 ? fmt::format(" ({:.0f}%)", 100.0 * static_cast<double>(diff) / baseline) : "";
  return fmt::format("{} {} {}{}", diff, baseline > value ? "fewer" : "more", what, percent);
}

// The counters of the pallas_call that returned `value` (an array, or a pytree whose first leaf
// is one); raises ValueError naming `what` (an argument) for anything else.
const tpu::OutputRecord& RecordOf(Interpreter& interp, const Value& value,
                                  std::string_view function, std::string_view what) {
  std::vector<Value> leaves;
  kernel::Flatten(interp, value, leaves);
  const tpu::OutputRecord* record = nullptr;
  auto* object = leaves.empty() ? nullptr : leaves[0].as<eval::ArrayObject>();
  if (object != nullptr) record = tpu::OutputRecordOf(*object);
  if (record == nullptr) {
    interp.Raise(interp.types().value_error,
                 fmt::format("{}(): `{}` is not the output of a pallas_call (pass the "
                             "array the call returned, before any other operation)",
                             function, what));
  }
  return *record;
}

// The counters the measurement checks name, and a call's value of one (nullopt: no such name).
constexpr std::string_view kCounterNames =
    "grid_steps, flops, mxu_flops, transcendentals, hbm_bytes_read, hbm_bytes_written";

std::optional<int64_t> CounterNamed(const tpu::Counters& c, std::string_view name) {
  if (name == "grid_steps") return c.grid_steps;
  if (name == "flops") return c.flops;
  if (name == "mxu_flops") return c.mxu_flops;
  if (name == "transcendentals") return c.transcendentals;
  if (name == "hbm_bytes_read") return c.hbm_bytes_read;
  if (name == "hbm_bytes_written") return c.hbm_bytes_written;
  return std::nullopt;
}

// A measurement check that cannot run because a call ran on another backend.
CheckReport NotMeasured(const std::string& title, SourceSpan span) {
  return {.name = title,
          .status = CheckReport::Status::kSkipped,
          .span = span,
          .values = false,
          .summary =
              "the emulated TPU measures this; the call ran on another backend "
              "(`--backend cuda`), which checks outputs only"};
}

// `report_work(**outputs)`: what the emulator measured for the pallas_calls that produced each
// keyword's array; the first keyword is the baseline the others are compared with.
Value ReportWork(Interpreter& interp, eval::CallArgs& args) {
  if (!args.positional.empty() || args.keywords.empty()) {
    interp.Raise(interp.types().type_error,
                 "report_work() takes keyword arguments only, each the output of a pallas_call: "
                 "report_work(dense=out_a, sparse=out_b)");
  }
  std::vector<std::pair<std::string, tpu::Counters>> rows;
  bool measured = true;
  for (auto& [name, value] : args.keywords) {
    const tpu::OutputRecord& record = RecordOf(interp, value, "report_work", name);
    rows.emplace_back(name, record.counters);
    measured = measured && record.measured;
  }
  size_t width = 4;
  for (const auto& row : rows) width = std::max(width, row.first.size());
  if (!measured) {
    interp.Print("work: not measured (the calls ran on another backend, `--backend cuda`)\n");
    return eval::NewDict(interp);
  }
  std::string text = "work measured by the emulator:\n";
  text += fmt::format("  {:<{}}  {:>10}  {:>10}  {:>11}  {:>11}\n", "call", width, "grid steps",
                      "flops", "HBM read", "HBM written");
  auto dict = eval::NewDict(interp);
  for (const auto& [name, c] : rows) {
    text +=
        fmt::format("  {:<{}}  {:>10}  {:>10}  {:>11}  {:>11}\n", name, width, Count(c.grid_steps),
                    Count(c.flops), Bytes(c.hbm_bytes_read), Bytes(c.hbm_bytes_written));
    auto entry = eval::NewDict(interp);
    entry->Set(interp, eval::MakeStr("grid_steps"), Value::Int(c.grid_steps));
    entry->Set(interp, eval::MakeStr("flops"), Value::Int(c.flops));
    entry->Set(interp, eval::MakeStr("transcendentals"), Value::Int(c.transcendentals));
    entry->Set(interp, eval::MakeStr("hbm_bytes_read"), Value::Int(c.hbm_bytes_read));
    entry->Set(interp, eval::MakeStr("hbm_bytes_written"), Value::Int(c.hbm_bytes_written));
    dict->Set(interp, eval::MakeStr(name), entry);
  }
  const auto& [base_name, base] = rows.front();
  for (size_t i = 1; i < rows.size(); ++i) {
    const tpu::Counters& c = rows[i].second;
    text += fmt::format("  {} against {}: {}, {}, {} read from HBM\n", rows[i].first, base_name,
                        Saving(base.grid_steps, c.grid_steps, "grid steps"),
                        Saving(base.flops, c.flops, "flops"),
                        Saving(base.hbm_bytes_read, c.hbm_bytes_read, "bytes"));
  }
  interp.Print(text);
  return dict;
}

// `check_saves(baseline, result, *, counter="flops", at_least, name=None)`: a check that the
// pallas_call behind `result` did at least the fraction `at_least` less of `counter` than the
// one behind `baseline`, e.g. that a causal kernel skips the blocks above the diagonal instead
// of computing and masking them. Recorded like `check`.
Value CheckSaves(Interpreter& interp, eval::CallArgs& args, HarnessState& state) {
  SourceSpan span = interp.current_span();
  auto bound = eval::BindArgs(interp, "check_saves", args,
                              {"baseline", "result", "*", "counter=", "at_least", "name="});
  std::string counter = bound[2] && !bound[2]->is_none() ? interp.Str(*bound[2]) : "flops";
  double at_least = eval::ToDouble(interp, *bound[3]);
  if (!(at_least > 0 && at_least <= 1)) {
    interp.Raise(interp.types().value_error,
                 "check_saves() `at_least` is a fraction of the baseline, in (0, 1]");
  }
  std::string title = bound[4] && !bound[4]->is_none() ? interp.Str(*bound[4]) : "check_saves";
  const tpu::OutputRecord& base_record = RecordOf(interp, *bound[0], "check_saves", "baseline");
  const tpu::OutputRecord& mine_record = RecordOf(interp, *bound[1], "check_saves", "result");
  if (!base_record.measured || !mine_record.measured) {
    return Report(interp, state, NotMeasured(title, span));
  }
  std::optional<int64_t> before = CounterNamed(base_record.counters, counter);
  std::optional<int64_t> after = CounterNamed(mine_record.counters, counter);
  if (!before || !after) {
    interp.Raise(interp.types().value_error,
                 fmt::format("check_saves(): unknown counter '{}' ({})", counter, kCounterNames));
  }
  double saved = *before > 0 ? 1.0 - static_cast<double>(*after) / *before : 0.0;
  bool passed = saved >= at_least - 1e-12;
  CheckReport report{
      .name = title,
      .status = StatusOf(passed),
      .span = span,
      .values = false,
      .summary = fmt::format("{} {} against {} for the baseline, {:.0f}% saved (at least {:.0f}% "
                             "expected)",
                             *after, counter, *before, 100 * saved, 100 * at_least)};
  if (!passed) {
    report.lines.push_back(
        counter == "flops"
            ? "  the arithmetic still runs and is then masked or thrown away; skip it with "
              "`pl.when` (or leave it out of the grid)"
            : "  the baseline's work still happens; leave the steps or copies out (index maps "
              "that repeat the previous block index copy nothing)");
  }
  return Report(interp, state, std::move(report));
}

// `check_counts(result, *, name=None, grid_steps=None, flops=None, mxu_flops=None,
// transcendentals=None, hbm_bytes_read=None, hbm_bytes_written=None)`: a check that each counter
// given of the pallas_call behind `result` equals the number given, e.g. a learner's formula for
// the HBM bytes a tiling reads. Recorded like `check`.
Value CheckCounts(Interpreter& interp, eval::CallArgs& args, HarnessState& state) {
  SourceSpan span = interp.current_span();
  if (args.positional.size() != 1) {
    interp.Raise(interp.types().type_error,
                 "check_counts() takes the output of a pallas_call, then counters as keywords: "
                 "check_counts(out, flops=2 * M * N * K, hbm_bytes_read=...)");
  }
  std::string title = "check_counts";
  std::vector<std::pair<std::string, Value>> expected;
  for (auto& [key, value] : args.keywords) {
    if (key == "name") {
      if (!value.is_none()) title = interp.Str(value);
      continue;
    }
    if (!CounterNamed(tpu::Counters{}, key)) {
      interp.Raise(interp.types().type_error,
                   fmt::format("check_counts() got an unexpected keyword argument '{}' (counters: "
                               "{})",
                               key, kCounterNames));
    }
    if (!value.is_none()) expected.emplace_back(key, value);
  }
  if (expected.empty()) {
    interp.Raise(interp.types().type_error,
                 "check_counts() needs at least one counter, e.g. flops=2 * M * N * K");
  }
  for (const auto& [counter, value] : expected) {
    if (!value.is_int()) {
      interp.Raise(interp.types().type_error,
                   fmt::format("check_counts(): `{}` must be an int, not {} (use // for "
                               "divisions, or int(...))",
                               counter, interp.TypeName(value)));
    }
  }
  const tpu::OutputRecord& record = RecordOf(interp, args.positional[0], "check_counts", "result");
  if (!record.measured) return Report(interp, state, NotMeasured(title, span));
  CheckReport report{.name = title, .span = span, .values = false};
  for (const auto& [counter, value] : expected) {
    int64_t want = value.as_int(), got = *CounterNamed(record.counters, counter);
    if (want != got) {
      report.lines.push_back(fmt::format(
          "  {}: the emulator counted {}, you expected {} ({} {} than measured)", counter, got,
          want, want > got ? want - got : got - want, want > got ? "more" : "fewer"));
    }
  }
  bool passed = report.lines.empty();
  report.status = StatusOf(passed);
  tpu::EmulatorSession* session = tpu::SessionOf(interp);
  if (!passed && state.eager != nullptr && session != nullptr && session->options.recorder) {
    // A divergence search's run: which recorded call was measured, to break its counts down.
    EagerRecord::CountedCheck counted;
    const auto& calls = session->options.recorder->calls;
    for (size_t c = calls.size(); c-- > 0;) {
      // The latest call at that place with that grid (calls that differ in nothing else count
      // alike).
      if (calls[c].mapping.span == record.call_span && calls[c].mapping.name == record.call &&
          calls[c].mapping.grid == record.grid &&
          calls[c].steps_run == record.counters.grid_steps) {
        counted.call = static_cast<int64_t>(c);
        break;
      }
    }
    for (const auto& [counter, value] : expected) {
      int64_t got = *CounterNamed(record.counters, counter);
      if (value.as_int() != got) counted.differ.emplace_back(counter, value.as_int(), got);
    }
    state.eager->counted.resize(state.checks.size() + 1);
    state.eager->counted.back() = std::move(counted);
  }
  if (passed) {
    for (const auto& [counter, value] : expected) {
      report.summary +=
          fmt::format("{}{} {}", report.summary.empty() ? "" : ", ", counter, value.as_int());
    }
  } else {
    report.summary = "your counts differ from what the emulator measured";
  }
  return Report(interp, state, std::move(report));
}

// `check_overlap(result, *, at_least, name=None)`: a check that at least the fraction
// `at_least` of the DMA bytes of the pallas_call behind `result` were in flight while the kernel
// computed (loaded or stored vector data), i.e. that its copies overlap compute instead of
// being started and waited back to back. Recorded like `check`.
Value CheckOverlap(Interpreter& interp, eval::CallArgs& args, HarnessState& state) {
  SourceSpan span = interp.current_span();
  auto bound = eval::BindArgs(interp, "check_overlap", args, {"result", "*", "at_least", "name="});
  double at_least = eval::ToDouble(interp, *bound[1]);
  if (!(at_least > 0 && at_least <= 1)) {
    interp.Raise(interp.types().value_error,
                 "check_overlap() `at_least` is a fraction of the DMA bytes, in (0, 1]");
  }
  std::string title = bound[2] && !bound[2]->is_none() ? interp.Str(*bound[2]) : "check_overlap";
  const tpu::OutputRecord& record = RecordOf(interp, *bound[0], "check_overlap", "result");
  if (!record.measured) return Report(interp, state, NotMeasured(title, span));
  const tpu::Counters& c = record.counters;
  int64_t total = 0;
  for (const auto& entry : c.dma_bytes) total += entry.second;
  double share = total > 0 ? static_cast<double>(c.dma_bytes_overlapped) / total : 0.0;
  bool passed = total > 0 && share >= at_least - 1e-12;
  CheckReport report{
      .name = title,
      .status = StatusOf(passed),
      .span = span,
      .values = false,
      .summary = total == 0
                     ? std::string("the kernel started no DMA")
                     : fmt::format("{} of {} DMA bytes were in flight while the kernel "
                                   "computed, {:.0f}% (at least {:.0f}% expected)",
                                   c.dma_bytes_overlapped, total, 100 * share, 100 * at_least)};
  if (!passed && total > 0) {
    report.lines.push_back(
        "  the copies were waited for before any compute ran beside them; start the copy of the "
        "next block before computing on the current one (double buffering), and wait for it "
        "only when its data is needed");
  }
  return Report(interp, state, std::move(report));
}
}  // namespace

HarnessState& InstallHarness(Interpreter& interp) {
  auto state = std::make_shared<HarnessState>();
  HarnessState* raw = state.get();
  interp.SetState(state);
  auto module = std::make_shared<eval::ModuleObject>("pallas_check");
  module->Set("check",
              interp.MakeBuiltin("check", [raw](Interpreter& interp, eval::CallArgs& args) {
                return Check(interp, args, *raw);
              }));
  module->Set("report_work", interp.MakeBuiltin("report_work", ReportWork));
  module->Set("check_saves",
              interp.MakeBuiltin("check_saves", [raw](Interpreter& interp, eval::CallArgs& args) {
                return CheckSaves(interp, args, *raw);
              }));
  module->Set("check_counts",
              interp.MakeBuiltin("check_counts", [raw](Interpreter& interp, eval::CallArgs& args) {
                return CheckCounts(interp, args, *raw);
              }));
  module->Set("check_overlap",
              interp.MakeBuiltin("check_overlap", [raw](Interpreter& interp, eval::CallArgs& args) {
                return CheckOverlap(interp, args, *raw);
              }));
  interp.RegisterModule("pallas_check", module);
  return *raw;
}

HarnessState* HarnessOf(Interpreter& interp) { return interp.FindState<HarnessState>(); }

}  // namespace pz::course

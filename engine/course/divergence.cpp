#include "course/divergence.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "array/dtype.h"
#include "course/compare.h"
#include "course/divergence_trials.h"
#include "tpu/executor.h"
#include "tpu/step_record.h"

namespace pz::course {
namespace {

namespace fs = std::filesystem;
using array::Array;
using tpu::BufferSnapshot;
using tpu::CallRecording;

std::unique_ptr<Recorded> Record(const fs::path& file, const RunOptions& options) {
  auto out = std::make_unique<Recorded>();
  auto recorder = std::make_shared<tpu::StepRecorder>();
  RunOptions recording = QuietRerun(options);  // the emulated TPU, whatever ran the check
  recording.emulator.recorder = recorder;
  out->eager = std::make_shared<EagerRecord>();
  recording.eager = out->eager;
  out->run = RunFile(file, recording);
  out->calls = std::move(recorder->calls);
  return out;
}

// "store" or "DMA", for a write FirstWriteTo found.
std::string WriteName(const kernel::Instr& instr) {
  return instr.op == kernel::Op::kDmaStart ? "DMA" : "store";
}

std::string Plural(int64_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

class Comparer {
 public:
  Comparer(const Recorded& mine, const Recorded& solution) : me_(mine), sol_(solution) {}

  // Where the first value difference is (a scratch buffer or output block after a grid step),
  // once Run found one.
  struct Place {
    size_t call = 0;
    std::vector<int64_t> point;
    kernel::RefId ref = -1;
  };
  const std::optional<Place>& place() const { return place_; }

  std::optional<Divergence> Run() {
    size_t n = std::min(me_.calls.size(), sol_.calls.size());
    for (size_t i = 0; i < n; ++i) {
      call_ = i;
      if (CompareCall(me_.calls[i], sol_.calls[i])) return std::move(d_);
    }
    if (n == 0) {
      // No kernel ran: the values of the plain jax.numpy code are all there is to follow.
      if (!FollowCheckedValue()) return std::nullopt;
      return std::move(d_);
    }
    if (me_.calls.size() != sol_.calls.size()) {
      d_.summary = fmt::format(
          "your program ran {} and the solution {}; the first {} matched the solution's step "
          "by step",
          Plural(static_cast<int64_t>(me_.calls.size()), "pallas_call"),
          static_cast<int64_t>(sol_.calls.size()), n);
      return std::move(d_);
    }
    d_.summary = fmt::format(
        "every pallas_call ({}) matched the solution's at every grid step (scratch after each "
        "step, output blocks when written back)",
        n);
    d_.lines.push_back(
        "so the difference comes from the code around the kernels, or is below float32's "
        "tolerance (1e-05) inside them");
    FollowCheckedValue();
    return std::move(d_);
  }

 private:
  std::string LineText(SourceSpan span) const { return me_.LineText(span); }
  std::string Line(SourceSpan span) const { return me_.Line(span); }
  std::string At(SourceSpan span) const { return me_.At(span); }
  static std::string Point(const CallRecording& call, int64_t step) {
    return tpu::TupleString(tpu::UnravelIndex(step, call.mapping.grid));
  }
  std::string CallName(const CallRecording& call) const {
    return fmt::format("pallas_call `{}` ({})", call.mapping.name, Line(call.mapping.span));
  }

  // Fills d_ and returns true at the first difference between the two calls.
  bool CompareCall(const CallRecording& me, const CallRecording& sol) {
    return CompareConfiguration(me, sol) || CompareOperands(me, sol) || CompareSteps(me, sol);
  }

  void Configuration(const CallRecording& me, std::string summary, SourceSpan span) {
    d_.summary = std::move(summary);
    d_.lines.push_back(fmt::format("configured at {}", At(span)));
    d_.lines.push_back(fmt::format(
        "{} is configured differently from the solution's, so its steps were not compared",
        CallName(me)));
    d_.patterns.push_back("configuration");
  }

  bool CompareConfiguration(const CallRecording& me, const CallRecording& sol) {
    const kernel::GridMapping& a = me.mapping;
    const kernel::GridMapping& b = sol.mapping;
    if (a.grid != b.grid) {
      Configuration(me,
                    fmt::format("the grid of `{}` is {}; the solution's is {}", me.mapping.name,
                                tpu::TupleString(a.grid), tpu::TupleString(b.grid)),
                    me.mapping.span);
      return true;
    }
    if (a.inputs.size() != b.inputs.size() || a.outputs.size() != b.outputs.size() ||
        a.prefetch.size() != b.prefetch.size()) {
      Configuration(
          me,
          fmt::format("`{}` takes {} inputs and {} outputs; the solution's {} and {}",
                      me.mapping.name, a.prefetch.size() + a.inputs.size(), a.outputs.size(),
                      b.prefetch.size() + b.inputs.size(), b.outputs.size()),
          me.mapping.span);
      return true;
    }
    for (size_t k = 0; k < a.inputs.size() + a.outputs.size(); ++k) {
      const kernel::BlockMapping& x = a.operand(k);
      const kernel::BlockMapping& y = b.operand(k);
      if (x.ref_shape != y.ref_shape || x.space != y.space) {
        Configuration(
            me,
            fmt::format("`{}` sees blocks of {}; the solution's `{}` sees {}", x.name,
                        tpu::TupleString(x.ref_shape), y.name, tpu::TupleString(y.ref_shape)),
            x.span);
        return true;
      }
    }
    if (a.scratch.size() != b.scratch.size()) {
      Configuration(me,
                    fmt::format("`{}` has {}; the solution's has {}", me.mapping.name,
                                Plural(static_cast<int64_t>(a.scratch.size()), "scratch buffer"),
                                b.scratch.size()),
                    me.mapping.span);
      return true;
    }
    for (size_t s = 0; s < a.scratch.size(); ++s) {
      const kernel::RefType& x = a.scratch[s];
      const kernel::RefType& y = b.scratch[s];
      if (x.shape != y.shape || x.dtype != y.dtype || x.space != y.space) {
        Configuration(me,
                      fmt::format("scratch buffer {} (`{}`) is {} {}; the solution's (`{}`) is "
                                  "{} {}",
                                  s, x.name, array::DTypeName(x.dtype), tpu::TupleString(x.shape),
                                  y.name, array::DTypeName(y.dtype), tpu::TupleString(y.shape)),
                      me.mapping.span);
        return true;
      }
    }
    size_t steps = std::min(me.blocks.size(), sol.blocks.size());
    for (size_t t = 0; t < steps; ++t) {
      for (size_t k = 0; k < me.blocks[t].size() && k < sol.blocks[t].size(); ++k) {
        if (me.blocks[t][k] == sol.blocks[t][k]) continue;
        const kernel::BlockMapping& x = a.operand(k);
        Configuration(
            me,
            fmt::format("at grid step {}, the index map of `{}` gives block {}; the "
                        "solution's gives {}",
                        Point(me, static_cast<int64_t>(t)), x.name,
                        tpu::TupleString(me.blocks[t][k]), tpu::TupleString(sol.blocks[t][k])),
            x.span);
        return true;
      }
    }
    return false;
  }

  bool CompareOperands(const CallRecording& me, const CallRecording& sol) {
    auto compare = [&](const Array& x, const Array& y, const std::string& what, size_t index) {
      if (x.shape() != y.shape() || x.dtype() != y.dtype()) {
        d_.summary = fmt::format("{} of {} is {} {}; the solution's is {} {}", what, CallName(me),
                                 array::DTypeName(x.dtype()), tpu::TupleString(x.shape()),
                                 array::DTypeName(y.dtype()), tpu::TupleString(y.shape()));
      } else {
        int64_t at = FirstMismatch(x, y, DefaultTolerance(y.dtype()));
        if (at < 0) return false;
        d_.summary = fmt::format("{} of {} holds {} at {}; the solution's holds {}", what,
                                 CallName(me), ValueString(x.dtype(), x.GetDouble(at)),
                                 IndexString(tpu::UnravelIndex(at, x.shape())),
                                 ValueString(y.dtype(), y.GetDouble(at)));
      }
      d_.lines.push_back(
          "the call gets other operands than the solution's: the difference is in the code that "
          "computes them, before the kernel runs");
      d_.patterns.push_back("operands");
      if (!SwappedOperand(me, sol, index, what)) WhyValue(x, std::nullopt);
      return true;
    };
    for (size_t i = 0; i < me.prefetch.size(); ++i) {
      std::string what = fmt::format(
          "scalar-prefetch operand {} (`{}`)", i,
          i < me.mapping.prefetch.size() ? me.mapping.prefetch[i].name : std::string("?"));
      if (compare(me.prefetch[i], sol.prefetch[i], what, i)) return true;
    }
    for (size_t i = 0; i < me.inputs.size(); ++i) {
      std::string what = fmt::format("input `{}`", me.mapping.inputs[i].name);
      if (compare(me.inputs[i], sol.inputs[i], what, me.prefetch.size() + i)) return true;
    }
    return false;
  }

  bool CompareSteps(const CallRecording& me, const CallRecording& sol) {
    size_t n = std::min(me.snapshots.size(), sol.snapshots.size());
    for (size_t i = 0; i < n; ++i) {
      const BufferSnapshot& x = me.snapshots[i];
      const BufferSnapshot& y = sol.snapshots[i];
      if (x.step != y.step || x.ref != y.ref || x.data.shape() != y.data.shape()) return false;
      // A resident output block counts where it is written back, and in between where both
      // kernels wrote it during the step (a kernel may fill its output only at the end).
      bool resident = !x.block.empty() && !x.written_back && !y.written_back;
      if (resident && !(x.written && y.written)) continue;
      Tolerance tol = DefaultTolerance(y.data.dtype());
      int64_t at = FirstMismatch(x.data, y.data, tol);
      if (at < 0) continue;
      Explain(me, i, y, at, tol);
      return true;
    }
    return false;
  }

  // The learner's snapshot of the same buffer before snapshot `i`, or null.
  static const BufferSnapshot* Previous(const CallRecording& call, size_t i) {
    for (size_t j = i; j-- > 0;) {
      if (call.snapshots[j].ref == call.snapshots[i].ref) return &call.snapshots[j];
    }
    return nullptr;
  }

  // Snapshot `i` of `me` differs from the solution's `y` at element `at`.
  void Explain(const CallRecording& me, size_t i, const BufferSnapshot& y, int64_t at,
               Tolerance tol) {
    const BufferSnapshot& x = me.snapshots[i];
    place_ =
        Place{.call = call_, .point = tpu::UnravelIndex(x.step, me.mapping.grid), .ref = x.ref};
    const kernel::RefType& ref = me.kernel->refs[static_cast<size_t>(x.ref)];
    bool output = ref.role == kernel::RefRole::kOutput;
    std::string element = IndexString(tpu::UnravelIndex(at, x.data.shape()));
    std::string got = ValueString(x.data.dtype(), x.data.GetDouble(at));
    std::string want = ValueString(y.data.dtype(), y.data.GetDouble(at));
    std::string where = fmt::format("{}, grid step {}", CallName(me), Point(me, x.step));
    if (output && !x.block.empty() && x.written_back) {
      d_.summary = fmt::format(
          "block {} of output `{}`, written back after grid step {}, holds {} at {} of the "
          "block; the solution's holds {}",
          tpu::TupleString(x.block), ref.name, Point(me, x.step), got, element, want);
    } else if (output && !x.block.empty()) {
      d_.summary = fmt::format(
          "after grid step {}, block {} of output `{}` holds {} at {} of the block; the "
          "solution's holds {}",
          Point(me, x.step), tpu::TupleString(x.block), ref.name, got, element, want);
    } else {
      d_.summary = fmt::format(
          "after grid step {}, {} `{}` holds {} at {}; the solution's holds {}", Point(me, x.step),
          output ? "output" : "scratch", ref.name, got, element, want);
    }
    d_.lines.push_back(fmt::format("in {}", where));
    if (x.last_write.valid()) {
      d_.lines.push_back(fmt::format("`{}` was last written at {}", ref.name, At(x.last_write)));
    } else {
      d_.lines.push_back(fmt::format("nothing had written `{}` yet", ref.name));
    }
    if (x.step > 0) {
      d_.lines.push_back("every earlier grid step matched the solution's");
    }
    const BufferSnapshot* previous = Previous(me, i);
    if (NeverRanPattern(me, x) || NotResetPattern(me, x)) return;
    if (previous == nullptr || CarriedOverPattern(me, x, y, *previous, tol)) return;
    if (NewOutputBlock(me, x.step) < 0) NotRescaledPattern(x, y, *previous, tol);
  }

  // A `pl.when` / `lax.cond` whose taken branch writes a buffer, and that write.
  struct GuardedWrite {
    const tpu::BranchRecord* branch;
    const kernel::Instr* write;
  };
  static std::vector<GuardedWrite> GuardedWrites(const CallRecording& me, kernel::RefId ref) {
    std::vector<GuardedWrite> found;
    for (const tpu::BranchRecord& branch : me.branches) {
      if (branch.instr->regions.empty()) continue;
      if (const kernel::Instr* write = kernel::FirstWriteTo(branch.instr->regions[0], ref)) {
        found.push_back({&branch, write});
      }
    }
    return found;
  }

  // "the output block of `o_ref` moves from (0, 0) to (0, 1)" at a step that starts a new output
  // block; "" at any other.
  static std::string BlockMove(const CallRecording& me, int64_t t) {
    int64_t k = NewOutputBlock(me, t);
    if (k < 0) return "";
    auto step = static_cast<size_t>(t);
    auto o = static_cast<size_t>(k);
    return fmt::format("the output block of `{}` moves from {} to {}", me.mapping.operand(o).name,
                       tpu::TupleString(me.blocks[step - 1][o]),
                       tpu::TupleString(me.blocks[step][o]));
  }

  // The output operand whose block changes at grid step `t` (from step t - 1), or -1.
  static int64_t NewOutputBlock(const CallRecording& me, int64_t t) {
    if (t <= 0 || static_cast<size_t>(t) >= me.blocks.size()) return -1;
    const auto& now = me.blocks[static_cast<size_t>(t)];
    const auto& before = me.blocks[static_cast<size_t>(t - 1)];
    for (size_t k = me.mapping.inputs.size(); k < now.size() && k < before.size(); ++k) {
      if (now[k] != before[k]) return static_cast<int64_t>(k);
    }
    return -1;
  }

  // A new output block starts at this step, and the write that resets the buffer sits under a
  // branch that ran at earlier steps but not at this one.
  bool NotResetPattern(const CallRecording& me, const BufferSnapshot& x) {
    std::string move = BlockMove(me, x.step);
    if (move.empty()) return false;
    auto t = static_cast<size_t>(x.step);
    for (const auto& [branch, write] : GuardedWrites(me, x.ref)) {
      int64_t before = branch->LastTakenBefore(x.step);
      if (before < 0 || (t < branch->taken_at.size() && branch->taken_at[t])) continue;
      const kernel::RefType& ref = me.kernel->refs[static_cast<size_t>(x.ref)];
      d_.lines.push_back(fmt::format(
          "why: at grid step {} {}; there the solution's `{}` starts afresh, but yours still "
          "holds the previous block's state",
          Point(me, x.step), move, ref.name));
      d_.lines.push_back(fmt::format(
          "the reset at {} runs only under `{}` ({}), which held at {} of {} grid steps, not at "
          "this one (before it, last at {})",
          Line(write->span), LineText(branch->span), Line(branch->span), branch->taken,
          branch->taken + branch->skipped, Point(me, before)));
      d_.patterns.push_back("not-reset");
      return true;
    }
    return false;
  }

  // Nothing ever wrote the buffer, and a write into it sits under a `pl.when` whose condition
  // never held.
  bool NeverRanPattern(const CallRecording& me, const BufferSnapshot& x) {
    if (x.last_write.valid()) return false;
    const kernel::RefType& ref = me.kernel->refs[static_cast<size_t>(x.ref)];
    for (const auto& [branch, write] : GuardedWrites(me, x.ref)) {
      if (branch->taken != 0) continue;
      std::string range;
      for (size_t d = 0; d < me.mapping.grid.size(); ++d) {
        range +=
            fmt::format("{}program_id({}) runs 0 to {}", d ? ", " : "", d, me.mapping.grid[d] - 1);
      }
      d_.lines.push_back(fmt::format(
          "why: the {} at {} into `{}` is under `{}` ({}), whose condition was false at every "
          "one of the {} grid steps ({})",
          WriteName(*write), Line(write->span), ref.name, LineText(branch->span),
          Line(branch->span), me.steps_run, range));
      d_.patterns.push_back("when-never-true");
      return true;
    }
    return false;
  }

  // got - want == previous: the buffer kept its old contents where the solution started afresh.
  bool CarriedOverPattern(const CallRecording& me, const BufferSnapshot& x, const BufferSnapshot& y,
                          const BufferSnapshot& previous, Tolerance tol) {
    const Array& got = x.data;
    const Array& want = y.data;
    const Array& prev = previous.data;
    if (prev.shape() != got.shape() || !array::IsFloating(got.dtype())) return false;
    bool any = false;
    for (int64_t i = 0; i < got.size(); ++i) {
      double p = prev.GetDouble(i);
      if (!Close(got.GetDouble(i) - want.GetDouble(i), p, tol)) return false;
      any |= std::fabs(p) > tol.atol;
    }
    if (!any) return false;
    const kernel::RefType& ref = me.kernel->refs[static_cast<size_t>(x.ref)];
    std::string move = BlockMove(me, x.step);
    d_.lines.push_back(fmt::format(
        "why: `{}` holds the solution's value plus what it held after grid step {}: it was not "
        "reset{}",
        ref.name, Point(me, previous.step), move.empty() ? std::string() : " when " + move));
    std::vector<GuardedWrite> resets = GuardedWrites(me, x.ref);
    if (!resets.empty()) {
      const auto& [branch, write] = resets.front();
      int64_t last = branch->LastTakenBefore(x.step + 1);
      d_.lines.push_back(fmt::format(
          "the write at {} runs only under `{}`, which held at {} of {} grid steps{}",
          Line(write->span), LineText(branch->span), branch->taken, branch->taken + branch->skipped,
          last >= 0 ? fmt::format(" (up to this one, last at {})", Point(me, last))
                    : std::string()));
    }
    d_.patterns.push_back("carried-over");
    return true;
  }

  // got - want == c * previous, row by row (the last axis), with 0 <= c < 1: a running sum that
  // keeps its old value where the solution scales it down first (online softmax's correction).
  bool NotRescaledPattern(const BufferSnapshot& x, const BufferSnapshot& y,
                          const BufferSnapshot& previous, Tolerance tol) {
    const Array& got = x.data;
    const Array& want = y.data;
    const Array& prev = previous.data;
    if (prev.shape() != got.shape() || !array::IsFloating(got.dtype()) || got.shape().empty()) {
      return false;
    }
    int64_t row = std::max<int64_t>(got.shape().back(), 1);
    double low = 1, high = 0;
    for (int64_t r = 0; r < got.size() / row; ++r) {
      // The factor from the row's largest previous value, then every element checked with it.
      int64_t pivot = r * row;
      for (int64_t j = r * row; j < (r + 1) * row; ++j) {
        if (std::fabs(prev.GetDouble(j)) > std::fabs(prev.GetDouble(pivot))) pivot = j;
      }
      double p = prev.GetDouble(pivot);
      if (std::fabs(p) <= tol.atol) continue;
      double c = (got.GetDouble(pivot) - want.GetDouble(pivot)) / p;
      if (!(c >= -tol.rtol && c < 1)) return false;
      for (int64_t j = r * row; j < (r + 1) * row; ++j) {
        if (!Close(got.GetDouble(j) - want.GetDouble(j), c * prev.GetDouble(j), tol)) return false;
      }
      low = std::min(low, c);
      high = std::max(high, c);
    }
    if (high <= tol.rtol) return false;
    d_.lines.push_back(fmt::format(
        "why: it differs from the solution's by a fraction ({:.2g} to {:.2g}) of what it held "
        "before, row by row: a running sum that is not rescaled when the running maximum "
        "changes (online softmax multiplies it by exp(m_old - m_new) before adding)",
        std::max(low, 0.0) + 0.0, high));
    d_.patterns.push_back("not-rescaled");
    return true;
  }

  // The learner's operands `i` and `j` hold exactly what the solution passes as `j` and `i`: the
  // arguments are swapped (one way is not enough: a constant array matches by chance).
  bool SwappedOperand(const CallRecording& me, const CallRecording& sol, size_t i,
                      const std::string& what) {
    auto operand = [](const CallRecording& c, size_t k) -> const Array& {
      return k < c.prefetch.size() ? c.prefetch[k] : c.inputs[k - c.prefetch.size()];
    };
    auto same = [](const Array& x, const Array& y) {
      return y.shape() == x.shape() && y.dtype() == x.dtype() &&
             FirstMismatch(x, y, DefaultTolerance(y.dtype())) < 0;
    };
    size_t n =
        std::min(me.prefetch.size() + me.inputs.size(), sol.prefetch.size() + sol.inputs.size());
    for (size_t j = 0; j < n; ++j) {
      if (j == i || !same(operand(me, i), operand(sol, j)) ||
          !same(operand(me, j), operand(sol, i))) {
        continue;
      }
      const kernel::GridMapping& m = me.mapping;
      std::string name = j < me.prefetch.size()
                             ? (j < m.prefetch.size() ? m.prefetch[j].name : std::string("?"))
                             : m.inputs[j - me.prefetch.size()].name;
      d_.lines.push_back(fmt::format(
          "why: your {} holds what the solution passes as `{}`, and your `{}` what it passes "
          "as the first: the two arguments are swapped",
          what, name, name));
      d_.patterns.push_back("swapped-operands");
      return true;
    }
    return false;
  }

  // The first failing value check's first differing output, followed back through the eager
  // steps that made it (no pallas_call differs, or none ran).
  bool FollowCheckedValue() {
    const std::vector<CheckReport>& checks = me_.run.checks;
    const auto& mine = me_.eager->actuals;
    const auto& theirs = sol_.eager->actuals;
    for (size_t c = 0; c < checks.size(); ++c) {
      if (checks[c].passed() || !checks[c].values) continue;
      if (c >= mine.size()) return false;
      // The solution's run of the same check (by name: a loop that returns at its first failure
      // runs fewer checks), if it has one.
      const std::vector<std::optional<Array>>* same = nullptr;
      for (size_t s = 0; s < sol_.run.checks.size() && s < theirs.size(); ++s) {
        if (sol_.run.checks[s].name == checks[c].name) {
          same = &theirs[s];
          break;
        }
      }
      for (size_t k = 0; k < mine[c].size(); ++k) {
        if (!mine[c][k]) continue;
        const Array& got = *mine[c][k];
        std::optional<Array> want;
        if (same != nullptr && k < same->size()) want = (*same)[k];
        if (want) {
          if (got.shape() == want->shape() && got.dtype() == want->dtype() &&
              FirstMismatch(got, *want, DefaultTolerance(want->dtype())) < 0) {
            continue;
          }
        } else if (sol_.eager->Computes(got)) {
          continue;  // without the solution's result, a value it has is taken as right
        }
        if (d_.summary.empty()) {
          d_.summary = fmt::format(
              "check `{}` gets another result from your code than from the "
              "solution's (no pallas_call ran)",
              checks[c].name);
        }
        return WhyValue(got, want);
      }
      return false;
    }
    return false;
  }

  // Why the learner's value `start` is wrong: the eager steps followed back to the first value
  // the solution never computes, where that is in the learner's code; else the first call into
  // the puzzle's own functions that gets other arguments than the solution's; else what the
  // values show.
  bool WhyValue(const Array& start, const std::optional<Array>& sol_result) {
    Divergence followed;
    bool found = FollowEagerValue(me_, *me_.eager, *sol_.eager, start, sol_result, followed);
    bool in_given_code = std::find(followed.patterns.begin(), followed.patterns.end(),
                                   "given-code") != followed.patterns.end();
    if ((!found || in_given_code) && ExplainArguments(me_, sol_, d_)) return true;
    d_.lines.insert(d_.lines.end(), followed.lines.begin(), followed.lines.end());
    d_.patterns.insert(d_.patterns.end(), followed.patterns.begin(), followed.patterns.end());
    return found;
  }

  const Recorded& me_;
  const Recorded& sol_;
  Divergence d_;
  size_t call_ = 0;
  std::optional<Place> place_;
};

}  // namespace

std::optional<Divergence> FindDivergence(const fs::path& program, const fs::path& solution,
                                         const RunOptions& options) {
  std::unique_ptr<Recorded> sol = Record(solution, options);
  if (!sol->run.passed()) return std::nullopt;
  std::unique_ptr<Recorded> me = Record(program, options);
  // Only a wrong value is searched for: a check of counters (check_saves) fails with the right
  // values.
  bool wrong_values = std::any_of(me->run.checks.begin(), me->run.checks.end(),
                                  [](const CheckReport& c) { return !c.passed() && c.values; });
  if (me->run.status != RunStatus::kFailed) return std::nullopt;
  // A check of counters that fails first is explained by its breakdown (a wrong formula often
  // makes later values wrong too).
  auto first_failed = std::find_if(me->run.checks.begin(), me->run.checks.end(),
                                   [](const CheckReport& c) { return !c.passed(); });
  if (first_failed != me->run.checks.end() && !first_failed->values) {
    if (std::optional<Divergence> counts = ExplainCounts(*me)) return counts;
  }
  if (!wrong_values) return std::nullopt;
  Comparer comparer(*me, *sol);
  std::optional<Divergence> d = comparer.Run();
  // Where no pattern said why and the calls are configured alike, an off-by-one comparison is
  // tried: the flip is kept only when it makes the whole program pass; first the kernels', then
  // those of the code around them. Then the values of the divergent step are followed back to
  // where the two kernels part.
  if (d && d->patterns.empty() && options.emulator.probe == nullptr) {
    TryFlippedComparisons(program, options, *me, *d);
  }
  if ((!d || d->patterns.empty()) && options.emulator.probe == nullptr) {
    Divergence flipped;
    if (TryFlippedSourceComparisons(program, options, *me, d ? *d : flipped) && !d) {
      auto failed = std::find_if(me->run.checks.begin(), me->run.checks.end(),
                                 [](const CheckReport& c) { return !c.passed(); });
      flipped.summary = fmt::format(
          "check `{}` gets another result from your code than from "
          "the solution's",
          failed->name);
      d = std::move(flipped);
    }
  }
  // (Only where the learner's kernel writes the buffer at all: "nothing had written it" already
  // says the rest, and the two runs it would take are saved.)
  if (d && d->patterns.empty() && options.emulator.probe == nullptr && comparer.place() &&
      comparer.place()->call < me->calls.size() &&
      kernel::FirstWriteTo(me->calls[comparer.place()->call].kernel->body, comparer.place()->ref) !=
          nullptr) {
    const auto& place = *comparer.place();
    TraceFirstWrongValue(program, solution, options, place.call, place.point, place.ref, *me, *sol,
                         *d);
  }
  return d;
}

std::string FormatDivergence(const Divergence& divergence) {
  std::string out = "first difference from the solution, run on the same inputs:\n";
  out += "  " + divergence.summary + "\n";
  for (const std::string& line : divergence.lines) out += "    " + line + "\n";
  return out;
}

}  // namespace pz::course

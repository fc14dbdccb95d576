#include "course/divergence.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <unordered_map>

#include "array/dtype.h"
#include "course/compare.h"
#include "tpu/executor.h"
#include "tpu/probe.h"
#include "tpu/step_record.h"

namespace pz::course {
namespace {

namespace fs = std::filesystem;
using array::Array;
using tpu::BufferSnapshot;
using tpu::CallRecording;

// A program run with step records, and the files its spans point into.
struct Recorded {
  PuzzleRun run;
  std::vector<CallRecording> calls;
  const SourceManager& sources() const { return *run.sources; }
};

std::unique_ptr<Recorded> Record(const fs::path& file, const RunOptions& options) {
  auto out = std::make_unique<Recorded>();
  auto recorder = std::make_shared<tpu::StepRecorder>();
  RunOptions recording = QuietRerun(options);  // the emulated TPU, whatever ran the check
  recording.emulator.recorder = recorder;
  out->run = RunFile(file, recording);
  out->calls = std::move(recorder->calls);
  return out;
}

// The first element (flat, row-major) where `got` and `want` differ beyond `tol`; -1 when none.
// Both are contiguous copies of one shape.
int64_t FirstDifference(const Array& got, const Array& want, Tolerance tol) {
  for (int64_t i = 0; i < want.size(); ++i) {
    if (!Close(got.GetDouble(i), want.GetDouble(i), tol)) return i;
  }
  return -1;
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
    if (n == 0) return std::nullopt;
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
    return std::move(d_);
  }

 private:
  // Line text, trimmed, of the line `span` starts on (in the learner's file).
  std::string LineText(SourceSpan span) const {
    if (!span.valid()) return "";
    const SourceFile& file = me_.sources().Get(span.file);
    std::string_view line = file.Line(file.Locate(span.begin).line);
    size_t first = line.find_first_not_of(" \t");
    return first == std::string_view::npos ? "" : std::string(line.substr(first));
  }
  std::string Line(SourceSpan span) const {
    if (!span.valid()) return "?";
    return fmt::format("line {}", me_.sources().Get(span.file).Locate(span.begin).line);
  }
  std::string At(SourceSpan span) const {
    return fmt::format("{}: {}", Line(span), LineText(span));
  }
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
    auto compare = [&](const Array& x, const Array& y, const std::string& what) {
      if (x.shape() != y.shape() || x.dtype() != y.dtype()) {
        d_.summary = fmt::format("{} of {} is {} {}; the solution's is {} {}", what, CallName(me),
                                 array::DTypeName(x.dtype()), tpu::TupleString(x.shape()),
                                 array::DTypeName(y.dtype()), tpu::TupleString(y.shape()));
      } else {
        int64_t at = FirstDifference(x, y, DefaultTolerance(y.dtype()));
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
      return true;
    };
    for (size_t i = 0; i < me.prefetch.size(); ++i) {
      std::string what = fmt::format(
          "scalar-prefetch operand {} (`{}`)", i,
          i < me.mapping.prefetch.size() ? me.mapping.prefetch[i].name : std::string("?"));
      if (compare(me.prefetch[i], sol.prefetch[i], what)) return true;
    }
    for (size_t i = 0; i < me.inputs.size(); ++i) {
      std::string what = fmt::format("input `{}`", me.mapping.inputs[i].name);
      if (compare(me.inputs[i], sol.inputs[i], what)) return true;
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
      int64_t at = FirstDifference(x.data, y.data, tol);
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

  const Recorded& me_;
  const Recorded& sol_;
  Divergence d_;
  size_t call_ = 0;
  std::optional<Place> place_;
};

// The integer comparisons (lt, le, gt, ge) of the kernels `calls` ran, in program order, once
// per source place: masks of positions and guards of program ids, where an off-by-one hides.
std::vector<const kernel::Instr*> IndexComparisons(const std::vector<CallRecording>& calls) {
  std::vector<const kernel::Instr*> found;
  std::function<void(const kernel::Function&, const kernel::Region&)> walk =
      [&](const kernel::Function& f, const kernel::Region& region) {
        for (const kernel::Instr& instr : region.body) {
          for (const kernel::Region& inner : instr.regions) walk(f, inner);
          if (!kernel::IsPrim(instr.op) || instr.operands.size() != 2) continue;
          array::Prim p = instr.prim.prim;
          if (p != array::Prim::kLt && p != array::Prim::kLe && p != array::Prim::kGt &&
              p != array::Prim::kGe) {
            continue;
          }
          if (!array::IsInteger(f.values[static_cast<size_t>(instr.operands[0])].dtype)) continue;
          bool seen = std::any_of(found.begin(), found.end(), [&](const kernel::Instr* other) {
            return other->span == instr.span;
          });
          if (!seen && instr.span.valid()) found.push_back(&instr);
        }
      };
  for (const CallRecording& call : calls) walk(*call.kernel, call.kernel->body);
  return found;
}

std::string_view ComparisonSymbol(array::Prim p, bool twin) {
  switch (p) {
    case array::Prim::kLt:
      return twin ? "<=" : "<";
    case array::Prim::kLe:
      return twin ? "<" : "<=";
    case array::Prim::kGt:
      return twin ? ">=" : ">";
    default:
      return twin ? ">" : ">=";
  }
}

// Tries each integer comparison of the learner's kernels with its strict / non-strict twin; when
// one flip makes every check pass, says so: the mask or guard there is off by one.
void TryFlippedComparisons(const fs::path& program, const RunOptions& options, const Recorded& me,
                           Divergence& d) {
  constexpr size_t kMaxTrials = 4;
  std::vector<const kernel::Instr*> candidates = IndexComparisons(me.calls);
  if (candidates.size() > kMaxTrials) candidates.resize(kMaxTrials);
  for (const kernel::Instr* instr : candidates) {
    RunOptions trial = QuietRerun(options);
    auto probe = std::make_shared<tpu::Probe>();
    probe->flipped.push_back(instr->span);
    trial.emulator.probe = probe;
    if (!RunFile(program, trial).passed()) continue;
    const SourceFile& file = me.sources().Get(instr->span.file);
    LineCol at = file.Locate(instr->span.begin);
    std::string_view text = file.Line(at.line);
    size_t first = text.find_first_not_of(" \t");
    d.lines.push_back(fmt::format(
        "why: the comparison at line {} is off by one: with `{}` in place of `{}` there, every "
        "check passes",
        at.line, ComparisonSymbol(instr->prim.prim, true),
        ComparisonSymbol(instr->prim.prim, false)));
    d.lines.push_back(fmt::format("line {}: {}", at.line,
                                  first == std::string_view::npos ? "" : text.substr(first)));
    array::Prim p = instr->prim.prim;
    bool inclusive = p == array::Prim::kLe || p == array::Prim::kGe;
    d.lines.push_back(fmt::format(
        "the two differ only where both sides are equal (the diagonal of a causal mask, the "
        "last block of a range): your condition {} that case, and the checks need it {}",
        inclusive ? "includes" : "excludes", inclusive ? "excluded" : "included"));
    d.patterns.push_back("off-by-one");
    return;
  }
}

// Runs `file` again, capturing every value the kernel of call `call` computes at grid point
// `point` (probe.h).
std::shared_ptr<tpu::Probe> CaptureStep(const fs::path& file, const RunOptions& options,
                                        size_t call, const std::vector<int64_t>& point) {
  RunOptions capture = QuietRerun(options);
  auto probe = std::make_shared<tpu::Probe>();
  probe->capture_call = static_cast<int64_t>(call);
  probe->capture_point = point;
  capture.emulator.probe = probe;
  RunFile(file, capture);
  return probe;
}

// The values the solution's kernel computed at the step, by element count, to look a learner's
// value up among them.
class SolutionValues {
 public:
  explicit SolutionValues(const std::vector<tpu::CapturedValue>& captured) {
    for (const tpu::CapturedValue& c : captured) {
      bool computed = kernel::IsPrim(c.op);
      for (const Array& a : c.results) by_size_[a.size()].push_back({&a, computed});
    }
  }
  // Whether the solution computed `a` (the same elements, in row-major order, within a
  // tolerance looser than the checks': another order of additions is still the same value). A
  // single number computed by a primitive is matched only by one the solution computed too: a
  // program id or a literal of the same value is a coincidence, not the same computation.
  bool Has(const Array& a, bool computed) const {
    auto it = by_size_.find(a.size());
    if (it == by_size_.end()) return false;
    Tolerance tol{1e-5, 1e-4};
    for (const auto& [s, s_computed] : it->second) {
      if (a.size() == 1 && computed && !s_computed) continue;
      bool same = true;
      for (int64_t i = 0; i < a.size() && same; ++i) {
        same = Close(a.GetDouble(i), s->GetDouble(i), tol);
      }
      if (same) return true;
    }
    return false;
  }

 private:
  std::unordered_map<int64_t, std::vector<std::pair<const Array*, bool>>> by_size_;
};

// Where no pattern said why: both kernels run the divergent grid step again with every value
// captured. Following the wrong value back from the store that wrote the differing buffer, the
// first value (in execution order) that the solution's kernel never computes at that step while
// every value it is made from is one the solution has marks the line where the computations
// part. Said as what the values show, not as a certain cause.
void TraceFirstWrongValue(const fs::path& program, const fs::path& solution,
                          const RunOptions& options, size_t call, const std::vector<int64_t>& point,
                          kernel::RefId ref, const Recorded& me, Divergence& d) {
  std::shared_ptr<tpu::Probe> mine = CaptureStep(program, options, call, point);
  std::shared_ptr<tpu::Probe> theirs = CaptureStep(solution, options, call, point);
  const std::vector<tpu::CapturedValue>& got = mine->captured;
  if (got.empty() || theirs->captured.empty() || got.size() >= tpu::Probe::kMaxCaptured) return;
  SolutionValues known(theirs->captured);
  // The entries a value depends on: its operands; through a load, the value last stored into
  // that ref during the step.
  auto deps = [&](int64_t e) {
    const tpu::CapturedValue& c = got[static_cast<size_t>(e)];
    std::vector<int64_t> out = c.operands;  // -1: not made at this step (a loop's carry)
    if (c.op == kernel::Op::kLoad && c.stored_by >= 0) {
      const tpu::CapturedValue& store = got[static_cast<size_t>(c.stored_by)];
      if (!store.operands.empty()) out.push_back(store.operands[0]);
    }
    return out;
  };
  std::vector<int8_t> matched(got.size(), -1);  // -1: not looked up yet
  auto is_known = [&](int64_t e) {
    int8_t& m = matched[static_cast<size_t>(e)];
    if (m < 0) {
      const tpu::CapturedValue& c = got[static_cast<size_t>(e)];
      // A single program id or literal is given, not computed: it is what it is.
      bool given =
          c.op == kernel::Op::kProgramId ||
          (c.op == kernel::Op::kConstant && c.results.size() == 1 && c.results[0].size() == 1);
      m = 1;
      for (const Array& a : c.results) m = m && (given || known.Has(a, kernel::IsPrim(c.op)));
    }
    return m == 1;
  };
  // The cone of the last store into the differing buffer.
  int64_t store = -1;
  for (int64_t e = static_cast<int64_t>(got.size()) - 1; e >= 0 && store < 0; --e) {
    const tpu::CapturedValue& c = got[static_cast<size_t>(e)];
    if (c.op == kernel::Op::kStore && c.ref == ref) store = e;
  }
  if (store < 0) {
    // The solution's kernel writes the buffer at this step and yours does not.
    bool theirs_store = std::any_of(
        theirs->captured.begin(), theirs->captured.end(),
        [&](const tpu::CapturedValue& c) { return c.op == kernel::Op::kStore && c.ref == ref; });
    if (!theirs_store || call >= me.calls.size()) return;
    const CallRecording& recording = me.calls[call];
    const std::string& name = recording.kernel->refs[static_cast<size_t>(ref)].name;
    d.lines.push_back(fmt::format(
        "why: at this grid step the solution's kernel stores into `{}`, and yours does not", name));
    int64_t t = 0;
    for (size_t k = 0; k < point.size(); ++k) t = t * recording.mapping.grid[k] + point[k];
    // Every guarded write into the buffer whose condition did not hold here: which one should
    // have run is the learner's to tell.
    auto line_of = [&](SourceSpan span) {
      return me.sources().Get(span.file).Locate(span.begin).line;
    };
    for (const tpu::BranchRecord& branch : recording.branches) {
      if (branch.instr->regions.empty()) continue;
      const kernel::Instr* write = kernel::FirstWriteTo(branch.instr->regions[0], ref);
      auto at = static_cast<size_t>(t);
      if (write == nullptr || (at < branch.taken_at.size() && branch.taken_at[at])) continue;
      const SourceFile& file = me.sources().Get(branch.span.file);
      int line = line_of(branch.span);
      std::string_view text = file.Line(line);
      size_t first = text.find_first_not_of(" \t");
      d.lines.push_back(fmt::format(
          "your store at line {} runs under `{}` (line {}), which does not hold at this step",
          line_of(write->span), first == std::string_view::npos ? "" : text.substr(first), line));
    }
    d.patterns.push_back("store-skipped");
    return;
  }
  if (got[static_cast<size_t>(store)].operands.empty()) return;
  std::vector<char> in_cone(got.size(), 0);
  std::vector<int64_t> stack{got[static_cast<size_t>(store)].operands[0]};
  while (!stack.empty()) {
    int64_t e = stack.back();
    stack.pop_back();
    if (e < 0 || in_cone[static_cast<size_t>(e)]) continue;  // (-1: not followed)
    in_cone[static_cast<size_t>(e)] = 1;
    for (int64_t dep : deps(e)) stack.push_back(dep);
  }
  for (size_t e = 0; e < got.size(); ++e) {
    const tpu::CapturedValue& c = got[e];
    if (!in_cone[e] || c.results.empty() || is_known(static_cast<int64_t>(e))) continue;
    std::vector<int64_t> inputs = deps(static_cast<int64_t>(e));
    bool from_known = std::all_of(inputs.begin(), inputs.end(),
                                  [&](int64_t dep) { return dep >= 0 && is_known(dep); });
    // A load with nothing stored before it in the step reads what earlier steps left: that the
    // value differs there says nothing about this line.
    if (!from_known || (c.op == kernel::Op::kLoad && c.stored_by < 0)) continue;
    const SourceFile& file = me.sources().Get(c.span.file);
    int line = file.Locate(c.span.begin).line;
    std::string_view text = file.Line(line);
    size_t first = text.find_first_not_of(" \t");
    d.lines.push_back(fmt::format(
        "why, as far as the values show: at this grid step, line {} is where your kernel first "
        "computes a value that the solution's never does{}",
        line,
        inputs.empty() ? " (a constant or an index)"
                       : ", from values that the solution's kernel computes too"));
    d.lines.push_back(fmt::format("line {}: {}", line,
                                  first == std::string_view::npos ? "" : text.substr(first)));
    d.patterns.push_back("first-wrong-value");
    return;
  }
}

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
  if (me->run.status != RunStatus::kFailed || !wrong_values) return std::nullopt;
  Comparer comparer(*me, *sol);
  std::optional<Divergence> d = comparer.Run();
  // Where no pattern said why and the calls are configured alike, an off-by-one comparison is
  // tried: the flip is kept only when it makes the whole program pass. Then the values of the
  // divergent step are followed back to where the two kernels part.
  if (d && d->patterns.empty() && options.emulator.probe == nullptr) {
    TryFlippedComparisons(program, options, *me, *d);
  }
  // (Only where the learner's kernel writes the buffer at all: "nothing had written it" already
  // says the rest, and the two runs it would take are saved.)
  if (d && d->patterns.empty() && options.emulator.probe == nullptr && comparer.place() &&
      comparer.place()->call < me->calls.size() &&
      kernel::FirstWriteTo(me->calls[comparer.place()->call].kernel->body, comparer.place()->ref) !=
          nullptr) {
    const auto& place = *comparer.place();
    TraceFirstWrongValue(program, solution, options, place.call, place.point, place.ref, *me, *d);
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

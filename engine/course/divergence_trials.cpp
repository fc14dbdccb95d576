#include "course/divergence_trials.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>

#include "array/dtype.h"
#include "course/compare.h"
#include "course/puzzle_file.h"
#include "lang/lexer.h"
#include "tpu/probe.h"

namespace pz::course {

namespace fs = std::filesystem;
using array::Array;
using tpu::CallRecording;

std::string Recorded::Line(SourceSpan span) const {
  if (!span.valid()) return "?";
  return fmt::format("line {}", sources().Get(span.file).Locate(span.begin).line);
}

std::string Recorded::LineText(SourceSpan span) const {
  if (!span.valid()) return "";
  const SourceFile& file = sources().Get(span.file);
  std::string_view line = file.Line(file.Locate(span.begin).line);
  size_t first = line.find_first_not_of(" \t");
  return first == std::string_view::npos ? "" : std::string(line.substr(first));
}

std::string Recorded::At(SourceSpan span) const {
  return fmt::format("{}: {}", Line(span), LineText(span));
}

bool SameValues(const Array& a, const Array& b) {
  if (a.shape() != b.shape()) return false;
  Tolerance tol{1e-5, 1e-4};
  for (int64_t i = 0; i < a.size(); ++i) {
    double x = a.GetDouble(i), y = b.GetDouble(i);
    if (std::isnan(x) && std::isnan(y)) continue;
    if (!Close(x, y, tol)) return false;
  }
  return true;
}

bool UniformArray(const Array& a) {
  for (int64_t i = 1; i < a.size(); ++i) {
    double x = a.GetDouble(i), first = a.GetDouble(0);
    if (!(x == first || (std::isnan(x) && std::isnan(first)))) return false;
  }
  return true;
}

std::string JoinWords(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == words.size() ? " and " : ", ") + words[i];
  }
  return out;
}

namespace {

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
      for (const Array& a : c.results) by_size_[a.size()].push_back({&a, c.op});
    }
  }
  // Whether the solution computed `a` (the same elements, in row-major order, within a
  // tolerance looser than the checks': another order of additions is still the same value). A
  // single number computed by a primitive is matched only by one the solution computed too: a
  // program id or a literal of the same value is a coincidence, not the same computation. So is
  // an array of one number repeated (zeros, ones) unless the same operation made it.
  bool Has(const Array& a, kernel::Op op) const {
    auto it = by_size_.find(a.size());
    if (it == by_size_.end()) return false;
    bool computed = kernel::IsPrim(op);
    bool uniform = a.size() > 1 && UniformArray(a);
    Tolerance tol{1e-5, 1e-4};
    for (const auto& [s, s_op] : it->second) {
      if (a.size() == 1 && computed && !kernel::IsPrim(s_op)) continue;
      if (uniform && computed && s_op != op) continue;
      bool same = true;
      for (int64_t i = 0; i < a.size() && same; ++i) {
        same = Close(a.GetDouble(i), s->GetDouble(i), tol);
      }
      if (same) return true;
    }
    return false;
  }

 private:
  std::unordered_map<int64_t, std::vector<std::pair<const Array*, kernel::Op>>> by_size_;
};

// The instruction of `region` (nested regions included) that makes value `id`; null when none.
const kernel::Instr* MadeBy(const kernel::Region& region, kernel::ValueId id) {
  for (const kernel::Instr& instr : region.body) {
    if (std::find(instr.results.begin(), instr.results.end(), id) != instr.results.end()) {
      return &instr;
    }
    for (const kernel::Region& inner : instr.regions) {
      if (const kernel::Instr* found = MadeBy(inner, id)) return found;
    }
  }
  return nullptr;
}

// Whether a primitive of kind `op` uses, within a few steps, a value made from entry `from`
// (through operands, and through a store and a later load of the same ref in the step).
bool ReachesOp(const std::vector<tpu::CapturedValue>& entries, int64_t from, kernel::Op op) {
  constexpr int kSteps = 6;
  std::vector<int64_t> frontier{from};
  std::vector<char> seen(entries.size(), 0);
  for (int depth = 0; depth < kSteps && !frontier.empty(); ++depth) {
    std::vector<int64_t> next;
    for (size_t e = 0; e < entries.size(); ++e) {
      const tpu::CapturedValue& c = entries[e];
      if (seen[e]) continue;
      bool uses = std::any_of(frontier.begin(), frontier.end(), [&](int64_t f) {
        return std::find(c.operands.begin(), c.operands.end(), f) != c.operands.end() ||
               (c.op == kernel::Op::kLoad && c.stored_by >= 0 &&
                std::find(frontier.begin(), frontier.end(), c.stored_by) != frontier.end());
      });
      if (!uses) continue;
      if (depth > 0 && c.op == op) return true;
      seen[e] = 1;
      next.push_back(static_cast<int64_t>(e));
    }
    frontier = std::move(next);
  }
  return false;
}

// Whether `c` loads a whole block of one of the kernel's inputs (`x_ref[...]`).
bool WholeInputBlock(const kernel::Function& kernel, const tpu::CapturedValue& c) {
  if (c.op != kernel::Op::kLoad || c.ref < 0 || static_cast<size_t>(c.ref) >= kernel.refs.size() ||
      c.results.size() != 1) {
    return false;
  }
  const kernel::RefType& ref = kernel.refs[static_cast<size_t>(c.ref)];
  return ref.role == kernel::RefRole::kInput && c.results[0].shape() == ref.shape;
}

// The way from entry `from` on to a store into `ref`: the primitives on it, in order, and
// whether one of them also takes a load of `ref` (the buffer's old contents).
struct StorePath {
  std::vector<std::string> ops;
  bool reads_ref = false;
};
std::optional<StorePath> PathToStore(const std::vector<tpu::CapturedValue>& entries, int64_t from,
                                     kernel::RefId ref) {
  constexpr int kSteps = 6;
  std::vector<int64_t> parent(entries.size(), -2);  // -2: not reached
  std::vector<int64_t> frontier{from};
  parent[static_cast<size_t>(from)] = -1;
  for (int depth = 0; depth < kSteps && !frontier.empty(); ++depth) {
    std::vector<int64_t> next;
    for (size_t e = 0; e < entries.size(); ++e) {
      const tpu::CapturedValue& c = entries[e];
      if (parent[e] != -2) continue;
      int64_t via = -1;
      for (int64_t f : frontier) {
        if (std::find(c.operands.begin(), c.operands.end(), f) != c.operands.end()) via = f;
      }
      if (via < 0) continue;
      if (c.op == kernel::Op::kStore) {
        if (c.ref != ref || c.operands.empty() || c.operands[0] != via || depth == 0) continue;
        StorePath path;
        for (int64_t p = via; p >= 0 && p != from; p = parent[static_cast<size_t>(p)]) {
          const tpu::CapturedValue& step = entries[static_cast<size_t>(p)];
          path.ops.insert(path.ops.begin(), std::string(kernel::OpName(step.op)));
          for (int64_t operand : step.operands) {
            if (operand >= 0 && entries[static_cast<size_t>(operand)].op == kernel::Op::kLoad &&
                entries[static_cast<size_t>(operand)].ref == ref) {
              path.reads_ref = true;
            }
          }
        }
        return path;
      }
      if (!kernel::IsPrim(c.op)) continue;
      parent[e] = via;
      next.push_back(static_cast<int64_t>(e));
    }
    frontier = std::move(next);
  }
  return std::nullopt;
}

// The spans of the instructions of `region` and the regions inside it.
void CollectSpans(const kernel::Region& region, std::vector<SourceSpan>& out) {
  for (const kernel::Instr& instr : region.body) {
    if (instr.span.valid()) out.push_back(instr.span);
    for (const kernel::Region& inner : instr.regions) CollectSpans(inner, out);
  }
}

// The kFor instructions of `region` and the regions inside it, in program order.
void CollectLoops(const kernel::Region& region, std::vector<const kernel::Instr*>& out) {
  for (const kernel::Instr& instr : region.body) {
    if (instr.op == kernel::Op::kFor) out.push_back(&instr);
    for (const kernel::Region& inner : instr.regions) CollectLoops(inner, out);
  }
}

// The one number value `id` holds everywhere when it is a constant, or a constant only
// broadcast, reshaped or converted (jnp.zeros, jnp.full); nullopt otherwise.
std::optional<double> StaticFill(const kernel::Region& body, kernel::ValueId id, int depth = 0) {
  const kernel::Instr* instr = depth > 8 ? nullptr : MadeBy(body, id);
  if (instr == nullptr) return std::nullopt;
  if (instr->op == kernel::Op::kConstant) {
    if (!instr->constant || instr->constant->size() == 0) return std::nullopt;
    double first = instr->constant->GetDouble(0);
    for (int64_t i = 1; i < instr->constant->size(); ++i) {
      if (instr->constant->GetDouble(i) != first) return std::nullopt;
    }
    return first;
  }
  bool moves = instr->op == kernel::OpOf(array::Prim::kBroadcastInDim) ||
               instr->op == kernel::OpOf(array::Prim::kReshape) ||
               instr->op == kernel::OpOf(array::Prim::kConvertElementType);
  if (!moves || instr->operands.size() != 1) return std::nullopt;
  return StaticFill(body, instr->operands[0], depth + 1);
}

bool SameNumber(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// The one number a captured value holds in every element when it is made from constants alone
// (a literal, jnp.full, zeros broadcast to a shape); nullopt otherwise.
std::optional<double> FillValue(const std::vector<tpu::CapturedValue>& entries, int64_t e,
                                int depth = 0) {
  if (e < 0 || depth > 8) return std::nullopt;
  const tpu::CapturedValue& c = entries[static_cast<size_t>(e)];
  if (c.results.size() != 1 || c.results[0].size() == 0) return std::nullopt;
  bool constant = c.op == kernel::Op::kConstant;
  if (!constant) {
    if (!kernel::IsPrim(c.op) || c.operands.empty()) return std::nullopt;
    for (int64_t dep : c.operands) {
      if (!FillValue(entries, dep, depth + 1)) return std::nullopt;
    }
  }
  const Array& a = c.results[0];
  double first = a.GetDouble(0);
  for (int64_t i = 1; i < a.size(); ++i) {
    if (!SameNumber(a.GetDouble(i), first)) return std::nullopt;
  }
  return first;
}

}  // namespace

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
    d.lines.push_back(fmt::format(
        "why: the comparison at {} is off by one: with `{}` in place of `{}` there, every check "
        "passes",
        me.Line(instr->span), ComparisonSymbol(instr->prim.prim, true),
        ComparisonSymbol(instr->prim.prim, false)));
    d.lines.push_back(me.At(instr->span));
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

// The same off-by-one search in the learner's plain Python and jax.numpy code: each `<`, `<=`,
// `>` or `>=` written inside the file's editable regions (and not on a line whose kernel
// comparison was tried already) is swapped for its twin in the program's text, which runs again.
bool TryFlippedSourceComparisons(const fs::path& program, const RunOptions& options,
                                 const Recorded& me, Divergence& d) {
  constexpr size_t kMaxTrials = 4;
  std::optional<std::string> text = ReadFile(program);
  if (!text) return false;
  RegionScan scan = FindRegions(*text);
  if (scan.regions.empty() || !scan.errors.empty()) return false;
  SourceFile file(program.string(), *text);
  DiagnosticSink sink;
  std::vector<lang::Token> tokens = lang::Tokenize(file, FileId{0}, sink);
  if (sink.HasErrors()) return false;
  std::vector<int> tried_lines;
  for (const kernel::Instr* instr : IndexComparisons(me.calls)) {
    if (instr->span.valid() && me.sources().Get(instr->span.file).path() == program.string()) {
      tried_lines.push_back(me.sources().Get(instr->span.file).Locate(instr->span.begin).line);
    }
  }
  size_t trials = 0;
  for (const lang::Token& token : tokens) {
    std::string_view twin;
    switch (token.kind) {
      case lang::TokenKind::kLess:
        twin = "<=";
        break;
      case lang::TokenKind::kLessEq:
        twin = "<";
        break;
      case lang::TokenKind::kGreater:
        twin = ">=";
        break;
      case lang::TokenKind::kGreaterEq:
        twin = ">";
        break;
      default:
        continue;
    }
    int line = file.Locate(token.span.begin).line;
    if (!InRegion(scan.regions, line) ||
        std::find(tried_lines.begin(), tried_lines.end(), line) != tried_lines.end()) {
      continue;
    }
    if (trials++ == kMaxTrials) break;
    std::string flipped = *text;
    flipped.replace(token.span.begin, token.span.end - token.span.begin, twin);
    RunOptions trial = QuietRerun(options);
    trial.source = flipped;
    if (!RunFile(program, trial).passed()) continue;
    std::string_view written =
        std::string_view(*text).substr(token.span.begin, token.span.end - token.span.begin);
    std::string_view code = file.Line(line);
    size_t first = code.find_first_not_of(" \t");
    d.lines.push_back(fmt::format(
        "why: the comparison at line {} is off by one: with `{}` in place of `{}` there, every "
        "check passes",
        line, twin, written));
    d.lines.push_back(fmt::format("line {}: {}", line,
                                  first == std::string_view::npos ? "" : code.substr(first)));
    bool inclusive = written.size() == 2;
    d.lines.push_back(fmt::format(
        "the two differ only where both sides are equal: your condition {} that case, and the "
        "checks need it {}",
        inclusive ? "includes" : "excludes", inclusive ? "excluded" : "included"));
    d.patterns.push_back("off-by-one");
    return true;
  }
  return false;
}

namespace {

// The values both kernels computed at the divergent grid step, and the named patterns read off
// them (TraceFirstWrongValue).
class StepTrace {
 public:
  StepTrace(const Recorded& me, const Recorded& sol, size_t call, kernel::RefId ref,
            const std::vector<tpu::CapturedValue>& got,
            const std::vector<tpu::CapturedValue>& theirs, Divergence& d)
      : me_(me),
        sol_(sol),
        call_(call),
        ref_(ref),
        kernel_(*me.calls[call].kernel),
        got_(got),
        theirs_(theirs),
        known_(theirs),
        matched_(got.size(), -1),
        in_cone_(got.size(), 0),
        d_(d) {}

  void Run(const std::vector<int64_t>& point) {
    // The last store into the differing buffer, whose value is followed back.
    int64_t store = -1;
    for (int64_t e = static_cast<int64_t>(got_.size()) - 1; e >= 0 && store < 0; --e) {
      if (At(e).op == kernel::Op::kStore && At(e).ref == ref_) store = e;
    }
    if (store < 0) {
      StoreSkipped(point);
      return;
    }
    if (At(store).operands.empty()) return;
    MarkCone(At(store).operands[0]);
    if (LoopStartDiffers() || StoredTooEarly(store)) return;
    FirstWrongValue();
  }

 private:
  const tpu::CapturedValue& At(int64_t e) const { return got_[static_cast<size_t>(e)]; }
  const std::string& RefName(kernel::RefId ref) const {
    return kernel_.refs[static_cast<size_t>(ref)].name;
  }

  // The entries a value depends on: its operands; through a load, the value last stored into
  // that ref during the step (-1: not made at this step, a loop's carry).
  std::vector<int64_t> Deps(int64_t e) const {
    const tpu::CapturedValue& c = At(e);
    std::vector<int64_t> out = c.operands;
    if (c.op == kernel::Op::kLoad && c.stored_by >= 0) {
      const tpu::CapturedValue& store = At(c.stored_by);
      if (!store.operands.empty()) out.push_back(store.operands[0]);
    }
    return out;
  }

  // Whether the solution's kernel has the value of entry `e`. A single program id or literal is
  // given, not computed: it is what it is. So is a whole input block: the two calls are
  // configured alike, so it holds the same data for both kernels, whether or not the
  // solution's reads it at this step.
  bool Known(int64_t e) {
    int8_t& m = matched_[static_cast<size_t>(e)];
    if (m < 0) {
      const tpu::CapturedValue& c = At(e);
      bool given =
          c.op == kernel::Op::kProgramId ||
          (c.op == kernel::Op::kConstant && c.results.size() == 1 && c.results[0].size() == 1) ||
          WholeInputBlock(kernel_, c);
      m = 1;
      for (const Array& a : c.results) m = m && (given || known_.Has(a, c.op));
    }
    return m == 1;
  }

  void MarkCone(int64_t from) {
    std::vector<int64_t> stack{from};
    while (!stack.empty()) {
      int64_t e = stack.back();
      stack.pop_back();
      if (e < 0 || in_cone_[static_cast<size_t>(e)]) continue;  // (-1: not followed)
      in_cone_[static_cast<size_t>(e)] = 1;
      for (int64_t dep : Deps(e)) stack.push_back(dep);
    }
  }

  // The solution's kernel writes the buffer at this step and the learner's does not: every
  // guarded write into it whose condition did not hold here (which one should have run is the
  // learner's to tell), with the line computing that condition.
  void StoreSkipped(const std::vector<int64_t>& point) {
    bool theirs_store = std::any_of(theirs_.begin(), theirs_.end(), [&](const auto& c) {
      return c.op == kernel::Op::kStore && c.ref == ref_;
    });
    if (!theirs_store) return;
    const CallRecording& recording = me_.calls[call_];
    d_.lines.push_back(fmt::format(
        "why: at this grid step the solution's kernel stores into `{}`, and yours does not",
        RefName(ref_)));
    int64_t t = 0;
    for (size_t k = 0; k < point.size(); ++k) t = t * recording.mapping.grid[k] + point[k];
    for (const tpu::BranchRecord& branch : recording.branches) {
      if (branch.instr->regions.empty()) continue;
      const kernel::Instr* write = kernel::FirstWriteTo(branch.instr->regions[0], ref_);
      auto at = static_cast<size_t>(t);
      if (write == nullptr || (at < branch.taken_at.size() && branch.taken_at[at])) continue;
      // Where its condition is computed, when that is another line (`full = ...`).
      const kernel::Instr* cond = branch.instr->operands.empty()
                                      ? nullptr
                                      : MadeBy(kernel_.body, branch.instr->operands[0]);
      std::string made;
      if (cond != nullptr && cond->span.valid() && me_.Line(cond->span) != me_.Line(branch.span)) {
        made = fmt::format("; its condition is computed at {}", me_.At(cond->span));
      }
      d_.lines.push_back(fmt::format(
          "your store at {} runs under `{}` ({}), which does not hold at this step{}",
          me_.Line(write->span), me_.LineText(branch.span), me_.Line(branch.span), made));
    }
    d_.patterns.push_back("store-skipped");
  }

  // A loop whose body made part of the wrong value and whose carry starts from another number
  // than the solution's loop at that place (the same loop counted in program order): a running
  // maximum started at 0, a sum at 1.
  bool LoopStartDiffers() {
    if (call_ >= sol_.calls.size() || !sol_.calls[call_].kernel) return false;
    const kernel::Function& theirs = *sol_.calls[call_].kernel;
    std::vector<const kernel::Instr*> my_loops, their_loops;
    CollectLoops(kernel_.body, my_loops);
    CollectLoops(theirs.body, their_loops);
    for (size_t k = 0; k < my_loops.size() && k < their_loops.size(); ++k) {
      const kernel::Instr& a = *my_loops[k];
      const kernel::Instr& b = *their_loops[k];
      std::vector<SourceSpan> body;
      CollectSpans(a.regions[0], body);
      bool feeds = false;
      for (size_t e = 0; e < got_.size() && !feeds; ++e) {
        feeds = in_cone_[e] && std::find(body.begin(), body.end(), got_[e].span) != body.end();
      }
      if (!feeds) continue;
      for (size_t i = 2; i < a.operands.size() && i < b.operands.size(); ++i) {
        std::optional<double> mine = StaticFill(kernel_.body, a.operands[i]);
        std::optional<double> their = StaticFill(theirs.body, b.operands[i]);
        if (!mine || !their || SameNumber(*mine, *their)) continue;
        d_.lines.push_back(fmt::format(
            "why: the loop at {} starts its carry {} (counting from 0) from {}; the solution's "
            "loop starts it from {}",
            me_.Line(a.span), i - 2, ValueString(array::DType::kFloat32, *mine),
            ValueString(array::DType::kFloat32, *their)));
        d_.lines.push_back(me_.At(a.span));
        d_.patterns.push_back("start-value");
        return true;
      }
    }
    return false;
  }

  // The value stored is one the solution's kernel computes too: the solution goes on from it
  // before its own store into the buffer (adds what the buffer held, masks it, ...).
  bool StoredTooEarly(int64_t store) {
    int64_t stored = At(store).operands[0];
    if (stored < 0 || !Known(stored) || FillValue(got_, stored)) return false;
    const tpu::CapturedValue& value = At(stored);
    const std::string& name = RefName(ref_);
    for (size_t s = 0; s < theirs_.size(); ++s) {
      const tpu::CapturedValue& match = theirs_[s];
      if (match.op != value.op || match.results.size() != 1 || value.results.size() != 1 ||
          !SameValues(match.results[0], value.results[0])) {
        continue;
      }
      std::optional<StorePath> path = PathToStore(theirs_, static_cast<int64_t>(s), ref_);
      if (!path || path->ops.empty()) continue;
      std::vector<std::string> ops;
      for (const std::string& op : path->ops) ops.push_back(fmt::format("`{}`", op));
      std::string list = JoinWords(ops);
      d_.lines.push_back(fmt::format(
          "why, as far as the values show: your kernel stores into `{}` at {} a value the "
          "solution's kernel computes too, but the solution goes on from it with {}{} before it "
          "stores{}",
          name, me_.Line(At(store).span), list,
          path->reads_ref ? fmt::format(" (together with what `{}` held)", name) : std::string(),
          path->reads_ref ? fmt::format(": your store replaces what `{}` held instead of "
                                        "combining with it",
                                        name)
                          : std::string()));
      d_.lines.push_back(me_.At(At(store).span));
      d_.patterns.push_back("stored-too-early");
      return true;
    }
    return false;
  }

  // The first value (in execution order) of the cone that the solution's kernel never computes
  // while every value it is made from is one the solution has; then what its operands show.
  void FirstWrongValue() {
    for (size_t e = 0; e < got_.size(); ++e) {
      const tpu::CapturedValue& c = got_[e];
      if (!in_cone_[e] || c.results.empty() || Known(static_cast<int64_t>(e))) continue;
      std::vector<int64_t> inputs = Deps(static_cast<int64_t>(e));
      bool from_known = std::all_of(inputs.begin(), inputs.end(),
                                    [&](int64_t dep) { return dep >= 0 && Known(dep); });
      // A load with nothing stored before it in the step reads what earlier steps left: that
      // the value differs there says nothing about this line.
      if (!from_known || (c.op == kernel::Op::kLoad && c.stored_by < 0)) continue;
      d_.lines.push_back(fmt::format(
          "why, as far as the values show: at this grid step, {} is where your kernel first "
          "computes a value that the solution's never does{}",
          me_.Line(c.span),
          inputs.empty() ? " (a constant or an index)"
                         : ", from values that the solution's kernel computes too"));
      d_.lines.push_back(me_.At(c.span));
      d_.patterns.push_back("first-wrong-value");
      if (!FilledOperandDiffers(c) && !BufferStartDiffers(c)) OperandUsedEarly(c);
      return;
    }
  }

  // An operand that is one number filled in (a loop's starting carry, jnp.zeros), where the
  // solution's kernel gives the same operation another number of that shape.
  bool FilledOperandDiffers(const tpu::CapturedValue& c) {
    for (int64_t dep : c.operands) {
      std::optional<double> mine = FillValue(got_, dep);
      if (!mine) continue;
      const Array& filled = At(dep).results[0];
      for (const tpu::CapturedValue& other : theirs_) {
        if (other.op != c.op) continue;
        for (int64_t u : other.operands) {
          std::optional<double> their = FillValue(theirs_, u);
          if (!their || SameNumber(*their, *mine) ||
              theirs_[static_cast<size_t>(u)].results[0].shape() != filled.shape()) {
            continue;
          }
          d_.lines.push_back(fmt::format(
              "why: here your kernel starts from {} (made at {}), where the solution's `{}` "
              "takes {}: the starting value is wrong",
              ValueString(array::DType::kFloat32, *mine), me_.Line(At(dep).span),
              kernel::OpName(c.op), ValueString(array::DType::kFloat32, *their)));
          d_.lines.push_back(me_.At(At(dep).span));
          d_.patterns.push_back("start-value");
          return true;
        }
      }
    }
    return false;
  }

  // An operand loaded from a buffer that this step filled with one number (an accumulator's
  // or a running statistic's start), where the solution's kernel fills it with another.
  bool BufferStartDiffers(const tpu::CapturedValue& c) {
    for (int64_t dep : c.operands) {
      if (dep < 0) continue;
      const tpu::CapturedValue& load = At(dep);
      if (load.op != kernel::Op::kLoad || load.stored_by < 0) continue;
      const tpu::CapturedValue& store = At(load.stored_by);
      std::optional<double> mine =
          store.operands.empty() ? std::nullopt : FillValue(got_, store.operands[0]);
      if (!mine) continue;
      for (const tpu::CapturedValue& other : theirs_) {
        if (other.op != kernel::Op::kStore || other.ref != load.ref || other.operands.empty()) {
          continue;
        }
        std::optional<double> their = FillValue(theirs_, other.operands[0]);
        if (!their || SameNumber(*their, *mine)) continue;
        d_.lines.push_back(fmt::format(
            "why: your kernel starts `{}` at {} ({}), the solution's at {}: the value it holds "
            "before the first update is wrong",
            RefName(load.ref), ValueString(array::DType::kFloat32, *mine), me_.Line(store.span),
            ValueString(array::DType::kFloat32, *their)));
        d_.lines.push_back(me_.At(store.span));
        d_.patterns.push_back("start-value");
        return true;
      }
    }
    return false;
  }

  // An operand the solution's kernel has too (made the same way), but does not feed to this
  // operation: it goes on from it first and comes to the operation a few steps later, so a
  // step in between (a mask, a shift) is what is missing.
  void OperandUsedEarly(const tpu::CapturedValue& c) {
    for (int64_t dep : c.operands) {
      if (dep < 0) continue;
      const tpu::CapturedValue& operand = At(dep);
      // (One number repeated, zeros say, is made everywhere: a match would be a coincidence.)
      if (operand.results.size() != 1 || FillValue(got_, dep) || UniformArray(operand.results[0])) {
        continue;
      }
      std::vector<std::string> next;
      bool same = false, found = false, later = false;
      for (size_t s = 0; s < theirs_.size() && !same; ++s) {
        if (theirs_[s].op != operand.op || theirs_[s].results.size() != 1 ||
            !SameValues(theirs_[s].results[0], operand.results[0])) {
          continue;
        }
        for (const tpu::CapturedValue& user : theirs_) {
          if (std::find(user.operands.begin(), user.operands.end(), static_cast<int64_t>(s)) ==
                  user.operands.end() ||
              !kernel::IsPrim(user.op)) {
            continue;
          }
          found = true;
          same = same || user.op == c.op;
          std::string name = fmt::format("`{}`", kernel::OpName(user.op));
          if (std::find(next.begin(), next.end(), name) == next.end()) next.push_back(name);
        }
        later = later || ReachesOp(theirs_, static_cast<int64_t>(s), c.op);
      }
      if (!found || same || !later) continue;
      std::string list = JoinWords(next);
      d_.lines.push_back(fmt::format(
          "its operand made at {} is a value the solution's kernel has too, but the solution "
          "does not `{}` it: it goes on from it with {} first (a mask or a step is missing "
          "there?)",
          me_.Line(operand.span), kernel::OpName(c.op), list));
      d_.lines.push_back(me_.At(operand.span));
      return;
    }
  }

  const Recorded& me_;
  const Recorded& sol_;
  size_t call_;
  kernel::RefId ref_;
  const kernel::Function& kernel_;
  const std::vector<tpu::CapturedValue>& got_;
  const std::vector<tpu::CapturedValue>& theirs_;
  SolutionValues known_;
  std::vector<int8_t> matched_;  // per entry: -1 not looked up yet, 0 unknown, 1 known
  std::vector<char> in_cone_;
  Divergence& d_;
};

}  // namespace

// Where no pattern said why: both kernels run the divergent grid step again with every value
// captured. Following the wrong value back from the store that wrote the differing buffer, the
// first value (in execution order) that the solution's kernel never computes at that step while
// every value it is made from is one the solution has marks the line where the computations
// part. Said as what the values show, not as a certain cause.
void TraceFirstWrongValue(const fs::path& program, const fs::path& solution,
                          const RunOptions& options, size_t call, const std::vector<int64_t>& point,
                          kernel::RefId ref, const Recorded& me, const Recorded& sol,
                          Divergence& d) {
  if (call >= me.calls.size() || !me.calls[call].kernel) return;
  std::shared_ptr<tpu::Probe> mine = CaptureStep(program, options, call, point);
  std::shared_ptr<tpu::Probe> theirs = CaptureStep(solution, options, call, point);
  if (mine->captured.empty() || theirs->captured.empty() ||
      mine->captured.size() >= tpu::Probe::kMaxCaptured) {
    return;
  }
  StepTrace(me, sol, call, ref, mine->captured, theirs->captured, d).Run(point);
}

}  // namespace pz::course

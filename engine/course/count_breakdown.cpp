// Why a `check_counts` fails: where the emulator's number comes from, part by part. The work
// counters (flops, mxu_flops, transcendentals) are the costs of the kernel's primitives, each
// run once per grid step, or as often as its `pl.when` branch was taken, or as often as its
// fori_loop runs; the HBM byte counters are the blocks the pipeline fetched (an input block
// again whenever the block index changes) and wrote back. A breakdown is shown only where it
// adds up to exactly what was measured, and a part (or a few parts) that add up to exactly the
// difference from the learner's formula is named.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "array/dtype.h"
#include "course/divergence_trials.h"
#include "tpu/step_record.h"

namespace pz::course {
namespace {

using tpu::CallRecording;

// One part of a counter: what it is, and how many times what amount made it.
struct Part {
  std::string what;  // "line 40 `add`", "`x_ref` (input 0)"
  int64_t each = 0;  // per run / per fetch
  int64_t times = 0;
  int64_t total() const { return each * times; }
  SourceSpan span;  // a primitive's line (invalid for an operand)
  // Operands: how many of the fetches were of a block fetched before (0 for a primitive).
  int64_t again = 0;
};

int64_t CostOf(const kernel::Instr& instr, std::string_view counter) {
  if (counter == "flops") return instr.cost.flops;
  if (counter == "mxu_flops") return instr.cost.mxu_flops;
  return instr.cost.transcendentals;
}

// The constant a value id holds, when a kConstant instruction of `region` (or an enclosing one)
// made it.
std::optional<int64_t> ConstantOf(const std::vector<const kernel::Region*>& scopes,
                                  kernel::ValueId id) {
  for (const kernel::Region* r : scopes) {
    for (const kernel::Instr& instr : r->body) {
      if (instr.op == kernel::Op::kConstant && !instr.results.empty() && instr.results[0] == id &&
          instr.constant && instr.constant->size() == 1) {
        return instr.constant->GetInt(0);
      }
    }
  }
  return std::nullopt;
}

// The primitives' parts of `counter` for one recorded call; nullopt where some region runs an
// unknown number of times (a while loop, a switch, a loop with traced bounds).
std::optional<std::vector<Part>> PrimitiveParts(const CallRecording& call, std::string_view counter,
                                                const Recorded& me) {
  std::map<std::pair<std::string, uint32_t>, Part> parts;  // by (text, span begin)
  bool known = true;
  std::vector<const kernel::Region*> scopes;
  std::function<void(const kernel::Region&, int64_t)> walk = [&](const kernel::Region& region,
                                                                 int64_t runs) {
    scopes.push_back(&region);
    for (const kernel::Instr& instr : region.body) {
      if (!known) break;
      if (kernel::IsPrim(instr.op)) {
        int64_t each = CostOf(instr, counter);
        if (each == 0 || runs == 0) continue;
        std::string what =
            fmt::format("{} `{}`", me.Line(instr.span), array::PrimName(instr.prim.prim));
        Part& part = parts[{what, instr.span.begin}];
        if (part.each != 0 && part.each != each) {
          // Two sizes at one place: counted as one part of their total.
          int64_t total = part.total() + each * runs;
          part.each = total;
          part.times = 1;
        } else {
          part.what = what;
          part.each = each;
          part.times += runs;
          part.span = instr.span;
        }
        continue;
      }
      if (instr.regions.empty()) continue;
      switch (instr.op) {
        case kernel::Op::kCond: {
          auto branch = std::find_if(call.branches.begin(), call.branches.end(),
                                     [&](const tpu::BranchRecord& b) { return b.instr == &instr; });
          int64_t taken = branch != call.branches.end() ? branch->taken : 0;
          int64_t skipped = branch != call.branches.end() ? branch->skipped : 0;
          walk(instr.regions[0], taken);
          if (instr.regions.size() > 1) walk(instr.regions[1], skipped);
          break;
        }
        case kernel::Op::kFor: {
          std::optional<int64_t> lo = ConstantOf(scopes, instr.operands[0]);
          std::optional<int64_t> hi = ConstantOf(scopes, instr.operands[1]);
          if (!lo || !hi) {
            known = false;
            break;
          }
          walk(instr.regions[0], runs * std::max<int64_t>(*hi - *lo, 0));
          break;
        }
        case kernel::Op::kSwitch:
        case kernel::Op::kWhile:
          known = false;
          break;
        default:
          for (const kernel::Region& r : instr.regions) walk(r, runs);
      }
    }
    scopes.pop_back();
  };
  walk(call.kernel->body, call.steps_run);
  if (!known) return std::nullopt;
  std::vector<Part> out;
  for (auto& [key, part] : parts) out.push_back(part);
  return out;
}

// The operands' parts of the HBM bytes read (inputs) or written (outputs) for one call.
std::vector<Part> OperandParts(const CallRecording& call, bool read) {
  std::vector<Part> out;
  const kernel::GridMapping& m = call.mapping;
  size_t n = m.inputs.size() + m.outputs.size();
  for (size_t k = 0; k < n; ++k) {
    const kernel::BlockMapping& op = m.operand(k);
    if (op.is_output == read || op.space == kernel::MemorySpace::kAny) continue;
    int64_t bytes =
        array::NumElements(op.ref_shape) * static_cast<int64_t>(array::ItemSize(op.dtype));
    int64_t moves = 0, again = 0;
    std::set<std::vector<int64_t>> seen;
    for (size_t t = 0; t < call.blocks.size(); ++t) {
      if (k >= call.blocks[t].size()) continue;
      const std::vector<int64_t>& index = call.blocks[t][k];
      // Inputs are fetched when the block changes; outputs written back when it is left.
      bool counts = read ? (t == 0 || call.blocks[t - 1][k] != index)
                         : (t + 1 == call.blocks.size() || call.blocks[t + 1][k] != index);
      if (!counts) continue;
      ++moves;
      if (!seen.insert(index).second) ++again;
    }
    out.push_back(Part{.what = fmt::format("`{}` ({} {})", op.name, read ? "input" : "output",
                                           read ? k : k - m.inputs.size()),
                       .each = bytes,
                       .times = moves,
                       .again = again});
  }
  return out;
}

// "1 run", "8 runs", "2 fetches".
std::string CountedWord(int64_t n, std::string_view word) {
  bool es = word.back() == 'h' || word.back() == 's';
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : es ? "es" : "s");
}

}  // namespace

std::optional<Divergence> ExplainCounts(const Recorded& me) {
  if (!me.eager) return std::nullopt;
  for (size_t c = 0; c < me.eager->counted.size(); ++c) {
    const EagerRecord::CountedCheck& counted = me.eager->counted[c];
    if (counted.call < 0 || static_cast<size_t>(counted.call) >= me.calls.size()) continue;
    const CallRecording& call = me.calls[static_cast<size_t>(counted.call)];
    if (!call.kernel) continue;  // (blocks and branches are recorded past the byte budget too)
    for (const auto& [counter, want, got] : counted.differ) {
      bool bytes = counter == "hbm_bytes_read" || counter == "hbm_bytes_written";
      if (!bytes && counter != "flops" && counter != "mxu_flops" && counter != "transcendentals") {
        continue;
      }
      std::vector<Part> parts;
      if (bytes) {
        parts = OperandParts(call, counter == "hbm_bytes_read");
      } else if (auto found = PrimitiveParts(call, counter, me)) {
        parts = std::move(*found);
      } else {
        continue;
      }
      int64_t sum = 0;
      for (const Part& p : parts) sum += p.total();
      if (sum != got || parts.empty()) continue;  // the breakdown would not add up: say nothing
      std::sort(parts.begin(), parts.end(),
                [](const Part& a, const Part& b) { return a.total() > b.total(); });
      Divergence d;
      d.summary = fmt::format("check `{}`: where the {} {} of pallas_call `{}` ({}) come from:",
                              c < me.run.checks.size() ? me.run.checks[c].name : "?", got, counter,
                              call.mapping.name, me.Line(call.mapping.span));
      constexpr size_t kShown = 8;
      for (size_t i = 0; i < parts.size() && i < kShown; ++i) {
        const Part& p = parts[i];
        if (bytes) {
          d.lines.push_back(fmt::format(
              "{}: {} of {} B = {}{}", p.what,
              CountedWord(p.times, counter == "hbm_bytes_read" ? "fetch" : "write-back"), p.each,
              p.total(),
              p.again > 0 ? fmt::format(" ({} of them of a block moved before)", p.again)
                          : std::string()));
        } else {
          d.lines.push_back(fmt::format("{}: {} per run x {} = {}", p.what, p.each,
                                        CountedWord(p.times, "run"), p.total()));
        }
      }
      if (parts.size() > kShown) {
        d.lines.push_back(fmt::format("and {} smaller parts", parts.size() - kShown));
      }
      // The difference, as one part or the sum of a few: what the formula leaves out.
      // (A formula of 0, a starter's, leaves out everything: the breakdown says it all.)
      int64_t missing = got - want;
      if (missing > 0 && want > 0) {
        // The smallest set of parts whose `value`s add up to the difference (none: empty).
        auto cover = [&](auto value) {
          std::vector<size_t> best;
          size_t n = std::min<size_t>(parts.size(), 12);
          for (uint32_t mask = 1; mask < (1u << n); ++mask) {
            int64_t s = 0;
            std::vector<size_t> chosen;
            for (size_t i = 0; i < n; ++i) {
              if (mask & (1u << i)) {
                s += value(parts[i]);
                chosen.push_back(i);
              }
            }
            if (s == missing && (best.empty() || chosen.size() < best.size())) best = chosen;
          }
          return best;
        };
        auto names = [&](const std::vector<size_t>& chosen, bool amounts) {
          std::vector<std::string> words;
          for (size_t i : chosen) {
            const Part& p = parts[i];
            words.push_back(amounts ? fmt::format("{} ({} per run x {})", p.what, p.each,
                                                  CountedWord(p.times, "run"))
                                    : p.what);
          }
          return JoinWords(words);
        };
        std::vector<size_t> again =
            bytes ? cover([](const Part& p) { return p.again * p.each; }) : std::vector<size_t>{};
        std::vector<size_t> whole =
            again.empty() ? cover([](const Part& p) { return p.total(); }) : std::vector<size_t>{};
        if (!again.empty()) {
          d.lines.push_back(fmt::format(
              "why: the {} bytes your formula leaves out are the fetches of blocks that {} had "
              "fetched before: the pipeline fetches a block again whenever the block index "
              "changes between steps, even back to one it held earlier",
              missing, names(again, false)));
          d.patterns.push_back("count-refetch");
        } else if (!whole.empty()) {
          d.lines.push_back(
              fmt::format("why: the {} {} your formula leaves out are exactly what {} cost{}",
                          missing, counter, names(whole, !bytes), whole.size() == 1 ? "s" : ""));
          if (whole.size() == 1 && parts[whole[0]].span.valid()) {
            d.lines.push_back(me.At(parts[whole[0]].span));
          }
          d.patterns.push_back("count-missing");
        }
      }
      return d;
    }
  }
  return std::nullopt;
}

}  // namespace pz::course

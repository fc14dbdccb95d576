#include "course/eager_record.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "array/dtype.h"
#include "course/compare.h"
#include "course/divergence.h"
#include "course/divergence_trials.h"
#include "course/puzzle_file.h"
#include "eval/interpreter.h"

namespace pz::course {

using array::Array;

namespace {

// Looser than a check's tolerance: two computations of one quantity in another order round
// differently, and a value matched here is only a step on the way to the result.
constexpr Tolerance kValueTolerance{.atol = 1e-5, .rtol = 1e-4};

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

}  // namespace

uint64_t ContentHash(const Array& a) {
  uint64_t h = Mix(0xcbf29ce484222325ULL, static_cast<uint64_t>(a.dtype()));
  for (int64_t d : a.shape()) h = Mix(h, static_cast<uint64_t>(d));
  if (a.storage() == nullptr) return h;
  Array dense = a.IsDense() ? a : a.Contiguous();
  const std::byte* p = dense.raw();
  size_t n = static_cast<size_t>(dense.size()) * array::ItemSize(dense.dtype());
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, 8);
    h = Mix(h, word);
  }
  uint64_t tail = 0;
  if (i < n) std::memcpy(&tail, p + i, n - i);
  return Mix(h, tail);
}

EagerRecord::Key EagerRecord::KeyOf(const Array& a) {
  return {a.storage(), a.offset(), a.shape(), a.strides(), static_cast<int>(a.dtype())};
}

int EagerRecord::NewSlot(const Array& value, int producer) {
  slots_.push_back(Slot{value, producer});
  int slot = static_cast<int>(slots_.size()) - 1;
  if (value.storage() != nullptr) index_[KeyOf(value)] = slot;
  return slot;
}

void EagerRecord::Record(array::PrimCall call, const std::vector<Array>& inputs,
                         const std::vector<Array>& outputs) {
  if (interp_ == nullptr || truncated_) return;
  int64_t bytes = 0;
  for (const Array& a : outputs) {
    bytes += a.size() * static_cast<int64_t>(array::ItemSize(a.dtype()));
  }
  if (used_ + bytes > budget_) {
    truncated_ = true;
    return;
  }
  used_ += bytes;
  Step step{.call = std::move(call), .span = interp_->current_span(), .in_values = inputs};
  for (const Array& a : inputs) {
    auto it = a.storage() != nullptr ? index_.find(KeyOf(a)) : index_.end();
    step.in.push_back(it == index_.end() ? -1 : it->second);
    if (a.storage() != nullptr) bits_.insert(ContentHash(a));
  }
  int id = static_cast<int>(steps_.size());
  for (const Array& a : outputs) {
    step.out.push_back(NewSlot(a, id));
    if (a.storage() != nullptr) computed_.insert(ContentHash(a));
  }
  steps_.push_back(std::move(step));
}

int EagerRecord::Find(const Array& value) const {
  if (value.storage() == nullptr) return -1;
  auto it = index_.find(KeyOf(value));
  if (it != index_.end()) return it->second;
  // By content only where that cannot be a coincidence: not a lone number, not one value
  // repeated (zeros and ones are made everywhere).
  bool uniform = true;
  for (int64_t i = 1; i < value.size() && uniform; ++i) {
    uniform = value.GetDouble(i) == value.GetDouble(0);
  }
  if (uniform) return -1;
  uint64_t h = ContentHash(value);
  for (size_t s = slots_.size(); s-- > 0;) {
    const Array& v = slots_[s].value;
    if (v.storage() != nullptr && v.shape() == value.shape() && v.dtype() == value.dtype() &&
        ContentHash(v) == h) {
      return static_cast<int>(s);
    }
  }
  return -1;
}

bool EagerRecord::Matches(const Array& a, const Array& b) const {
  if (a.shape() != b.shape() || a.dtype() != b.dtype() || b.storage() == nullptr) return false;
  for (int64_t i = 0; i < a.size(); ++i) {
    double x = a.GetDouble(i), y = b.GetDouble(i);
    if (std::isnan(x) && std::isnan(y)) continue;
    if (!Close(x, y, kValueTolerance)) return false;
  }
  return true;
}

bool EagerRecord::Computes(const Array& value) const {
  if (value.storage() == nullptr) return false;
  bool lone = value.size() == 1;
  uint64_t h = ContentHash(value);
  if (computed_.count(h) != 0 || (!lone && bits_.count(h) != 0)) return true;
  if (!array::IsFloating(value.dtype())) return false;
  for (const Slot& s : slots_) {
    if (Matches(value, s.value)) return true;
  }
  if (lone) return false;
  for (const Step& step : steps_) {
    for (const Array& a : step.in_values) {
      if (Matches(value, a)) return true;
    }
  }
  return false;
}

std::vector<int> EagerRecord::ConsumersOf(const Array& value) const {
  std::vector<int> found;
  if (value.storage() == nullptr) return found;
  uint64_t h = ContentHash(value);
  if (bits_.count(h) == 0) return found;
  for (size_t s = 0; s < steps_.size(); ++s) {
    for (const Array& a : steps_[s].in_values) {
      if (a.storage() != nullptr && a.shape() == value.shape() && a.dtype() == value.dtype() &&
          ContentHash(a) == h) {
        found.push_back(static_cast<int>(s));
        break;
      }
    }
  }
  return found;
}

namespace {

// "(1, 128)", "(128,)", "()".
std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

// "`add`", "`add` and `mul`", "`add`, `mul` and `exp`": the primitives of `steps`, once each.
std::string PrimList(const EagerRecord& record, const std::vector<int>& steps) {
  std::vector<std::string> names;
  for (int s : steps) {
    std::string name = fmt::format("`{}`", array::PrimName(record.steps()[s].call.prim));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return out;
}

// The solution's steps from a value matching `value` on to `result`: those on the way back from
// `result` that lead to an operand matching it, in the order they ran (empty when none do).
std::vector<int> StepsAfter(const EagerRecord& sol, const Array& value, const Array& result) {
  int start = sol.Find(result);
  if (start < 0 || sol.slots()[start].producer < 0) return {};
  // Depth-first from the result's producer; a step is on the way when an operand matches
  // `value` or an operand's producer is on the way.
  std::vector<int> on_way;
  std::vector<char> seen(sol.steps().size(), 0);
  std::function<bool(int)> visit = [&](int step) -> bool {
    if (seen[step] != 0) return seen[step] == 2;
    seen[step] = 1;
    const EagerRecord::Step& s = sol.steps()[step];
    bool reaches = false;
    for (size_t k = 0; k < s.in.size(); ++k) {
      const Array& operand = s.in_values[k];
      if (operand.shape() == value.shape() && operand.dtype() == value.dtype() &&
          ContentHash(operand) == ContentHash(value)) {
        reaches = true;
      } else if (s.in[k] >= 0 && sol.slots()[s.in[k]].producer >= 0 &&
                 visit(sol.slots()[s.in[k]].producer)) {
        reaches = true;
      }
    }
    seen[step] = reaches ? 2 : 3;
    if (reaches) on_way.push_back(step);
    return reaches;
  };
  if (sol.steps().size() > 100000) return {};
  visit(sol.slots()[start].producer);
  std::sort(on_way.begin(), on_way.end());
  return on_way;
}

}  // namespace

bool FollowEagerValue(const Recorded& me, const EagerRecord& mine, const EagerRecord& sol,
                      const Array& start, const std::optional<Array>& sol_result, Divergence& d) {
  int slot = mine.Find(start);
  // Whether a line is one the learner edits: inside a `# YOUR CODE` region of its file, or
  // anywhere in a file without regions (a program of the learner's own).
  auto editable = [&me](SourceSpan span) {
    if (!span.valid()) return false;
    const SourceFile& file = me.sources().Get(span.file);
    RegionScan scan = FindRegions(file.text());
    if (scan.regions.empty()) return true;
    int line = file.Locate(span.begin).line;
    return std::any_of(scan.regions.begin(), scan.regions.end(), [line](const Region& r) {
      return line > r.begin_line && line < r.end_line;
    });
  };
  // A checked result is wrong where it differs from the solution's; a value that the solution
  // computes somewhere is then one it has on the way. (A pallas_call operand is wrong as it is.)
  if (sol_result && sol.Computes(start)) {
    // The learner's value is one the solution has on the way to its result.
    if (!sol_result) return false;
    std::vector<int> after = StepsAfter(sol, start, *sol_result);
    if (after.empty()) return false;
    std::string made =
        slot >= 0 && mine.slots()[slot].producer >= 0
            ? fmt::format(" (made at {})",
                          me.At(mine.steps()[mine.slots()[slot].producer].span))
            : std::string();
    std::string shapes =
        sol_result->shape() != start.shape()
            ? fmt::format(" (your result has shape {}, the solution's {})",
                          ShapeText(start.shape()), ShapeText(sol_result->shape()))
            : std::string();
    d.lines.push_back(fmt::format(
        "why, as far as the values show: your result is a value the solution computes too{}, "
        "but only on the way: the solution goes on from it with {} more step{} ({}) before it "
        "returns{}; a term or a final step is missing",
        made, after.size(), after.size() == 1 ? "" : "s", PrimList(sol, after), shapes));
    d.patterns.push_back("stops-early");
    return true;
  }
  std::string numbers;
  if ((slot < 0 || mine.slots()[slot].producer < 0) && start.size() <= 64 && sol_result &&
      sol_result->shape() == start.shape()) {
    // A result assembled from Python numbers (float() of jax.numpy results): its first wrong
    // element, found among the numbers the learner's code computed that the solution never does.
    slot = -1;
    for (int64_t i = 0; i < start.size() && slot < 0; ++i) {
      double got = start.GetDouble(i);
      if (Close(got, sol_result->GetDouble(i), kValueTolerance)) continue;
      for (size_t s = mine.slots().size(); s-- > 0;) {
        const EagerRecord::Slot& candidate = mine.slots()[s];
        if (candidate.producer >= 0 && candidate.value.size() == 1 &&
            candidate.value.storage() != nullptr && candidate.value.GetDouble(0) == got &&
            !sol.Computes(candidate.value)) {
          slot = static_cast<int>(s);
          numbers = fmt::format(", followed back from element {} of your result ({})", i,
                                ValueString(start.dtype(), got));
          break;
        }
      }
      break;
    }
  }
  if (slot < 0 || mine.slots()[slot].producer < 0) return false;
  // Back through the operands the solution never has, to a step made only of ones it has.
  int step = mine.slots()[slot].producer;
  for (size_t guard = 0; guard < mine.steps().size(); ++guard) {
    const EagerRecord::Step& s = mine.steps()[step];
    int wrong = -1;
    for (size_t k = 0; k < s.in.size(); ++k) {
      int from = s.in[k];
      if (from < 0 || mine.slots()[from].producer < 0) continue;
      if (sol.Computes(s.in_values[k])) continue;
      // The earliest-made wrong operand, to get as far back as the values allow.
      if (wrong < 0 || mine.slots()[from].producer < mine.slots()[wrong].producer) wrong = from;
    }
    if (wrong < 0) break;
    step = mine.slots()[wrong].producer;
  }
  const EagerRecord::Step& culprit = mine.steps()[step];
  if (!culprit.span.valid()) return false;
  size_t made = 0, unmade = 0;
  for (int from : culprit.in) ++(from >= 0 && mine.slots()[from].producer >= 0 ? made : unmade);
  std::string operands =
      unmade == 0  ? "of values that the solution computes as well"
      : made == 0  ? "of values no jax.numpy step made: arguments, Python numbers or lists, "
                     "pallas_call outputs"
                   : "of values that the solution computes as well, and of values no jax.numpy "
                     "step made";
  // An operand the solution has too, but only as a step on the way to something else: the
  // learner used it too early (a condition or a term missing where it was made).
  std::string early;
  SourceSpan early_span;
  for (size_t k = 0; k < culprit.in.size() && early.empty(); ++k) {
    int from = culprit.in[k];
    if (from < 0 || mine.slots()[from].producer < 0) continue;
    std::vector<int> consumers = sol.ConsumersOf(culprit.in_values[k]);
    if (consumers.empty()) continue;
    bool same = std::any_of(consumers.begin(), consumers.end(), [&](int c) {
      return sol.steps()[c].call.prim == culprit.call.prim;
    });
    if (same) continue;
    const EagerRecord::Step& maker = mine.steps()[mine.slots()[from].producer];
    early = fmt::format(
        "its operand made at {} is a value the solution computes too, but the solution does not "
        "`{}` it: it goes on from it with {} first (a condition or a term is missing there?)",
        me.Line(maker.span), array::PrimName(culprit.call.prim), PrimList(sol, consumers));
    early_span = maker.span;
  }
  d.lines.push_back(fmt::format(
      "why, as far as the values show: {} is where your code first computes a value that the "
      "solution never does (`{}` {}){}",
      me.Line(culprit.span), array::PrimName(culprit.call.prim), operands, numbers));
  d.lines.push_back(me.At(culprit.span));
  if (!editable(culprit.span)) {
    d.lines.push_back(
        "that line is in the code the puzzle gives you: a value your code hands it (an argument, "
        "or what a call returns) is not the one the solution hands it");
  } else if (!early.empty() && editable(early_span)) {
    d.lines.push_back(early);
    d.lines.push_back(me.At(early_span));
  }
  d.patterns.push_back("first-wrong-value");
  return true;
}

}  // namespace pz::course

#include "course/eager_record.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>

#include "array/dtype.h"
#include "course/compare.h"
#include "course/divergence.h"
#include "course/divergence_trials.h"
#include "course/puzzle_file.h"
#include "eval/array_object.h"
#include "eval/interpreter.h"
#include "eval/scope.h"
#include "lang/ast.h"
#include "tpu/executor.h"

namespace pz::course {

using array::Array;

namespace {

// Looser than a check's tolerance: two computations of one quantity in another order round
// differently, and a value matched here is only a step on the way to the result.
constexpr Tolerance kValueTolerance{.atol = 1e-5, .rtol = 1e-4};

// Whether a span is on a line the learner edits: inside a `# YOUR CODE` region of its file, or
// anywhere in a file without regions (a program of the learner's own). Each file's regions are
// found once.
class EditableLines {
 public:
  explicit EditableLines(const SourceManager& sources) : sources_(sources) {}
  bool operator()(SourceSpan span) {
    if (!span.valid()) return false;
    const SourceFile& file = sources_.Get(span.file);
    auto [it, fresh] = regions_.try_emplace(span.file.value);
    if (fresh) it->second = FindRegions(file.text()).regions;
    return it->second.empty() || InRegion(it->second, file.Locate(span.begin).line);
  }

 private:
  const SourceManager& sources_;
  std::map<uint32_t, std::vector<Region>> regions_;
};

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
  // What the record keeps alive: the results, and operands no recorded step made.
  std::vector<int> in;
  int64_t bytes = 0;
  auto size_of = [](const Array& a) {
    return a.size() * static_cast<int64_t>(array::ItemSize(a.dtype()));
  };
  for (const Array& a : inputs) {
    auto it = a.storage() != nullptr ? index_.find(KeyOf(a)) : index_.end();
    in.push_back(it == index_.end() ? -1 : it->second);
    if (in.back() < 0) bytes += size_of(a);
  }
  for (const Array& a : outputs) bytes += size_of(a);
  if (used_ + bytes > budget_) {
    truncated_ = true;
    return;
  }
  used_ += bytes;
  Step step{.call = std::move(call),
            .span = interp_->current_span(),
            .in = std::move(in),
            .in_values = inputs};
  for (const Array& a : inputs) {
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
  if (UniformArray(value)) return -1;
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

bool EagerRecord::Matches(const Array& a, const Array& b) {
  return a.dtype() == b.dtype() && b.storage() != nullptr && SameValues(a, b);
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

bool EagerRecord::Makes(array::Prim prim, const Array& value) const {
  if (value.storage() == nullptr) return false;
  uint64_t h = ContentHash(value);
  if (computed_.count(h) == 0) return false;
  for (const Step& step : steps_) {
    if (step.call.prim != prim) continue;
    for (int out : step.out) {
      const Array& a = slots_[static_cast<size_t>(out)].value;
      if (a.shape() == value.shape() && a.dtype() == value.dtype() && ContentHash(a) == h) {
        return true;
      }
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

// "`add`", "`add` and `mul`", "`add`, `mul` and `exp`": the primitives of `steps`, once each.
std::string PrimList(const EagerRecord& record, const std::vector<int>& steps) {
  std::vector<std::string> names;
  for (int s : steps) {
    std::string name = fmt::format("`{}`", array::PrimName(record.steps()[s].call.prim));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return JoinWords(names);
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

// Whether a step of primitive `prim` takes, within a few steps, a value made by `from`'s steps.
bool ReachesPrim(const EagerRecord& record, std::vector<int> from, array::Prim prim) {
  constexpr int kSteps = 6;
  std::vector<char> seen(record.steps().size(), 0);
  for (int depth = 0; depth < kSteps && !from.empty(); ++depth) {
    std::vector<int> next;
    for (int s : from) {
      if (seen[static_cast<size_t>(s)]) continue;
      seen[static_cast<size_t>(s)] = 1;
      for (int out : record.steps()[static_cast<size_t>(s)].out) {
        for (int user : record.ConsumersOf(record.slots()[static_cast<size_t>(out)].value)) {
          if (record.steps()[static_cast<size_t>(user)].call.prim == prim) return true;
          next.push_back(user);
        }
      }
    }
    from = std::move(next);
  }
  return false;
}

}  // namespace

bool FollowEagerValue(const Recorded& me, const EagerRecord& mine, const EagerRecord& sol,
                      const Array& start, const std::optional<Array>& sol_result, Divergence& d) {
  int slot = mine.Find(start);
  // Whether a line is one the learner edits: inside a `# YOUR CODE` region of its file, or
  // anywhere in a file without regions (a program of the learner's own).
  EditableLines editable(me.sources());
  // A checked result is wrong where it differs from the solution's; a value that the solution
  // computes somewhere is then one it has on the way. (A pallas_call operand is wrong as it is.)
  if (sol_result && sol.Computes(start)) {
    // The learner's value is one the solution has on the way to its result.
    if (!sol_result) return false;
    std::vector<int> after = StepsAfter(sol, start, *sol_result);
    if (after.empty()) return false;
    std::string made =
        slot >= 0 && mine.slots()[slot].producer >= 0
            ? fmt::format(" (made at {})", me.At(mine.steps()[mine.slots()[slot].producer].span))
            : std::string();
    std::string shapes =
        sol_result->shape() != start.shape()
            ? fmt::format(" (your result has shape {}, the solution's {})",
                          tpu::TupleString(start.shape()), tpu::TupleString(sol_result->shape()))
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
      unmade == 0 ? "of values that the solution computes as well"
      : made == 0 ? "of values no jax.numpy step made: arguments, Python numbers or lists, "
                    "pallas_call outputs"
                  : "of values that the solution computes as well, and of values no jax.numpy "
                    "step made";
  // An operand the solution has too, but only as a step on the way to something else: the
  // learner used it too early (a condition or a term missing where it was made).
  std::string early;
  SourceSpan early_span;
  for (size_t k = 0; k < culprit.in.size() && early.empty(); ++k) {
    int from = culprit.in[k];
    if (from < 0 || mine.slots()[from].producer < 0 || UniformArray(culprit.in_values[k])) continue;
    // The solution must make that value the same way (not hold the same numbers in another
    // role), and then use it.
    const EagerRecord::Step& maker = mine.steps()[mine.slots()[from].producer];
    if (!sol.Makes(maker.call.prim, culprit.in_values[k])) continue;
    std::vector<int> consumers = sol.ConsumersOf(culprit.in_values[k]);
    if (consumers.empty()) continue;
    bool same = std::any_of(consumers.begin(), consumers.end(),
                            [&](int c) { return sol.steps()[c].call.prim == culprit.call.prim; });
    // Said only where the solution comes to this operation a few steps later, with what it
    // made from the operand: then a step in between is what is missing.
    if (same || !ReachesPrim(sol, consumers, culprit.call.prim)) continue;
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
    d.patterns.push_back("given-code");
  } else if (!early.empty() && editable(early_span)) {
    d.lines.push_back(early);
    d.lines.push_back(me.At(early_span));
  }
  if (editable(culprit.span)) d.patterns.push_back("first-wrong-value");
  return true;
}

void EagerRecord::RecordCall(const eval::FunctionObject& function, const eval::Environment& locals,
                             SourceSpan site) {
  if (calls_.size() >= kMaxCalls || function.code->params == nullptr) return;
  Call call{.function = function.code->qualname, .definition = function.code->span, .site = site};
  for (const lang::Param& param : function.code->params->params) {
    auto it = locals.vars.find(param.name);
    if (it == locals.vars.end()) continue;
    Call::Arg arg{.name = param.name};
    const eval::Value& v = it->second;
    if (const auto* a = v.as<eval::ArrayObject>()) {
      // Kept alive by the record: counted against its budget like the steps' results.
      int64_t bytes = a->value.size() * static_cast<int64_t>(array::ItemSize(a->value.dtype()));
      if (used_ + bytes > budget_) continue;
      used_ += bytes;
      arg.array = a->value;
    } else if (v.is_number()) {
      arg.number = v.number();
    } else {
      continue;
    }
    call.args.push_back(std::move(arg));
  }
  calls_.push_back(std::move(call));
}

namespace {

// The calls of `record` from editable lines into functions defined on lines that are not.
std::vector<const EagerRecord::Call*> CallsIntoGivenCode(const EagerRecord& record,
                                                         const SourceManager& sources) {
  std::vector<const EagerRecord::Call*> out;
  EditableLines editable(sources);
  for (const EagerRecord::Call& call : record.calls()) {
    if (call.site.valid() && call.definition.valid() && call.site.file == call.definition.file &&
        editable(call.site) && !editable(call.definition)) {
      out.push_back(&call);
    }
  }
  return out;
}

bool SameArgument(const EagerRecord::Call::Arg& a, const EagerRecord::Call::Arg& b) {
  if (a.number && b.number) return Close(*a.number, *b.number, Tolerance{1e-6, 1e-6});
  if (a.array && b.array) {
    const Array& x = *a.array;
    const Array& y = *b.array;
    if (x.shape() != y.shape() || x.dtype() != y.dtype()) return false;
    Tolerance tol = DefaultTolerance(y.dtype());
    for (int64_t i = 0; i < x.size(); ++i) {
      if (!Close(x.GetDouble(i), y.GetDouble(i), tol)) return false;
    }
    return true;
  }
  return false;
}

// "0.1", "float32 (32,) holding 0 at [0] where the solution's holds 0.1".
std::string ArgumentText(const EagerRecord::Call::Arg& mine, const EagerRecord::Call::Arg& theirs) {
  if (mine.number && theirs.number) {
    return fmt::format("is {:g} where the solution passes {:g}", *mine.number, *theirs.number);
  }
  if (mine.array && theirs.array) {
    const Array& x = *mine.array;
    const Array& y = *theirs.array;
    if (x.shape() != y.shape() || x.dtype() != y.dtype()) {
      return fmt::format("is {} {} where the solution passes {} {}", array::DTypeName(x.dtype()),
                         tpu::TupleString(x.shape()), array::DTypeName(y.dtype()),
                         tpu::TupleString(y.shape()));
    }
    Tolerance tol = DefaultTolerance(y.dtype());
    for (int64_t i = 0; i < x.size(); ++i) {
      if (Close(x.GetDouble(i), y.GetDouble(i), tol)) continue;
      std::vector<int64_t> index(x.shape().size());
      for (int64_t r = i, d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
        index[static_cast<size_t>(d)] = r % x.shape()[static_cast<size_t>(d)];
        r /= x.shape()[static_cast<size_t>(d)];
      }
      return fmt::format("holds {} at {} where the solution's holds {}",
                         ValueString(x.dtype(), x.GetDouble(i)), IndexString(index),
                         ValueString(y.dtype(), y.GetDouble(i)));
    }
  }
  return "differs from what the solution passes";
}

}  // namespace

bool ExplainArguments(const Recorded& me, const Recorded& sol, Divergence& d) {
  if (!me.eager || !sol.eager) return false;
  std::vector<const EagerRecord::Call*> mine = CallsIntoGivenCode(*me.eager, me.sources());
  std::vector<const EagerRecord::Call*> theirs = CallsIntoGivenCode(*sol.eager, sol.sources());
  std::map<std::string, size_t> seen_mine, seen_theirs;
  std::map<std::string, std::vector<const EagerRecord::Call*>> by_function;
  for (const EagerRecord::Call* c : theirs) by_function[c->function].push_back(c);
  for (const EagerRecord::Call* c : mine) {
    size_t k = seen_mine[c->function]++;
    auto it = by_function.find(c->function);
    if (it == by_function.end() || k >= it->second.size()) continue;
    const EagerRecord::Call& other = *it->second[k];
    auto find = [](const EagerRecord::Call& call,
                   const std::string& name) -> const EagerRecord::Call::Arg* {
      for (const auto& a : call.args) {
        if (a.name == name) return &a;
      }
      return nullptr;
    };
    std::vector<std::string> notes;
    std::vector<std::string> differing;
    for (const auto& arg : c->args) {
      const EagerRecord::Call::Arg* same = find(other, arg.name);
      if (same == nullptr || SameArgument(arg, *same)) continue;
      differing.push_back(arg.name);
      // Another parameter of the solution's call that got exactly this value: swapped.
      std::string instead;
      for (const auto& o : other.args) {
        if (o.name != arg.name && SameArgument(arg, o)) {
          instead = o.name;
          break;
        }
      }
      notes.push_back(instead.empty() ? fmt::format("`{}` {}", arg.name, ArgumentText(arg, *same))
                                      : fmt::format("`{}` gets what the solution passes as `{}`",
                                                    arg.name, instead));
    }
    if (differing.empty()) continue;
    std::string list;
    for (size_t i = 0; i < notes.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == notes.size() ? "; and " : "; ") + notes[i];
    }
    d.lines.push_back(fmt::format(
        "why: your code calls `{}` (the puzzle's, defined at {}) at {} with other arguments "
        "than the solution's call: {}",
        c->function, me.Line(c->definition), me.Line(c->site), list));
    d.lines.push_back(me.At(c->site));
    d.patterns.push_back("arguments");
    return true;
  }
  return false;
}

}  // namespace pz::course

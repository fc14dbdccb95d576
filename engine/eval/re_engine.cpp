// The regex engine's matcher: runs a compiled program (re_compile.cpp) by backtracking with an
// explicit stack (no C++ recursion per character, so long subjects cannot overflow the stack).
// A repeat of one character (`\w+`, `.*?`) is a single kRepeat instruction that backs off one
// character at a time, and a loop whose body matched nothing stops, as in CPython's sre.
#include <algorithm>

#include "eval/re_syntax.h"

namespace pz::eval::re {

// ---- Matcher ---------------------------------------------------------------------------------

class Matcher {
 public:
  Matcher(const Program& program, const SearchRequest& request, const StepHook& hook)
      : program_(program),
        code_(program.code_),
        text_(request.text),
        end_(static_cast<int64_t>(request.endpos)),
        request_(request),
        hook_(hook),
        slots_(2 * (program.groups_ + 1) + program.loop_slots_ + 1, -1),
        last_group_slot_(static_cast<int32_t>(slots_.size() - 1)) {}

  std::optional<MatchSpans> Search() {
    auto start = static_cast<int64_t>(request_.pos);
    // A pattern that starts with a literal character can only match where that character is.
    const Instruction& first = code_[0];
    bool literal_first = first.op == Op::kChar && !first.flag;
    for (; start <= end_; ++start) {
      if (literal_first && (start >= end_ || text_[start] != first.c)) {
        if (request_.anchored) break;
        Tick();
        continue;
      }
      std::fill(slots_.begin(), slots_.end(), -1);
      must_advance_ = request_.must_advance && start == static_cast<int64_t>(request_.pos);
      if (std::optional<int64_t> stop = Run(0, start, -1)) {
        MatchSpans match;
        match.spans.emplace_back(start, *stop);
        for (int g = 1; g <= program_.groups_; ++g) {
          int64_t s = slots_[2 * g], e = slots_[2 * g + 1];
          match.spans.emplace_back(s >= 0 && e >= 0 ? s : -1, s >= 0 && e >= 0 ? e : -1);
        }
        match.last_group = static_cast<int>(slots_[last_group_slot_]);
        return match;
      }
      if (request_.anchored) break;
      Tick();
    }
    return std::nullopt;
  }

 private:
  using Op = Instruction::Op;

  // One backtracking entry: a branch to resume, a slot to restore, or a one-character repeat
  // that can give back (greedy) or take (lazy) one more character.
  struct Frame {
    enum class Kind : uint8_t { kBranch, kRestore, kGreedy, kLazy };
    Kind kind;
    int32_t pc;
    int64_t pos;    // kBranch: where to resume; repeats: where the repeat started
    int64_t value;  // kRestore: the slot's old value; repeats: the count matched now
  };

  void Tick() {
    if (++steps_ >= next_tick_) {
      next_tick_ = steps_ + kStepsPerTick;
      if (hook_) hook_(steps_);
    }
  }

  bool MatchOne(const Instruction& in, int64_t pos) const {
    if (pos >= end_) return false;
    char32_t c = text_[pos];
    switch (in.op) {
      case Op::kChar:
        return in.flag ? FoldCase(c) == in.c : c == in.c;
      case Op::kAny:
        return c != '\n';
      case Op::kAnyAll:
        return true;
      case Op::kSet:
        return program_.sets_[in.arg].Contains(c);
      default:
        return false;
    }
  }

  bool IsWordAt(int64_t pos, bool ascii) const {
    return pos >= 0 && pos < end_ && IsWordChar(text_[pos], ascii);
  }

  bool CheckAssert(Assert kind, int64_t p) const {
    switch (kind) {
      case Assert::kBeginning:
        return p == 0;
      case Assert::kBeginningLine:
        return p == 0 || text_[p - 1] == '\n';
      case Assert::kEnd:
        return p == end_ || (p + 1 == end_ && text_[p] == '\n');
      case Assert::kEndLine:
        return p == end_ || text_[p] == '\n';
      case Assert::kEndString:
        return p == end_;
      case Assert::kWordBoundary:
      case Assert::kWordBoundaryAscii:
      case Assert::kNotWordBoundary:
      case Assert::kNotWordBoundaryAscii: {
        bool ascii = kind == Assert::kWordBoundaryAscii || kind == Assert::kNotWordBoundaryAscii;
        if (end_ == 0) return false;  // sre: no boundary, and no non-boundary, in ""
        bool boundary = IsWordAt(p - 1, ascii) != IsWordAt(p, ascii);
        return (kind == Assert::kWordBoundary || kind == Assert::kWordBoundaryAscii) == boundary;
      }
    }
    return false;
  }

  void Save(int32_t slot, int64_t value) {
    stack_.push_back(Frame{Frame::Kind::kRestore, slot, 0, slots_[slot]});
    slots_[slot] = value;
  }

  // Runs from `pc` at `pos` until kMatch (or, in a lookaround or atomic body, its kSubMatch);
  // the end position, or nullopt when every way fails. A lookbehind body must end at
  // `behind_end` (-1 otherwise). Leaves the stack as it found it.
  std::optional<int64_t> Run(int32_t pc, int64_t p, int64_t behind_end) {
    size_t base = stack_.size();
    int64_t start = p;
    for (;;) {
      Tick();
      const Instruction& in = code_[pc];
      bool ok = true;
      switch (in.op) {
        case Op::kChar:
        case Op::kAny:
        case Op::kAnyAll:
        case Op::kSet:
          ok = MatchOne(in, p);
          if (ok) ++p, ++pc;
          break;
        case Op::kSplit:
          stack_.push_back(Frame{Frame::Kind::kBranch, in.y, p, 0});
          pc = in.x;
          break;
        case Op::kJump:
          pc = in.x;
          break;
        case Op::kSave:
        case Op::kLoopMark:
          Save(in.arg, p);
          if (in.op == Op::kSave && in.arg % 2 == 1) Save(last_group_slot_, in.arg / 2);
          ++pc;
          break;
        case Op::kLoopCheck:
          pc = slots_[in.arg] == p ? in.x : pc + 1;
          break;
        case Op::kAssert:
          ok = CheckAssert(static_cast<Assert>(in.arg), p);
          ++pc;
          break;
        case Op::kBackref:
          ok = MatchBackref(in, p);
          ++pc;
          break;
        case Op::kGroupExists:
          pc = slots_[2 * in.arg] >= 0 && slots_[2 * in.arg + 1] >= 0 ? pc + 1 : in.x;
          break;
        case Op::kRepeat: {
          const Instruction& item = code_[pc + 1];
          int64_t count = 0;
          int64_t want = in.flag ? in.min : (in.max < 0 ? end_ - p : in.max);
          while (count < want && MatchOne(item, p + count)) ++count;
          steps_ += count;
          if (count < in.min) {
            ok = false;
            break;
          }
          stack_.push_back(
              Frame{in.flag ? Frame::Kind::kLazy : Frame::Kind::kGreedy, pc, p, count});
          p += count;
          pc = in.x;
          break;
        }
        case Op::kLook:
        case Op::kAtomic: {
          std::vector<int64_t> saved = slots_;
          bool behind = in.op == Op::kLook && in.arg == 1;
          std::optional<int64_t> stop;
          if (!behind) {
            stop = Run(pc + 1, p, -1);
          } else if (p - in.min >= 0) {
            stop = Run(pc + 1, p - in.min, p);
          }
          if (in.op == Op::kLook && in.flag) {  // negative: succeeds where the body fails
            slots_ = saved;
            ok = !stop;
          } else if ((ok = stop.has_value())) {
            for (size_t i = 0; i < slots_.size(); ++i) {
              if (slots_[i] != saved[i]) {
                stack_.push_back(
                    Frame{Frame::Kind::kRestore, static_cast<int32_t>(i), 0, saved[i]});
              }
            }
            if (in.op == Op::kAtomic) p = *stop;
          }
          pc = in.x;
          break;
        }
        case Op::kSubMatch:
        case Op::kMatch: {
          bool accept = in.op == Op::kSubMatch
                            ? behind_end < 0 || p == behind_end
                            : !(request_.full && p != end_) && !(must_advance_ && p == start);
          if (accept) {
            stack_.resize(base);
            return p;
          }
          ok = false;
          break;
        }
      }
      if (!ok && !Backtrack(base, pc, p)) return std::nullopt;
    }
  }

  bool MatchBackref(const Instruction& in, int64_t& p) const {
    int64_t s = slots_[2 * in.arg], e = slots_[2 * in.arg + 1];
    if (s < 0 || e < 0 || p + (e - s) > end_) return false;
    for (int64_t i = 0; i < e - s; ++i) {
      char32_t a = text_[s + i], b = text_[p + i];
      if (in.flag ? FoldCase(a) != FoldCase(b) : a != b) return false;
    }
    p += e - s;
    return true;
  }

  // Unwinds to the most recent alternative above `base`; false when there is none.
  bool Backtrack(size_t base, int32_t& pc, int64_t& p) {
    while (stack_.size() > base) {
      Frame& frame = stack_.back();
      switch (frame.kind) {
        case Frame::Kind::kRestore:
          slots_[frame.pc] = frame.value;
          stack_.pop_back();
          continue;
        case Frame::Kind::kBranch:
          pc = frame.pc;
          p = frame.pos;
          stack_.pop_back();
          return true;
        case Frame::Kind::kGreedy: {
          const Instruction& repeat = code_[frame.pc];
          if (frame.value <= repeat.min) break;
          --frame.value;
          pc = repeat.x;
          p = frame.pos + frame.value;
          return true;
        }
        case Frame::Kind::kLazy: {
          const Instruction& repeat = code_[frame.pc];
          if ((repeat.max >= 0 && frame.value >= repeat.max) ||
              !MatchOne(code_[frame.pc + 1], frame.pos + frame.value)) {
            break;
          }
          ++frame.value;
          pc = repeat.x;
          p = frame.pos + frame.value;
          return true;
        }
      }
      stack_.pop_back();
    }
    return false;
  }

  const Program& program_;
  const std::vector<Instruction>& code_;
  std::u32string_view text_;
  int64_t end_;
  const SearchRequest& request_;
  const StepHook& hook_;
  std::vector<int64_t> slots_;  // group starts and ends, loop marks, then the last group closed
  int32_t last_group_slot_;
  std::vector<Frame> stack_;
  int64_t steps_ = 0;
  int64_t next_tick_ = kStepsPerTick;
  bool must_advance_ = false;
};

std::optional<MatchSpans> Program::Search(const SearchRequest& request,
                                          const StepHook& hook) const {
  if (request.pos > request.endpos || request.endpos > request.text.size()) return std::nullopt;
  return Matcher(*this, request, hook).Search();
}

}  // namespace pz::eval::re

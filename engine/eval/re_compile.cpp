// The regex engine's compiler: the syntax tree (re_syntax.h) becomes the flat program of
// re_engine.h (one-character repeats as kRepeat, other repeats unrolled to their minimum and
// then looped or nested as optional copies), and the character categories and case folding
// the matcher tests characters with.
#include <algorithm>

#include "eval/re_syntax.h"

namespace pz::eval::re {

// ---- Characters ------------------------------------------------------------------------------

char32_t FoldCase(char32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
  if ((c >= 0xC0 && c <= 0xDE && c != 0xD7) || (c >= 0x391 && c <= 0x3AB && c != 0x3A2) ||
      (c >= 0x410 && c <= 0x42F)) {
    return c + 32;
  }
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  if (c == 0x178) return 0xFF;
  bool even_upper = (c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177);
  bool odd_upper = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
  if ((even_upper && c % 2 == 0) || (odd_upper && c % 2 == 1)) return c + 1;
  return c;
}

char32_t UpperCase(char32_t c) {
  if (c < 0x80) return c >= 'a' && c <= 'z' ? c - 32 : c;
  if ((c >= 0xE0 && c <= 0xFE && c != 0xF7) || (c >= 0x3B1 && c <= 0x3CB && c != 0x3C2) ||
      (c >= 0x430 && c <= 0x44F)) {
    return c - 32;
  }
  if (c >= 0x450 && c <= 0x45F) return c - 80;
  if (c == 0xFF) return 0x178;
  bool even_upper = (c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177);
  bool odd_upper = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
  if ((even_upper && c % 2 == 1) || (odd_upper && c % 2 == 0)) return c - 1;
  return c;
}

bool IsDigitChar(char32_t c, bool ascii) {
  if (c >= '0' && c <= '9') return true;
  if (ascii || c < 0x660) return false;
  // Decimal digits of the scripts a puzzle might meet (Arabic-Indic, Devanagari, fullwidth).
  for (char32_t zero : {0x660, 0x6F0, 0x966, 0x9E6, 0xFF10}) {
    if (c >= zero && c <= zero + 9) return true;
  }
  return false;
}

bool IsSpaceChar(char32_t c, bool ascii) {
  if (c == ' ' || (c >= '\t' && c <= '\r')) return true;
  if (ascii) return false;
  return (c >= 0x1C && c <= 0x1F) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

bool IsWordChar(char32_t c, bool ascii) {
  if (c < 0x80) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }
  if (ascii) return false;
  if (c < 0x100) {
    return c == 0xAA || c == 0xB2 || c == 0xB3 || c == 0xB5 || c == 0xB9 || c == 0xBA ||
           (c >= 0xBC && c <= 0xBE) || (c >= 0xC0 && c != 0xD7 && c != 0xF7);
  }
  // Letters and digits of every script, approximately: everything but combining marks,
  // punctuation, symbols and spaces.
  if (IsSpaceChar(c, false)) return false;
  const std::pair<char32_t, char32_t> kNotWord[] = {
      {0x300, 0x36F},   {0x2000, 0x206F}, {0x20A0, 0x20FF},   {0x2190, 0x2BFF}, {0x2E00, 0x2E7F},
      {0x3000, 0x3004}, {0x3008, 0x3020}, {0xFE30, 0xFE4F},   {0xFF00, 0xFF0F}, {0xFF1A, 0xFF20},
      {0xFF3B, 0xFF40}, {0xFF5B, 0xFF65}, {0x1F000, 0x1FAFF}, {0xE000, 0xF8FF}, {0xD800, 0xDFFF}};
  for (const auto& [lo, hi] : kNotWord) {
    if (c >= lo && c <= hi) return false;
  }
  return true;
}

bool CharSet::Contains(char32_t c) const {
  auto test = [&](char32_t x) {
    for (const auto& [lo, hi] : ranges) {
      if (x >= lo && x <= hi) return true;
    }
    return false;
  };
  bool found = test(c) || (ignore_case && (test(FoldCase(c)) || test(UpperCase(c))));
  if (!found && categories != 0) {
    found = ((categories & kDigit) && IsDigitChar(c, ascii)) ||
            ((categories & kNotDigit) && !IsDigitChar(c, ascii)) ||
            ((categories & kWord) && IsWordChar(c, ascii)) ||
            ((categories & kNotWord) && !IsWordChar(c, ascii)) ||
            ((categories & kSpace) && IsSpaceChar(c, ascii)) ||
            ((categories & kNotSpace) && !IsSpaceChar(c, ascii));
  }
  return found != negated;
}

// ---- Compiler --------------------------------------------------------------------------------

namespace {
// Programs beyond this many instructions (a counted repeat of a large group, `(...){100000}`)
// are refused rather than built.
constexpr size_t kMaxProgramSize = size_t{1} << 20;
}  // namespace

class Compiler {
 public:
  explicit Compiler(Program& program) : program_(program) {}

  void Compile(const Node& root) {
    Emit(root);
    Add(Instruction{.op = Op::kMatch});
  }

 private:
  using Op = Instruction::Op;

  int32_t Add(Instruction instruction) {
    if (program_.code_.size() >= kMaxProgramSize) {
      throw PatternError{
          "pattern is too large for this engine (a large counted repeat of a "
          "group?); use a smaller repeat count",
          std::nullopt};
    }
    program_.code_.push_back(instruction);
    return static_cast<int32_t>(program_.code_.size() - 1);
  }
  int32_t Here() const { return static_cast<int32_t>(program_.code_.size()); }
  Instruction& At(int32_t pc) { return program_.code_[pc]; }

  static bool IsOneChar(const Node& node) {
    return node.kind == Node::Kind::kChar || node.kind == Node::Kind::kAny ||
           node.kind == Node::Kind::kSet;
  }

  void Emit(const Node& node) {
    switch (node.kind) {
      case Node::Kind::kEmpty:
        return;
      case Node::Kind::kChar:
        Add(Instruction{
            .op = Op::kChar, .flag = node.flag, .c = node.flag ? FoldCase(node.c) : node.c});
        return;
      case Node::Kind::kAny:
        Add(Instruction{.op = node.flag ? Op::kAnyAll : Op::kAny});
        return;
      case Node::Kind::kSet:
        Add(Instruction{.op = Op::kSet, .arg = node.index});
        return;
      case Node::Kind::kSeq:
        for (const Node& child : node.children) Emit(child);
        return;
      case Node::Kind::kAlt: {
        std::vector<int32_t> exits;
        for (size_t i = 0; i + 1 < node.children.size(); ++i) {
          int32_t split = Add(Instruction{.op = Op::kSplit});
          At(split).x = Here();
          Emit(node.children[i]);
          exits.push_back(Add(Instruction{.op = Op::kJump}));
          At(split).y = Here();
        }
        Emit(node.children.back());
        for (int32_t exit : exits) At(exit).x = Here();
        return;
      }
      case Node::Kind::kGroup:
        Add(Instruction{.op = Op::kSave, .arg = 2 * node.index});
        Emit(node.children[0]);
        Add(Instruction{.op = Op::kSave, .arg = 2 * node.index + 1});
        return;
      case Node::Kind::kRepeat:
        EmitRepeat(node);
        return;
      case Node::Kind::kAssert:
        Add(Instruction{.op = Op::kAssert, .arg = node.index});
        return;
      case Node::Kind::kBackref:
        Add(Instruction{.op = Op::kBackref, .flag = node.flag, .arg = node.index});
        return;
      case Node::Kind::kLook: {
        int32_t look = Add(Instruction{
            .op = Op::kLook, .flag = node.negate, .arg = node.behind ? 1 : 0, .min = node.min});
        Emit(node.children[0]);
        Add(Instruction{.op = Op::kSubMatch});
        At(look).x = Here();
        return;
      }
      case Node::Kind::kAtomic: {
        int32_t atomic = Add(Instruction{.op = Op::kAtomic});
        Emit(node.children[0]);
        Add(Instruction{.op = Op::kSubMatch});
        At(atomic).x = Here();
        return;
      }
      case Node::Kind::kCond: {
        int32_t test = Add(Instruction{.op = Op::kGroupExists, .arg = node.index});
        Emit(node.children[0]);
        int32_t exit = Add(Instruction{.op = Op::kJump});
        At(test).x = Here();
        Emit(node.children[1]);
        At(exit).x = Here();
        return;
      }
    }
  }

  void EmitRepeat(const Node& node) {
    const Node& body = node.children[0];
    int32_t atomic = -1;
    if (node.possessive) atomic = Add(Instruction{.op = Op::kAtomic});
    if (IsOneChar(body)) {
      int32_t repeat =
          Add(Instruction{.op = Op::kRepeat, .flag = node.lazy, .min = node.min, .max = node.max});
      Emit(body);
      At(repeat).x = Here();
    } else {
      for (int64_t i = 0; i < node.min; ++i) Emit(body);
      if (node.max < 0) {
        // L: split body/exit; body with an empty-iteration check; jump L.
        int32_t loop = Add(Instruction{.op = Op::kSplit});
        int32_t slot = NewLoopSlot();
        Add(Instruction{.op = Op::kLoopMark, .arg = slot});
        Emit(body);
        int32_t check = Add(Instruction{.op = Op::kLoopCheck, .arg = slot});
        Add(Instruction{.op = Op::kJump, .x = loop});
        At(check).x = Here();
        SetBranches(loop, loop + 1, Here(), node.lazy);
      } else {
        std::vector<int32_t> splits;
        for (int64_t i = node.min; i < node.max; ++i) {
          splits.push_back(Add(Instruction{.op = Op::kSplit}));
          Emit(body);
        }
        for (int32_t split : splits) SetBranches(split, split + 1, Here(), node.lazy);
      }
    }
    if (atomic >= 0) {
      Add(Instruction{.op = Op::kSubMatch});
      At(atomic).x = Here();
    }
  }

  // A split that prefers `body` (greedy) or `exit` (lazy).
  void SetBranches(int32_t split, int32_t body, int32_t exit, bool lazy) {
    At(split).x = lazy ? exit : body;
    At(split).y = lazy ? body : exit;
  }

  int32_t NewLoopSlot() { return 2 * (program_.groups_ + 1) + program_.loop_slots_++; }

  Program& program_;
};

Program Program::Compile(std::u32string_view pattern, int flags) {
  ParsedPattern parsed = ParsePattern(pattern, flags);
  Program program;
  program.flags_ = parsed.flags;
  program.groups_ = parsed.groups;
  program.group_names_ = std::move(parsed.group_names);
  program.sets_ = std::move(parsed.sets);
  Compiler(program).Compile(parsed.root);
  return program;
}

int Program::GroupIndex(std::string_view name) const {
  for (const auto& [n, group] : group_names_) {
    if (n == name) return group;
  }
  return -1;
}

}  // namespace pz::eval::re

// The regular-expression engine behind the `re` module: re_parse.cpp reads Python's pattern
// syntax (as CPython's sre_parse does, with its error messages) and compiles it to a program for
// the backtracking matcher in re_engine.cpp. It works on code points and knows nothing of
// interpreter values; re_module.cpp wraps it in Pattern and Match objects.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pz::eval::re {

// Flag bits, with the values of CPython's `re` flags.
enum Flag : int {
  kIgnoreCase = 2,
  kLocale = 4,
  kMultiline = 8,
  kDotAll = 16,
  kUnicode = 32,
  kVerbose = 64,
  kAscii = 256,
};

// A bad pattern or replacement template: CPython's message (without "at position") and the code
// point offset it points at, or nullopt where CPython gives none.
struct PatternError {
  std::string message;
  std::optional<size_t> position;
};

// The zero-width assertions.
enum class Assert : uint8_t {
  kBeginning,      // \A, and ^ without MULTILINE
  kBeginningLine,  // ^ with MULTILINE
  kEnd,            // $ without MULTILINE: the end, or before a newline that ends the string
  kEndLine,        // $ with MULTILINE
  kEndString,      // \Z
  kWordBoundary,   // \b (Unicode word characters)
  kNotWordBoundary,
  kWordBoundaryAscii,  // \b under re.ASCII
  kNotWordBoundaryAscii,
};

// A character set ([a-z\d], \w, ...): ranges of code points plus category escapes.
struct CharSet {
  enum Category : uint8_t {
    kDigit = 1,
    kNotDigit = 2,
    kWord = 4,
    kNotWord = 8,
    kSpace = 16,
    kNotSpace = 32,
  };
  std::vector<std::pair<char32_t, char32_t>> ranges;  // inclusive
  uint8_t categories = 0;
  bool negated = false;
  bool ignore_case = false;  // also matches the other case of the character
  bool ascii = false;        // categories are ASCII-only (re.ASCII)
  bool Contains(char32_t c) const;
};

// One instruction of a compiled pattern. Which fields matter depends on `op`.
struct Instruction {
  enum class Op : uint8_t {
    kChar,         // `c`, compared case-folded when `flag`
    kAny,          // any code point but '\n'
    kAnyAll,       // any code point (DOTALL)
    kSet,          // sets[arg]
    kSplit,        // continue at x, on failure at y
    kJump,         // continue at x
    kSave,         // slot arg = position
    kAssert,       // static_cast<Assert>(arg)
    kBackref,      // group arg, case-folded when `flag`
    kRepeat,       // the one-character instruction at pc + 1, min..max times (max -1: no limit),
                   // greedy unless `flag`; continues at x
    kLoopMark,     // slot arg = position (start of one iteration of a loop)
    kLoopCheck,    // an empty iteration (position == slot arg) leaves the loop: continue at x
    kLook,         // lookaround over pc + 1 .. its kSubMatch: ahead (arg 0) or behind by
                   // `min` characters; negative when `flag`; continues at x
    kAtomic,       // atomic group / possessive repeat over pc + 1 .. kSubMatch; continues at x
    kSubMatch,     // end of a lookaround or atomic body
    kGroupExists,  // (?(arg)yes|no): continue at pc + 1 when group arg matched, else at x
    kMatch,
  };
  Op op;
  bool flag = false;
  char32_t c = 0;
  int32_t arg = 0;
  int32_t x = 0;
  int32_t y = 0;
  int64_t min = 0;
  int64_t max = 0;
};

// One match attempt's inputs.
struct SearchRequest {
  std::u32string_view text;   // the whole subject string
  size_t pos = 0;             // first start position tried
  size_t endpos = 0;          // the subject ends here for the matcher
  bool anchored = false;      // match() and fullmatch(): only start at `pos`
  bool full = false;          // fullmatch(): the match must end at `endpos`
  bool must_advance = false;  // an empty match at `pos` is not accepted (after an empty match)
};

// Called every kStepsPerTick matcher steps with the steps taken so far in this search; it may
// throw to stop a runaway (catastrophically backtracking) search.
using StepHook = std::function<void(int64_t steps)>;
constexpr int64_t kStepsPerTick = 4096;

// A successful search: (start, end) of groups 0..groups() in code points, (-1, -1) for those
// that did not take part, and the last group to close (Match.lastindex), or -1.
struct MatchSpans {
  std::vector<std::pair<int64_t, int64_t>> spans;
  int last_group = -1;
};

// A compiled pattern.
class Program {
 public:
  // Parses `pattern` with `flags` (re_parse.cpp). Throws PatternError.
  static Program Compile(std::u32string_view pattern, int flags);

  // The first match the request allows, or nullopt.
  std::optional<MatchSpans> Search(const SearchRequest& request, const StepHook& hook) const;

  int flags() const { return flags_; }
  int groups() const { return groups_; }
  // Named groups in order of their numbers.
  const std::vector<std::pair<std::string, int>>& group_names() const { return group_names_; }
  // The group number of `name`, or -1.
  int GroupIndex(std::string_view name) const;

 private:
  friend class Compiler;
  friend class Matcher;

  std::vector<Instruction> code_;
  std::vector<CharSet> sets_;
  int flags_ = 0;
  int groups_ = 0;
  int loop_slots_ = 0;
  std::vector<std::pair<std::string, int>> group_names_;
};

// One piece of a parsed replacement template: literal text, or a group's text (group >= 0).
struct TemplatePiece {
  std::u32string literal;
  int group = -1;
};
// Parses sub()'s replacement string (\1, \g<name>, \n, ...) for `program`. Throws PatternError,
// or sets `unknown_group` (and returns nothing) for \g<name> of an unknown name (an IndexError in
// CPython).
std::vector<TemplatePiece> ParseTemplate(std::u32string_view text, const Program& program,
                                         std::string& unknown_group);

// re.escape: a backslash before each character that is special in a pattern.
std::u32string Escape(std::u32string_view text);

// Unicode-aware (Latin, Greek and Cyrillic) simple case folding and the \d \w \s categories.
char32_t FoldCase(char32_t c);
char32_t UpperCase(char32_t c);
bool IsWordChar(char32_t c, bool ascii);
bool IsDigitChar(char32_t c, bool ascii);
bool IsSpaceChar(char32_t c, bool ascii);

}  // namespace pz::eval::re

// Private to the regex engine: the syntax tree of a parsed pattern (flags already resolved into
// the nodes: a case-insensitive literal, a DOTALL dot, a MULTILINE `^`, so the compiler in
// re_compile.cpp needs no flag state), and the tokenizer and parser that build it (re_parse.cpp:
// sequences, repeats, escapes and sets; re_parse_group.cpp: groups, lookarounds, conditionals
// and inline flags), which re_template.cpp's template parser shares.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "eval/re_engine.h"

namespace pz::eval::re {

struct Node {
  enum class Kind : uint8_t {
    kEmpty,
    kChar,     // `c`; `flag`: case-insensitive
    kAny,      // `flag`: DOTALL
    kSet,      // sets[index]
    kSeq,      // children in order
    kAlt,      // children are the branches
    kGroup,    // capturing group `index` around children[0]
    kRepeat,   // children[0] min..max times (max -1: unbounded); `lazy`, `possessive`
    kAssert,   // static_cast<Assert>(index)
    kBackref,  // group `index`; `flag`: case-insensitive
    kLook,     // children[0]; `behind`, `negate`
    kAtomic,   // children[0]
    kCond,     // (?(index)children[0]|children[1])
  };
  Kind kind = Kind::kEmpty;
  bool flag = false;
  bool lazy = false;
  bool possessive = false;
  bool behind = false;
  bool negate = false;
  char32_t c = 0;
  int index = 0;
  int64_t min = 0;
  int64_t max = 0;
  std::vector<Node> children;
};

// A parsed pattern: the tree, its character sets, and what Program reports about it.
struct ParsedPattern {
  Node root;
  std::vector<CharSet> sets;
  int flags = 0;   // the flags given plus the global inline ones, with kUnicode added
  int groups = 0;  // capturing groups
  std::vector<std::pair<std::string, int>> group_names;
};

// ---- Parsing ----------------------------------------------------------------------------------

bool IsDigit(char32_t c);
bool IsOctal(char32_t c);
bool IsHex(char32_t c);
bool IsAsciiLetter(char32_t c);
// str.isidentifier(), for the names of groups.
bool IsIdentifier(std::u32string_view s);
// The value of decimal, octal or hex digits, saturating far above any repeat count.
int64_t ParseNumber(std::u32string_view digits, int base);
std::string Utf8(std::u32string_view s);
// Python's repr of a name, for messages.
std::string Repr(std::u32string_view s);

// The pattern as sre_parse's Tokenizer sees it: one character at a time, a backslash together
// with the character after it.
class Tokenizer {
 public:
  explicit Tokenizer(std::u32string_view text) : text_(text) {}

  // The next token, or empty at the end.
  std::u32string_view Peek() const {
    if (pos_ >= text_.size()) return {};
    if (text_[pos_] == '\\') {
      if (pos_ + 1 >= text_.size()) throw PatternError{"bad escape (end of pattern)", pos_};
      return text_.substr(pos_, 2);
    }
    return text_.substr(pos_, 1);
  }
  std::u32string_view Get() {
    std::u32string_view token = Peek();
    pos_ += token.size();
    return token;
  }
  bool NextIs(char32_t c) const {
    std::u32string_view token = Peek();
    return token.size() == 1 && token[0] == c;
  }
  bool NextIs(bool (*pred)(char32_t)) const {
    std::u32string_view token = Peek();
    return token.size() == 1 && pred(token[0]);
  }
  bool Match(char32_t c) {
    if (!NextIs(c)) return false;
    ++pos_;
    return true;
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  size_t Tell() const { return pos_; }
  void Seek(size_t pos) { pos_ = pos; }

  // A pattern error `offset` code points before the current position.
  [[noreturn]] void Error(std::string message, size_t offset = 0) const {
    throw PatternError{std::move(message), pos_ - offset};
  }
  // Up to `n` characters satisfying `pred`.
  std::u32string GetWhile(size_t n, bool (*pred)(char32_t)) {
    std::u32string out;
    while (out.size() < n && NextIs(pred)) out += text_[pos_++];
    return out;
  }
  // The text up to `terminator` (consumed); `name` names what is missing in errors.
  std::u32string GetUntil(char32_t terminator, const char* name);

 private:
  std::u32string_view text_;
  size_t pos_ = 0;
};

// Builds the tree of one pattern (sre_parse's _parse_sub, _parse and their helpers).
class Parser {
 public:
  Parser(std::u32string_view pattern, int flags);
  ParsedPattern Parse();

 private:
  // Inline flags turned on and off around the current position, and verbose mode.
  struct Scope {
    int add = 0;
    int del = 0;
    bool verbose = false;
  };
  // One member of a character set: a code point or a category escape (\d, \W, ...).
  struct SetItem {
    char32_t c = 0;
    uint8_t category = 0;
  };
  int Flags(const Scope& scope) const { return (out_.flags | scope.add) & ~scope.del; }

  // re_parse.cpp
  Node ParseAlternation(const Scope& scope, int nested);
  Node ParseSequence(Scope scope, int nested, bool first);
  void ParseRepeat(char32_t c, std::vector<Node>& items, bool icase);
  Node ParseEscape(std::u32string_view token, int flags);
  char32_t OctalValue(const std::u32string& escape);
  // The character an escape stands for, in or out of a set (\b is handled by the caller).
  char32_t EscapedChar(std::u32string_view token);
  Node SetNode(CharSet set);
  SetItem ParseSetItem(std::u32string_view token);
  Node ParseSet(int flags);

  // re_parse_group.cpp
  std::optional<Node> ParseGroup(Scope& scope, int nested, bool at_start);
  Node ParseLookaround(const Scope& scope, int nested, char32_t c, size_t start);
  Node ParseConditional(const Scope& scope, int nested, size_t start);
  // (?aiLmsux-imsx:...) after its first character `c`: the flags turned on and off, or nullopt
  // for global flags `(?i)`, which are added to the pattern's flags.
  std::optional<std::pair<int, int>> ParseFlags(char32_t c);
  void CheckGroupName(const std::u32string& name);
  int GroupNumber(const std::u32string& name) const;
  int OpenGroup(const std::u32string& name, bool named);
  void CheckLookbehindGroup(int group);

  Tokenizer tok_;
  ParsedPattern out_;
  std::vector<bool> closed_;                            // per group number
  std::vector<std::pair<int64_t, int64_t>> widths_;     // per group number
  std::optional<int> lookbehind_groups_;                // first group inside the open lookbehind
  std::vector<std::pair<int, size_t>> condition_refs_;  // (?(N)...) group numbers, checked last
};

// A leaf node, and a node around one child.
Node Leaf(Node::Kind kind, char32_t c = 0, bool flag = false, int index = 0);
Node Wrap(Node::Kind kind, Node child);
// An assertion node.
Node AssertNode(Assert kind);
// The category bit of \d \D \w \W \s \S (by the letter), or 0.
uint8_t CategoryOf(char32_t c);

// Parses `pattern` (re_parse.cpp). Throws PatternError.
ParsedPattern ParsePattern(std::u32string_view pattern, int flags);

// The (min, max) number of characters `node` can match; max -1 when unbounded
// (re_parse_group.cpp).
// `group_widths[g]` is the width of group g, for backreferences.
std::pair<int64_t, int64_t> Width(const Node& node,
                                  const std::vector<std::pair<int64_t, int64_t>>& group_widths);

}  // namespace pz::eval::re

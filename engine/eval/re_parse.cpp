// Parsing of Python regular expressions into the engine's syntax tree (re_syntax.h), following
// CPython 3.11's sre_parse: the same grammar, the same error messages, and the same positions
// (code point offsets) in them. This file: sequences, repeats, escapes and character sets;
// groups and inline flags are in re_parse_group.cpp.
#include <fmt/format.h>

#include <algorithm>

#include "eval/format.h"
#include "eval/re_syntax.h"

namespace pz::eval::re {
namespace {

// CPython's MAXREPEAT: repeat counts from here on are an OverflowError there.
constexpr int64_t kMaxRepeat = 4294967295;

}  // namespace

bool IsDigit(char32_t c) { return c >= '0' && c <= '9'; }
bool IsOctal(char32_t c) { return c >= '0' && c <= '7'; }
bool IsHex(char32_t c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsAsciiLetter(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool IsIdentifier(std::u32string_view s) {
  if (s.empty() || IsDigit(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [](char32_t c) { return IsWordChar(c, false); });
}

std::string Utf8(std::u32string_view s) { return EncodeUtf8(s); }
std::string Repr(std::u32string_view s) { return StrRepr(Utf8(s)); }

int64_t ParseNumber(std::u32string_view digits, int base) {
  int64_t value = 0;
  for (char32_t c : digits) {
    int digit = IsDigit(c) ? static_cast<int>(c - '0') : static_cast<int>((c | 0x20) - 'a' + 10);
    value = value * base + digit;
    if (value > kMaxRepeat * 16) return value;  // large enough for every check that follows
  }
  return value;
}

std::u32string Tokenizer::GetUntil(char32_t terminator, const char* name) {
  std::u32string out;
  for (;;) {
    std::u32string_view token = Get();
    if (token.empty()) {
      if (out.empty()) Error(fmt::format("missing {}", name));
      Error(fmt::format("missing {}, unterminated name", Utf8(std::u32string(1, terminator))),
            out.size());
    }
    if (token.size() == 1 && token[0] == terminator) {
      if (out.empty()) Error(fmt::format("missing {}", name), 1);
      return out;
    }
    out += token;
  }
}

Node Leaf(Node::Kind kind, char32_t c, bool flag, int index) {
  Node node;
  node.kind = kind;
  node.c = c;
  node.flag = flag;
  node.index = index;
  return node;
}

Node Wrap(Node::Kind kind, Node child) {
  Node node;
  node.kind = kind;
  node.children.push_back(std::move(child));
  return node;
}

Node AssertNode(Assert kind) { return Leaf(Node::Kind::kAssert, 0, false, static_cast<int>(kind)); }

uint8_t CategoryOf(char32_t c) {
  switch (c) {
    case 'd':
      return CharSet::kDigit;
    case 'D':
      return CharSet::kNotDigit;
    case 'w':
      return CharSet::kWord;
    case 'W':
      return CharSet::kNotWord;
    case 's':
      return CharSet::kSpace;
    case 'S':
      return CharSet::kNotSpace;
    default:
      return 0;
  }
}

Parser::Parser(std::u32string_view pattern, int flags) : tok_(pattern) {
  out_.flags = flags;
  closed_.push_back(true);
  widths_.emplace_back(0, 0);
}

ParsedPattern Parser::Parse() {
  Scope scope;
  scope.verbose = (out_.flags & kVerbose) != 0;
  out_.root = ParseAlternation(scope, 0);
  if (!(out_.flags & kAscii)) out_.flags |= kUnicode;
  if (!tok_.AtEnd()) tok_.Error("unbalanced parenthesis");
  for (const auto& [group, position] : condition_refs_) {
    if (group > out_.groups) {
      throw PatternError{fmt::format("invalid group reference {}", group), position};
    }
  }
  return std::move(out_);
}

Node Parser::ParseAlternation(const Scope& scope, int nested) {
  std::vector<Node> branches;
  do {
    branches.push_back(ParseSequence(scope, nested + 1, nested == 0 && branches.empty()));
  } while (tok_.Match('|'));
  if (branches.size() == 1) return std::move(branches[0]);
  Node alt;
  alt.kind = Node::Kind::kAlt;
  alt.children = std::move(branches);
  return alt;
}

Node Parser::ParseSequence(Scope scope, int nested, bool first) {
  std::vector<Node> items;
  for (;;) {
    std::u32string_view token = tok_.Peek();
    if (token.empty() || token == U"|" || token == U")") break;
    tok_.Get();
    int flags = Flags(scope);
    bool icase = (flags & kIgnoreCase) != 0;
    if (token[0] == '\\') {
      items.push_back(ParseEscape(token, flags));
      continue;
    }
    char32_t c = token[0];
    if (scope.verbose && (c == ' ' || (c >= '\t' && c <= '\r'))) continue;
    if (scope.verbose && c == '#') {
      while (!tok_.AtEnd() && tok_.Get() != U"\n") {
      }
      continue;
    }
    switch (c) {
      case '[':
        items.push_back(ParseSet(flags));
        break;
      case '.':
        items.push_back(Leaf(Node::Kind::kAny, 0, (flags & kDotAll) != 0));
        break;
      case '^':
        items.push_back(
            AssertNode(flags & kMultiline ? Assert::kBeginningLine : Assert::kBeginning));
        break;
      case '$':
        items.push_back(AssertNode(flags & kMultiline ? Assert::kEndLine : Assert::kEnd));
        break;
      case '*':
      case '+':
      case '?':
      case '{':
        ParseRepeat(c, items, icase);
        break;
      case '(':
        if (std::optional<Node> group = ParseGroup(scope, nested, first && items.empty())) {
          items.push_back(std::move(*group));
        }
        break;
      default:
        items.push_back(Leaf(Node::Kind::kChar, c, icase));
    }
  }
  if (items.size() == 1) return std::move(items[0]);
  Node seq;
  seq.kind = items.empty() ? Node::Kind::kEmpty : Node::Kind::kSeq;
  seq.children = std::move(items);
  return seq;
}

void Parser::ParseRepeat(char32_t c, std::vector<Node>& items, bool icase) {
  size_t here = tok_.Tell();
  int64_t min = c == '+' ? 1 : 0;
  int64_t max = c == '?' ? 1 : -1;
  if (c == '{') {
    if (tok_.NextIs('}')) {
      items.push_back(Leaf(Node::Kind::kChar, c, icase));
      return;
    }
    std::u32string lo = tok_.GetWhile(SIZE_MAX, IsDigit), hi = lo;
    if (tok_.Match(',')) hi = tok_.GetWhile(SIZE_MAX, IsDigit);
    if (!tok_.Match('}')) {
      items.push_back(Leaf(Node::Kind::kChar, c, icase));
      tok_.Seek(here);
      return;
    }
    min = lo.empty() ? 0 : ParseNumber(lo, 10);
    max = hi.empty() ? -1 : ParseNumber(hi, 10);
    if (min >= kMaxRepeat || max >= kMaxRepeat) {
      throw PatternError{"the repetition number is too large", std::nullopt};
    }
    if (max != -1 && max < min)
      tok_.Error("min repeat greater than max repeat", tok_.Tell() - here);
  }
  size_t offset = tok_.Tell() - here + 1;
  if (items.empty() || items.back().kind == Node::Kind::kAssert) {
    tok_.Error("nothing to repeat", offset);
  }
  if (items.back().kind == Node::Kind::kRepeat) tok_.Error("multiple repeat", offset);
  Node repeat = Wrap(Node::Kind::kRepeat, std::move(items.back()));
  repeat.min = min;
  repeat.max = max;
  if (tok_.Match('?')) {
    repeat.lazy = true;
  } else if (tok_.Match('+')) {
    repeat.possessive = true;
  }
  items.back() = std::move(repeat);
}

// \d and the other escapes outside a set.
Node Parser::ParseEscape(std::u32string_view token, int flags) {
  bool icase = (flags & kIgnoreCase) != 0;
  bool ascii = (flags & kAscii) != 0;
  switch (token[1]) {
    case 'A':
      return AssertNode(Assert::kBeginning);
    case 'Z':
      return AssertNode(Assert::kEndString);
    case 'b':
      return AssertNode(ascii ? Assert::kWordBoundaryAscii : Assert::kWordBoundary);
    case 'B':
      return AssertNode(ascii ? Assert::kNotWordBoundaryAscii : Assert::kNotWordBoundary);
    default:
      break;
  }
  if (uint8_t category = CategoryOf(token[1])) {
    CharSet set;
    set.categories = category;
    set.ascii = ascii;
    return SetNode(std::move(set));
  }
  if (IsDigit(token[1]) && token[1] != '0') {
    std::u32string escape(token);
    if (tok_.NextIs(IsDigit)) {
      escape += tok_.Get();
      if (IsOctal(escape[1]) && IsOctal(escape[2]) && tok_.NextIs(IsOctal)) {
        escape += tok_.Get();
        return Leaf(Node::Kind::kChar, OctalValue(escape), icase);
      }
    }
    int64_t group = ParseNumber(escape.substr(1), 10);
    if (group <= out_.groups) {
      if (!closed_[group]) tok_.Error("cannot refer to an open group", escape.size());
      CheckLookbehindGroup(static_cast<int>(group));
      return Leaf(Node::Kind::kBackref, 0, icase, static_cast<int>(group));
    }
    tok_.Error(fmt::format("invalid group reference {}", group), escape.size() - 1);
  }
  return Leaf(Node::Kind::kChar, EscapedChar(token), icase);
}

char32_t Parser::OctalValue(const std::u32string& escape) {
  int64_t value = ParseNumber(escape.substr(1), 8);
  if (value > 0377) {
    tok_.Error(fmt::format("octal escape value {} outside of range 0-0o377", Utf8(escape)),
               escape.size());
  }
  return static_cast<char32_t>(value);
}

// The character an escape stands for, in or out of a set (\b is handled by the caller).
char32_t Parser::EscapedChar(std::u32string_view token) {
  std::u32string escape(token);
  char32_t c = token[1];
  switch (c) {
    case 'a':
      return 7;
    case 'b':
      return 8;
    case 'f':
      return 12;
    case 'n':
      return 10;
    case 'r':
      return 13;
    case 't':
      return 9;
    case 'v':
      return 11;
    case 'x':
    case 'u':
    case 'U': {
      size_t digits = c == 'x' ? 2 : c == 'u' ? 4 : 8;
      escape += tok_.GetWhile(digits, IsHex);
      if (escape.size() != digits + 2) {
        tok_.Error(fmt::format("incomplete escape {}", Utf8(escape)), escape.size());
      }
      int64_t value = ParseNumber(escape.substr(2), 16);
      if (value > 0x10FFFF) tok_.Error(fmt::format("bad escape {}", Utf8(escape)), escape.size());
      return static_cast<char32_t>(value);
    }
    case 'N':
      tok_.Error(
          "\\N{...} named characters are not supported by this engine; write the "
          "character or a \\u escape",
          2);
    default:
      break;
  }
  if (IsOctal(c)) {
    escape += tok_.GetWhile(2, IsOctal);
    return OctalValue(escape);
  }
  if (IsDigit(c) || IsAsciiLetter(c)) tok_.Error(fmt::format("bad escape {}", Utf8(escape)), 2);
  return c;
}

Node Parser::SetNode(CharSet set) {
  out_.sets.push_back(std::move(set));
  return Leaf(Node::Kind::kSet, 0, false, static_cast<int>(out_.sets.size() - 1));
}

Parser::SetItem Parser::ParseSetItem(std::u32string_view token) {
  if (token[0] != '\\') return SetItem{token[0], 0};
  if (uint8_t category = CategoryOf(token[1])) return SetItem{0, category};
  return SetItem{EscapedChar(token), 0};
}

Node Parser::ParseSet(int flags) {
  size_t here = tok_.Tell() - 1;
  CharSet set;
  set.ignore_case = (flags & kIgnoreCase) != 0;
  set.ascii = (flags & kAscii) != 0;
  set.negated = tok_.Match('^');
  bool any = false;
  auto add = [&](const SetItem& item) {
    set.categories |= item.category;
    if (item.category == 0) set.ranges.emplace_back(item.c, item.c);
  };
  for (;; any = true) {
    std::u32string_view token = tok_.Get();
    if (token.empty()) tok_.Error("unterminated character set", tok_.Tell() - here);
    if (token == U"]" && any) break;
    SetItem first = ParseSetItem(token);
    if (!tok_.Match('-')) {
      add(first);
      continue;
    }
    std::u32string_view that = tok_.Get();
    if (that.empty()) tok_.Error("unterminated character set", tok_.Tell() - here);
    if (that == U"]") {
      add(first);
      add(SetItem{'-', 0});
      break;
    }
    SetItem last = ParseSetItem(that);
    if (first.category != 0 || last.category != 0 || last.c < first.c) {
      tok_.Error(fmt::format("bad character range {}-{}", Utf8(token), Utf8(that)),
                 token.size() + 1 + that.size());
    }
    set.ranges.emplace_back(first.c, last.c);
  }
  return SetNode(std::move(set));
}

ParsedPattern ParsePattern(std::u32string_view pattern, int flags) {
  return Parser(pattern, flags).Parse();
}

}  // namespace pz::eval::re

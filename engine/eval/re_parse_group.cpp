// The group constructs of Python regular expressions: capturing and named groups, `(?:...)`,
// atomic groups, lookarounds, conditionals `(?(1)...|...)`, comments and inline flags, with
// CPython 3.11's errors; and the widths lookbehinds are checked with. Part of the parser
// (re_syntax.h); sequences and atoms are in re_parse.cpp.
#include <fmt/format.h>

#include <algorithm>

#include "eval/re_syntax.h"

namespace pz::eval::re {
namespace {

// The flags that select a character model: at most one may be on.
constexpr int kTypeFlags = kAscii | kUnicode | kLocale;

int FlagOf(char32_t c) {
  switch (c) {
    case 'i':
      return kIgnoreCase;
    case 'L':
      return kLocale;
    case 'm':
      return kMultiline;
    case 's':
      return kDotAll;
    case 'x':
      return kVerbose;
    case 'a':
      return kAscii;
    case 'u':
      return kUnicode;
    default:
      return 0;
  }
}
bool IsFlagToken(std::u32string_view t) { return t.size() == 1 && FlagOf(t[0]) != 0; }
bool IsAlphaToken(std::u32string_view t) {
  return t.size() == 1 && (IsAsciiLetter(t[0]) || (t[0] > 0x7f && IsWordChar(t[0], false)));
}

}  // namespace

std::optional<Node> Parser::ParseGroup(Scope& scope, int nested, bool at_start) {
  size_t start = tok_.Tell() - 1;
  bool capture = true, atomic = false, named = false;
  std::u32string name;
  Scope inner = scope;
  auto unterminated = [&] {
    if (!tok_.Match(')')) tok_.Error("missing ), unterminated subpattern", tok_.Tell() - start);
  };
  if (tok_.Match('?')) {
    std::u32string_view token = tok_.Get();
    if (token.empty()) tok_.Error("unexpected end of pattern");
    char32_t c = token.size() == 1 ? token[0] : 0;
    if (c == 'P') {
      if (tok_.Match('<')) {
        name = tok_.GetUntil('>', "group name");
        CheckGroupName(name);
        named = true;
      } else if (tok_.Match('=')) {
        name = tok_.GetUntil(')', "group name");
        CheckGroupName(name);
        int group = GroupNumber(name);
        if (group < 0) {
          tok_.Error(fmt::format("unknown group name {}", Repr(name)), name.size() + 1);
        }
        if (!closed_[group]) tok_.Error("cannot refer to an open group", name.size() + 1);
        CheckLookbehindGroup(group);
        return Leaf(Node::Kind::kBackref, 0, (Flags(scope) & kIgnoreCase) != 0, group);
      } else {
        std::u32string_view next = tok_.Get();
        if (next.empty()) tok_.Error("unexpected end of pattern");
        tok_.Error(fmt::format("unknown extension ?P{}", Utf8(next)), next.size() + 2);
      }
    } else if (c == ':') {
      capture = false;
    } else if (c == '#') {
      for (;;) {
        if (tok_.AtEnd()) tok_.Error("missing ), unterminated comment", tok_.Tell() - start);
        if (tok_.Get() == U")") return std::nullopt;
      }
    } else if (c == '=' || c == '!' || c == '<') {
      return ParseLookaround(scope, nested, c, start);
    } else if (c == '(') {
      return ParseConditional(scope, nested, start);
    } else if (c == '>') {
      capture = false;
      atomic = true;
    } else if (FlagOf(c) != 0 || c == '-') {
      std::optional<std::pair<int, int>> flags = ParseFlags(c);
      if (!flags) {
        if (!at_start) {
          tok_.Error("global flags not at the start of the expression", tok_.Tell() - start);
        }
        scope.verbose = (out_.flags & kVerbose) != 0;
        return std::nullopt;
      }
      auto [add, del] = *flags;
      inner.add = (scope.add & ~del) | add;
      inner.del = (scope.del & ~add) | del;
      inner.verbose = (scope.verbose || (add & kVerbose)) && !(del & kVerbose);
      capture = false;
    } else {
      tok_.Error(fmt::format("unknown extension ?{}", Utf8(token)), token.size() + 1);
    }
  }
  int group = capture ? OpenGroup(name, named) : 0;
  Node body = ParseAlternation(inner, nested + 1);
  unterminated();
  if (capture) {
    closed_[group] = true;
    widths_[group] = Width(body, widths_);
    Node node = Wrap(Node::Kind::kGroup, std::move(body));
    node.index = group;
    return node;
  }
  return Wrap(atomic ? Node::Kind::kAtomic : Node::Kind::kSeq, std::move(body));
}

Node Parser::ParseLookaround(const Scope& scope, int nested, char32_t c, size_t start) {
  bool behind = c == '<';
  bool reset_lookbehind = false;
  if (behind) {
    std::u32string_view next = tok_.Get();
    if (next.empty()) tok_.Error("unexpected end of pattern");
    if (next != U"=" && next != U"!") {
      tok_.Error(fmt::format("unknown extension ?<{}", Utf8(next)), next.size() + 2);
    }
    c = next[0];
    if (!lookbehind_groups_) {
      lookbehind_groups_ = out_.groups + 1;
      reset_lookbehind = true;
    }
  }
  Node body = ParseAlternation(scope, nested + 1);
  if (reset_lookbehind) lookbehind_groups_.reset();
  if (!tok_.Match(')')) tok_.Error("missing ), unterminated subpattern", tok_.Tell() - start);
  Node look = Wrap(Node::Kind::kLook, std::move(body));
  look.behind = behind;
  look.negate = c == '!';
  if (behind) {
    auto [lo, hi] = Width(look.children[0], widths_);
    if (lo != hi) throw PatternError{"look-behind requires fixed-width pattern", std::nullopt};
    look.min = lo;
  }
  return look;
}

Node Parser::ParseConditional(const Scope& scope, int nested, size_t start) {
  std::u32string name = tok_.GetUntil(')', "group name");
  int group;
  if (IsIdentifier(name)) {
    group = GroupNumber(name);
    if (group < 0) tok_.Error(fmt::format("unknown group name {}", Repr(name)), name.size() + 1);
  } else {
    if (!std::all_of(name.begin(), name.end(), IsDigit) || name.size() > 9) {
      tok_.Error(fmt::format("bad character in group name {}", Repr(name)), name.size() + 1);
    }
    group = static_cast<int>(ParseNumber(name, 10));
    if (group == 0) tok_.Error("bad group number", name.size() + 1);
    condition_refs_.emplace_back(group, tok_.Tell() - name.size() - 1);
  }
  CheckLookbehindGroup(group);
  Node node;
  node.kind = Node::Kind::kCond;
  node.index = group;
  node.children.push_back(ParseSequence(scope, nested + 1, false));
  node.children.emplace_back();
  if (tok_.Match('|')) {
    node.children[1] = ParseSequence(scope, nested + 1, false);
    if (tok_.NextIs('|')) tok_.Error("conditional backref with more than two branches");
  }
  if (!tok_.Match(')')) tok_.Error("missing ), unterminated subpattern", tok_.Tell() - start);
  return node;
}

std::optional<std::pair<int, int>> Parser::ParseFlags(char32_t c) {
  int add = 0, del = 0;
  std::u32string_view token = std::u32string_view(&c, 1);
  if (c != '-') {
    for (;;) {
      if (c == 'L') tok_.Error("bad inline flags: cannot use 'L' flag with a str pattern");
      int flag = FlagOf(c);
      add |= flag;
      if ((flag & kTypeFlags) && (add & kTypeFlags) != flag) {
        tok_.Error("bad inline flags: flags 'a', 'u' and 'L' are incompatible");
      }
      token = tok_.Get();
      if (token.empty()) tok_.Error("missing -, : or )");
      if (token == U")" || token == U"-" || token == U":") break;
      if (!IsFlagToken(token)) {
        tok_.Error(IsAlphaToken(token) ? "unknown flag" : "missing -, : or )", token.size());
      }
      c = token[0];
    }
  }
  if (token == U")") {
    out_.flags |= add;
    return std::nullopt;
  }
  if (token == U"-") {
    token = tok_.Get();
    if (token.empty()) tok_.Error("missing flag");
    if (!IsFlagToken(token)) {
      tok_.Error(IsAlphaToken(token) ? "unknown flag" : "missing flag", token.size());
    }
    for (;;) {
      int flag = FlagOf(token[0]);
      if (flag & kTypeFlags) tok_.Error("bad inline flags: cannot turn off flags 'a', 'u' and 'L'");
      del |= flag;
      token = tok_.Get();
      if (token.empty()) tok_.Error("missing :");
      if (token == U":") break;
      if (!IsFlagToken(token)) {
        tok_.Error(IsAlphaToken(token) ? "unknown flag" : "missing :", token.size());
      }
    }
  }
  if (add & del) tok_.Error("bad inline flags: flag turned on and off", 1);
  return std::make_pair(add, del);
}

void Parser::CheckGroupName(const std::u32string& name) {
  if (!IsIdentifier(name)) {
    tok_.Error(fmt::format("bad character in group name {}", Repr(name)), name.size() + 1);
  }
}

int Parser::GroupNumber(const std::u32string& name) const {
  std::string key = Utf8(name);
  for (const auto& [n, group] : out_.group_names) {
    if (n == key) return group;
  }
  return -1;
}

int Parser::OpenGroup(const std::u32string& name, bool named) {
  int group = out_.groups + 1;
  if (named) {
    if (int old = GroupNumber(name); old >= 0) {
      tok_.Error(fmt::format("redefinition of group name {} as group {}; was group {}", Repr(name),
                             group, old),
                 name.size() + 1);
    }
    out_.group_names.emplace_back(Utf8(name), group);
  }
  out_.groups = group;
  closed_.push_back(false);
  widths_.emplace_back(0, -1);
  return group;
}

void Parser::CheckLookbehindGroup(int group) {
  if (!lookbehind_groups_) return;
  if (!closed_[group]) tok_.Error("cannot refer to an open group");
  if (group >= *lookbehind_groups_) {
    tok_.Error("cannot refer to group defined in the same lookbehind subpattern");
  }
}

std::pair<int64_t, int64_t> Width(const Node& node,
                                  const std::vector<std::pair<int64_t, int64_t>>& group_widths) {
  auto add = [](int64_t a, int64_t b) { return a < 0 || b < 0 ? -1 : a + b; };
  switch (node.kind) {
    case Node::Kind::kChar:
    case Node::Kind::kAny:
    case Node::Kind::kSet:
      return {1, 1};
    case Node::Kind::kEmpty:
    case Node::Kind::kAssert:
    case Node::Kind::kLook:
      return {0, 0};
    case Node::Kind::kBackref:
      return group_widths[node.index];
    case Node::Kind::kSeq: {
      std::pair<int64_t, int64_t> total{0, 0};
      for (const Node& child : node.children) {
        auto [lo, hi] = Width(child, group_widths);
        total = {total.first + lo, add(total.second, hi)};
      }
      return total;
    }
    case Node::Kind::kAlt:
    case Node::Kind::kCond: {
      std::pair<int64_t, int64_t> range{INT64_MAX, 0};
      for (const Node& child : node.children) {
        auto [lo, hi] = Width(child, group_widths);
        range.first = std::min(range.first, lo);
        range.second = range.second < 0 || hi < 0 ? -1 : std::max(range.second, hi);
      }
      return range;
    }
    case Node::Kind::kGroup:
    case Node::Kind::kAtomic:
      return Width(node.children[0], group_widths);
    case Node::Kind::kRepeat: {
      auto [lo, hi] = Width(node.children[0], group_widths);
      int64_t max = node.max < 0 || hi < 0 ? (hi == 0 ? 0 : -1) : hi * node.max;
      return {lo * node.min, max};
    }
  }
  return {0, -1};
}

}  // namespace pz::eval::re

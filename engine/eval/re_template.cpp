// sub()'s replacement templates (\1, \g<name>, \n, octal escapes) parsed as CPython 3.11's
// sre_parse.parse_template does, and re.escape(). Shares the pattern tokenizer (re_syntax.h).
#include <fmt/format.h>

#include <algorithm>

#include "eval/re_syntax.h"

namespace pz::eval::re {

std::vector<TemplatePiece> ParseTemplate(std::u32string_view text, const Program& program,
                                         std::string& unknown_group) {
  Tokenizer tok(text);
  std::vector<TemplatePiece> pieces(1);
  auto add_group = [&](int64_t group, size_t offset) {
    if (group > program.groups())
      tok.Error(fmt::format("invalid group reference {}", group), offset);
    pieces.push_back(TemplatePiece{U"", static_cast<int>(group)});
    pieces.emplace_back();
  };
  while (!tok.AtEnd()) {
    std::u32string_view token = tok.Get();
    if (token[0] != '\\') {
      pieces.back().literal += token;
      continue;
    }
    char32_t c = token[1];
    std::u32string escape(token);
    if (c == 'g') {
      if (!tok.Match('<')) tok.Error("missing <");
      std::u32string name = tok.GetUntil('>', "group name");
      int64_t group;
      if (IsIdentifier(name)) {
        group = program.GroupIndex(Utf8(name));
        if (group < 0) {
          unknown_group = Utf8(name);
          return {};
        }
      } else {
        if (!std::all_of(name.begin(), name.end(), IsDigit) || name.size() > 9) {
          tok.Error(fmt::format("bad character in group name {}", Repr(name)), name.size() + 1);
        }
        group = ParseNumber(name, 10);
      }
      add_group(group, name.size() + 1);
    } else if (c == '0') {
      escape += tok.GetWhile(2, IsOctal);
      pieces.back().literal += static_cast<char32_t>(ParseNumber(escape.substr(1), 8) & 0xff);
    } else if (IsDigit(c)) {
      if (tok.NextIs(IsDigit)) {
        escape += tok.Get();
        if (IsOctal(escape[1]) && IsOctal(escape[2]) && tok.NextIs(IsOctal)) {
          escape += tok.Get();
          int64_t value = ParseNumber(escape.substr(1), 8);
          if (value > 0377) {
            tok.Error(fmt::format("octal escape value {} outside of range 0-0o377", Utf8(escape)),
                      escape.size());
          }
          pieces.back().literal += static_cast<char32_t>(value);
          continue;
        }
      }
      add_group(ParseNumber(escape.substr(1), 10), escape.size() - 1);
    } else {
      static constexpr std::u32string_view kEscapes = U"a\ab\bf\fn\nr\rt\tv\v\\\\";
      size_t at = kEscapes.find(c);
      if (at != std::u32string_view::npos && at % 2 == 0) {
        pieces.back().literal += kEscapes[at + 1];
      } else if (IsAsciiLetter(c)) {
        tok.Error(fmt::format("bad escape {}", Utf8(escape)), 2);
      } else {
        pieces.back().literal += token;
      }
    }
  }
  return pieces;
}

std::u32string Escape(std::u32string_view text) {
  static constexpr std::u32string_view kSpecial = U"()[]{}?*+-|^$\\.&~# \t\n\r\v\f";
  std::u32string out;
  for (char32_t c : text) {
    if (kSpecial.find(c) != std::u32string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace pz::eval::re

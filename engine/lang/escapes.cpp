// Backslash escapes of string and bytes literals (escapes.h): one decoder for both, which differ
// only in how numeric escapes become output (UTF-8 code points or raw bytes).
#include "lang/escapes.h"

#include <fmt/format.h>

namespace pz::lang {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsOctDigit(char c) { return c >= '0' && c <= '7'; }

int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  return (c | 0x20) - 'a' + 10;
}

// Single-character escapes, as pairs: the character after the backslash, then its value.
constexpr std::string_view kSimpleEscapes = "\\\\''\"\"a\ab\bf\fn\nr\rt\tv\v";

}  // namespace

void AppendUtf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string NormalizeNewlines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r') {
      out += text[i];
    } else {
      out += '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    }
  }
  return out;
}

std::optional<EscapeError> DecodeLiteral(std::string_view body, EscapeMode mode, std::string& out) {
  const bool bytes = mode == EscapeMode::kBytes;
  out.clear();
  out.reserve(body.size());
  size_t i = 0;
  while (i < body.size()) {
    char c = body[i];
    if (c == '\r') {
      out += '\n';
      i += (i + 1 < body.size() && body[i + 1] == '\n') ? 2 : 1;
      continue;
    }
    if (c != '\\' || i + 1 >= body.size()) {
      out += c;
      ++i;
      continue;
    }
    size_t start = i;
    char e = body[i + 1];
    i += 2;
    size_t simple = kSimpleEscapes.find(e);
    if (e == '\n') continue;  // backslash-newline joins lines
    if (e == '\r') {
      if (i < body.size() && body[i] == '\n') ++i;
    } else if (simple != std::string_view::npos && simple % 2 == 0) {
      out += kSimpleEscapes[simple + 1];
    } else if (IsOctDigit(e)) {
      uint32_t value = static_cast<uint32_t>(e - '0');
      for (int k = 0; k < 2 && i < body.size() && IsOctDigit(body[i]); ++k, ++i) {
        value = value * 8 + static_cast<uint32_t>(body[i] - '0');
      }
      // Bytes keep the low 8 bits of `\400`-`\777`, as CPython 3.11 does (with a warning).
      if (bytes) {
        out += static_cast<char>(value & 0xFF);
      } else {
        AppendUtf8(value, out);
      }
    } else if (e == 'x' || (!bytes && (e == 'u' || e == 'U'))) {
      int width = e == 'x' ? 2 : e == 'u' ? 4 : 8;
      uint32_t value = 0;
      int digits = 0;
      for (; digits < width && i < body.size() && IsHexDigit(body[i]); ++digits, ++i) {
        value = value * 16 + static_cast<uint32_t>(HexValue(body[i]));
      }
      if (digits < width) {
        return EscapeError{fmt::format("truncated `\\{}{}` escape", e, std::string(width, 'X')),
                           start, i};
      }
      if (value > 0x10FFFF) {
        return EscapeError{fmt::format("invalid escape `{}`; the largest code point is U+10FFFF",
                                       body.substr(start, i - start)),
                           start, i};
      }
      if (bytes) {
        out += static_cast<char>(value);
      } else {
        AppendUtf8(value, out);
      }
    } else if (e == 'N' && !bytes) {
      return EscapeError{
          "`\\N{...}` escapes are not supported; write the character itself or use `\\u`", start,
          i};
    } else {
      out += '\\';  // unknown escapes stay verbatim, as in Python (\u, \U, \N too in bytes)
      out += e;
    }
  }
  return std::nullopt;
}

bool DecodeEscapes(std::string_view body, std::string& out, std::string& error) {
  if (auto failure = DecodeLiteral(body, EscapeMode::kStr, out)) {
    error = std::move(failure->message);
    return false;
  }
  return true;
}

}  // namespace pz::lang

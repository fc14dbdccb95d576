// Backslash escapes of string and bytes literals: the body between the quotes → its value. The
// lexer decodes plain literals with these; the f-string parser decodes the literal pieces of an
// f-string. Knows nothing of tokens or diagnostics: a malformed escape comes back as a value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pz::lang {

// A malformed escape: the message, and the byte range [begin, end) of the escape in the body.
struct EscapeError {
  std::string message;
  size_t begin = 0;
  size_t end = 0;
};

// Which literal a body belongs to: they differ in what `\x`, octal, `\u`, `\U` and `\N` mean.
enum class EscapeMode {
  kStr,    // \xhh, \ooo, \uXXXX, \UXXXXXXXX are code points, written as UTF-8
  kBytes,  // \xhh and \ooo are single bytes (\ooo modulo 256); \u, \U and \N are kept verbatim
};

// Decodes a (non-raw) literal body: \n \t \\ \' \" \r \0 \a \b \f \v \xhh \ooo, and for str
// \uXXXX \UXXXXXXXX (\N{...} is not supported there); a backslash-newline is removed and CR/CRLF
// become LF. Unknown escapes are kept verbatim, as Python does. `out` is the value so far when
// it fails.
std::optional<EscapeError> DecodeLiteral(std::string_view body, EscapeMode mode, std::string& out);

// DecodeLiteral for a str body, with the error as a message only. Returns false on a malformed
// escape.
bool DecodeEscapes(std::string_view body, std::string& out, std::string& error);

// Replaces CRLF and lone CR by LF, as Python's universal newlines do when reading source (the
// value of a raw literal).
std::string NormalizeNewlines(std::string_view text);

// Appends code point `cp` (at most U+10FFFF) to `out` as UTF-8.
void AppendUtf8(uint32_t cp, std::string& out);

}  // namespace pz::lang

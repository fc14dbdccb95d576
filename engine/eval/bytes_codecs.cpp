// Text encodings between str (UTF-8 here) and bytes: utf-8, ascii and latin-1 under CPython's
// common aliases, with the "strict", "ignore" and "replace" error handlers and CPython 3.11's
// UnicodeEncodeError / UnicodeDecodeError messages (the UTF-8 decoder reports the same byte ranges
// as CPython's: maximal invalid subparts). Used by str.encode, bytes.decode, bytes(s, enc) and
// str(b, enc).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "eval/builtin_support.h"
#include "eval/bytes.h"
#include "eval/format.h"

namespace pz::eval {
namespace {

enum class Codec { kUtf8, kAscii, kLatin1 };

// The codec an encoding name selects (case, `_` and spaces ignored, as CPython normalises), or
// LookupError "unknown encoding: NAME".
Codec FindCodec(Interpreter& interp, std::string_view encoding) {
  std::string name;
  for (char c : encoding) {
    name +=
        c == '_' || c == ' ' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (std::string_view alias : {"utf-8", "utf8", "u8", "utf", "cp65001"}) {
    if (name == alias) return Codec::kUtf8;
  }
  for (std::string_view alias : {"ascii", "us-ascii", "646", "us"}) {
    if (name == alias) return Codec::kAscii;
  }
  for (std::string_view alias : {"latin-1", "latin1", "latin", "l1", "iso-8859-1", "iso8859-1",
                                 "8859", "cp819", "iso-ir-100"}) {
    if (name == alias) return Codec::kLatin1;
  }
  interp.Raise(interp.types().lookup_error, fmt::format("unknown encoding: {}", encoding));
}

std::string_view CodecName(Codec codec) {
  switch (codec) {
    case Codec::kUtf8:
      return "utf-8";
    case Codec::kAscii:
      return "ascii";
    case Codec::kLatin1:
      return "latin-1";
  }
  return "";
}

enum class ErrorHandler { kStrict, kIgnore, kReplace };

// The error handler named `errors`, looked up (as CPython does) only once an error occurs.
ErrorHandler FindHandler(Interpreter& interp, std::string_view errors) {
  if (errors == "strict") return ErrorHandler::kStrict;
  if (errors == "ignore") return ErrorHandler::kIgnore;
  if (errors == "replace") return ErrorHandler::kReplace;
  interp.Raise(interp.types().lookup_error, fmt::format("unknown error handler name '{}'", errors));
}

// How CPython's UnicodeEncodeError shows one character: '\xe9', '\u20ac', '\U0001f600'.
std::string EscapedChar(char32_t c) {
  if (c <= 0xFF) return fmt::format("\\x{:02x}", static_cast<uint32_t>(c));
  if (c <= 0xFFFF) return fmt::format("\\u{:04x}", static_cast<uint32_t>(c));
  return fmt::format("\\U{:08x}", static_cast<uint32_t>(c));
}

// Whether `codec` can encode `c` (a str's invalid UTF-8 bytes decode to surrogates, which no
// codec here encodes).
bool Encodable(Codec codec, char32_t c) {
  switch (codec) {
    case Codec::kUtf8:
      return c < 0xD800 || c > 0xDFFF;
    case Codec::kAscii:
      return c < 0x80;
    case Codec::kLatin1:
      return c < 0x100;
  }
  return false;
}

// The length of the valid UTF-8 sequence at `i`, or 0 with `error_length` (bytes in the maximal
// invalid subpart, at least 1) and `reason` set.
size_t Utf8SequenceAt(std::string_view bytes, size_t i, size_t& error_length, const char*& reason) {
  auto u = [&](size_t k) { return static_cast<unsigned char>(bytes[k]); };
  unsigned char lead = u(i);
  if (lead < 0x80) return 1;
  size_t length = lead >= 0xC2 && lead <= 0xDF   ? 2
                  : lead >= 0xE0 && lead <= 0xEF ? 3
                  : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                 : 0;
  if (length == 0) {
    error_length = 1;
    reason = "invalid start byte";
    return 0;
  }
  for (size_t k = 1; k < length; ++k) {
    if (i + k >= bytes.size()) {
      error_length = bytes.size() - i;
      reason = "unexpected end of data";
      return 0;
    }
    // The second byte's range excludes overlong forms, surrogates and code points past U+10FFFF.
    unsigned char low = 0x80, high = 0xBF;
    if (k == 1) {
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    }
    if (u(i + k) < low || u(i + k) > high) {
      error_length = k;
      reason = "invalid continuation byte";
      return 0;
    }
  }
  return length;
}

}  // namespace

std::string EncodeText(Interpreter& interp, std::string_view text, std::string_view encoding,
                       std::string_view errors) {
  Codec codec = FindCodec(interp, encoding);
  std::u32string chars = DecodeUtf8(text);
  if (codec == Codec::kUtf8 && std::all_of(chars.begin(), chars.end(),
                                           [](char32_t c) { return Encodable(Codec::kUtf8, c); })) {
    return std::string(text);
  }
  std::string out;
  for (size_t i = 0; i < chars.size();) {
    if (Encodable(codec, chars[i])) {
      if (codec == Codec::kUtf8) {
        AppendUtf8(out, chars[i]);
      } else {
        out += static_cast<char>(chars[i]);
      }
      ++i;
      continue;
    }
    // CPython reports the whole run of characters the codec cannot encode.
    size_t end = i + 1;
    while (end < chars.size() && !Encodable(codec, chars[end])) ++end;
    switch (FindHandler(interp, errors)) {
      case ErrorHandler::kStrict: {
        std::string where =
            end == i + 1 ? fmt::format("character '{}' in position {}", EscapedChar(chars[i]), i)
                         : fmt::format("characters in position {}-{}", i, end - 1);
        std::string reason = codec == Codec::kUtf8    ? "surrogates not allowed"
                             : codec == Codec::kAscii ? "ordinal not in range(128)"
                                                      : "ordinal not in range(256)";
        interp.Raise(
            interp.types().unicode_encode_error,
            fmt::format("'{}' codec can't encode {}: {}", CodecName(codec), where, reason));
      }
      case ErrorHandler::kIgnore:
        break;
      case ErrorHandler::kReplace:
        out.append(end - i, '?');
        break;
    }
    i = end;
  }
  return out;
}

std::string DecodeBytes(Interpreter& interp, std::string_view bytes, std::string_view encoding,
                        std::string_view errors) {
  Codec codec = FindCodec(interp, encoding);
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    auto byte = static_cast<unsigned char>(bytes[i]);
    size_t error_length = 0;
    const char* reason = "ordinal not in range(128)";
    if (codec == Codec::kLatin1) {
      AppendUtf8(out, byte);
      ++i;
      continue;
    }
    if (codec == Codec::kAscii) {
      if (byte < 0x80) {
        out += static_cast<char>(byte);
        ++i;
        continue;
      }
      error_length = 1;
    } else if (size_t length = Utf8SequenceAt(bytes, i, error_length, reason)) {
      out.append(bytes.substr(i, length));
      i += length;
      continue;
    }
    switch (FindHandler(interp, errors)) {
      case ErrorHandler::kStrict: {
        std::string where = error_length == 1
                                ? fmt::format("byte 0x{:02x} in position {}", byte, i)
                                : fmt::format("bytes in position {}-{}", i, i + error_length - 1);
        interp.Raise(
            interp.types().unicode_decode_error,
            fmt::format("'{}' codec can't decode {}: {}", CodecName(codec), where, reason));
      }
      case ErrorHandler::kIgnore:
        break;
      case ErrorHandler::kReplace:
        AppendUtf8(out, U'\uFFFD');
        break;
    }
    i += error_length;
  }
  return out;
}

Value StrEncodeMethod(Interpreter& interp, const Value& self, CallArgs& args) {
  auto bound = BindArgs(interp, "encode", args, {"encoding=", "errors="});
  std::string encoding = "utf-8";
  std::string errors = "strict";
  if (bound[0]) {
    encoding = ToStr(interp, *bound[0], "encode() argument 'encoding' must be str, not %s");
  }
  if (bound[1]) errors = ToStr(interp, *bound[1], "encode() argument 'errors' must be str, not %s");
  return MakeBytes(EncodeText(interp, self.as<StrObject>()->value, encoding, errors));
}

}  // namespace pz::eval

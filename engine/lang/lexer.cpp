// Lexer: the first stage of the pipeline, Python source bytes → tokens for the parser. Indentation
// becomes INDENT/DEDENT from a stack of widths, brackets join physical lines, and every malformed
// piece of input becomes a kError token or a diagnostic (phase kLex) so lexing always runs to the
// end of the input, in one linear pass, whatever the bytes.
#include "lang/lexer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include "lang/escapes.h"

namespace pz::lang {
namespace {

// CPython's tab stop when measuring indentation.
constexpr int64_t kTabSize = 8;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsOctDigit(char c) { return c >= '0' && c <= '7'; }
bool IsBinDigit(char c) { return c == '0' || c == '1'; }
bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// Bytes >= 0x80 count as identifier characters, so UTF-8 names (and any stray byte) lex as names.
bool IsIdentStart(char c) {
  return IsAsciiLetter(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }
bool IsNewline(char c) { return c == '\n' || c == '\r'; }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Punctuation and operators of PZ_TOKENS (the kinds from kLParen on), sorted for binary search.
using Entry = std::pair<std::string_view, TokenKind>;
constexpr Entry kAllTokens[] = {
#define PZ_TOKEN_ENTRY(name, spelling) {spelling, TokenKind::name},
    PZ_TOKENS(PZ_TOKEN_ENTRY)
#undef PZ_TOKEN_ENTRY
};
constexpr size_t kFirstOperator = static_cast<size_t>(TokenKind::kLParen);
constexpr auto kOperators = [] {
  std::array<Entry, std::size(kAllTokens) - kFirstOperator> operators{};
  for (size_t i = 0; i < operators.size(); ++i) operators[i] = kAllTokens[kFirstOperator + i];
  std::sort(operators.begin(), operators.end());
  return operators;
}();
// The longest operator of PZ_TOKENS that `rest` starts with, or nullopt. Operators sharing a
// first character are adjacent in kOperators, so this is one search and a short scan.
std::optional<Entry> MatchOperator(std::string_view rest) {
  if (rest.empty()) return std::nullopt;
  auto it = std::lower_bound(
      kOperators.begin(), kOperators.end(), rest.substr(0, 1),
      [](const Entry& entry, std::string_view first) { return entry.first < first; });
  std::optional<Entry> best;
  for (; it != kOperators.end() && it->first[0] == rest[0]; ++it) {
    if (rest.substr(0, it->first.size()) == it->first) best = *it;
  }
  return best;
}

char ClosingFor(char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

// Converts a string prefix (r, u, f, b, br, rb, fr, rf in any case) to flags; false if invalid.
bool ParseStringPrefix(std::string_view prefix, StringFlags& flags) {
  flags = {};
  if (prefix.size() > 2) return false;
  bool seen_u = false;
  for (char c : prefix) {
    switch (Lower(c)) {
      case 'r':
        if (flags.raw) return false;
        flags.raw = true;
        break;
      case 'f':
        if (flags.fstring || flags.bytes) return false;
        flags.fstring = true;
        break;
      case 'b':
        if (flags.bytes || flags.fstring) return false;
        flags.bytes = true;
        break;
      case 'u':
        if (seen_u || prefix.size() != 1) return false;
        seen_u = true;
        break;
      default:
        return false;
    }
  }
  return true;
}

// The value of a decimal float literal (underscores removed) that std::from_chars found out of
// range: infinity when it overflows, zero when it underflows, judged by the decimal exponent of
// its first significant digit.
double OutOfRangeFloat(std::string_view literal) {
  int64_t magnitude = 0;  // decimal position of the first significant digit
  bool significant = false;
  bool after_point = false;
  size_t i = 0;
  for (; i < literal.size() && Lower(literal[i]) != 'e'; ++i) {
    char c = literal[i];
    if (c == '.') {
      after_point = true;
    } else if (!significant && c == '0') {
      if (after_point) --magnitude;
    } else {
      significant = true;
      if (!after_point) ++magnitude;
    }
  }
  int64_t exponent = 0;
  int64_t sign = 1;
  if (i < literal.size()) ++i;  // the `e`
  if (i < literal.size() && (literal[i] == '+' || literal[i] == '-')) {
    if (literal[i] == '-') sign = -1;
    ++i;
  }
  for (; i < literal.size(); ++i) {
    exponent = std::min<int64_t>(exponent * 10 + (literal[i] - '0'), int64_t{1} << 40);
  }
  return magnitude + sign * exponent > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

std::string WithoutUnderscores(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c != '_') out += c;
  }
  return out;
}

class Lexer {
 public:
  // Scans [begin, end) of `file`; `expression` selects TokenizeExpression's mode.
  Lexer(const SourceFile& file, FileId id, uint32_t begin, uint32_t end, bool expression,
        DiagnosticSink& sink)
      : text_(file.text()), id_(id), pos_(begin), end_(end), expression_(expression), sink_(sink) {}

  std::vector<Token> Run();

 private:
  // One level of the indentation stack. `alt_width` measures tabs as 1 column (CPython's check
  // for inconsistent tabs and spaces); `emitted` is false for a level pushed to recover from a
  // bad dedent, which gets no INDENT and so no DEDENT.
  struct Indent {
    int64_t width = 0;
    int64_t alt_width = 0;
    bool emitted = true;
  };
  // An open bracket: its character and offset, for matching and for "never closed".
  struct Bracket {
    char open = '(';
    uint32_t offset = 0;
  };

  bool AtEnd() const { return pos_ >= end_; }
  // The byte `ahead` bytes on, or '\0' past the end (callers check AtEnd() where NUL matters).
  char Peek(uint32_t ahead = 0) const { return pos_ + ahead < end_ ? text_[pos_ + ahead] : '\0'; }
  void SkipNewline();
  void SkipComment();

  void StartLine();
  void ApplyIndentation(int64_t width, int64_t alt_width, uint32_t line_begin);
  void Continuation();
  void ScanToken();
  void ScanName();
  void ScanNumber();
  void ScanString(uint32_t start, uint32_t quote_at, StringFlags flags);
  void ScanOperator();
  void ScanInvalid();
  uint32_t ConsumeDigits(bool (*is_digit)(char));
  bool CheckNumberEnd(uint32_t start, std::string_view kind, bool (*is_digit)(char));
  void Finish();

  Token& Emit(TokenKind kind, uint32_t begin, uint32_t end, std::string text = {});
  void EmitLayout(TokenKind kind, uint32_t at);
  void EmitError(uint32_t begin, uint32_t end, std::string message);
  void Report(uint32_t begin, uint32_t end, std::string message, std::vector<Note> notes = {});

  std::string_view text_;
  FileId id_;
  uint32_t pos_;
  uint32_t end_;
  bool expression_;
  DiagnosticSink& sink_;
  std::vector<Token> tokens_;
  std::vector<Indent> indents_{Indent{}};
  std::vector<Bracket> brackets_;
  bool at_line_start_ = false;
  // Whether the current logical line has produced a token, so it needs a NEWLINE.
  bool line_has_tokens_ = false;
  // End offset of the last non-layout token: where NEWLINE logically sits.
  uint32_t last_token_end_ = 0;
};

std::vector<Token> Lexer::Run() {
  if (!expression_ && pos_ == 0 && text_.substr(0, std::min<size_t>(end_, 3)) == "\xEF\xBB\xBF") {
    pos_ = 3;  // UTF-8 byte order mark
  }
  last_token_end_ = pos_;
  at_line_start_ = !expression_;
  while (true) {
    if (at_line_start_) {
      at_line_start_ = false;
      StartLine();
    }
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\f' ||
                        (expression_ && IsNewline(Peek())))) {
      ++pos_;
    }
    if (AtEnd()) break;
    char c = Peek();
    if (c == '#') {
      if (expression_) {
        EmitError(pos_, pos_ + 1, "f-string expression part cannot include `#`");
      }
      SkipComment();
    } else if (IsNewline(c)) {
      SkipNewline();
      if (brackets_.empty()) {
        if (line_has_tokens_) EmitLayout(TokenKind::kNewline, last_token_end_);
        line_has_tokens_ = false;
        at_line_start_ = true;
      }
    } else if (c == '\\') {
      Continuation();
    } else {
      ScanToken();
    }
  }
  Finish();
  return std::move(tokens_);
}

void Lexer::SkipNewline() {
  if (Peek() == '\r') ++pos_;
  if (!AtEnd() && Peek() == '\n') ++pos_;
}

void Lexer::SkipComment() {
  while (!AtEnd() && !IsNewline(Peek())) ++pos_;
}

// At the start of a physical line outside brackets: skips blank and comment-only lines, then
// measures the indentation of the first line with tokens.
void Lexer::StartLine() {
  while (true) {
    uint32_t line_begin = pos_;
    int64_t width = 0;
    int64_t alt_width = 0;
    for (; !AtEnd(); ++pos_) {
      char c = Peek();
      if (c == ' ') {
        ++width;
        ++alt_width;
      } else if (c == '\t') {
        width = (width / kTabSize + 1) * kTabSize;
        ++alt_width;
      } else if (c == '\f') {
        width = alt_width = 0;  // CPython resets the count at a form feed
      } else {
        break;
      }
    }
    if (!AtEnd() && Peek() == '#') SkipComment();
    if (AtEnd()) return;  // Finish closes the open blocks
    if (IsNewline(Peek())) {
      SkipNewline();
      continue;
    }
    ApplyIndentation(width, alt_width, line_begin);
    return;
  }
}

void Lexer::ApplyIndentation(int64_t width, int64_t alt_width, uint32_t line_begin) {
  constexpr const char* kTabError = "inconsistent use of tabs and spaces in indentation";
  if (width > indents_.back().width) {
    if (alt_width <= indents_.back().alt_width) Report(line_begin, pos_, kTabError);
    indents_.push_back(Indent{width, alt_width, true});
    EmitLayout(TokenKind::kIndent, pos_);
    return;
  }
  while (indents_.size() > 1 && width < indents_.back().width) {
    if (indents_.back().emitted) EmitLayout(TokenKind::kDedent, pos_);
    indents_.pop_back();
  }
  if (width != indents_.back().width) {
    Report(line_begin, pos_, "unindent does not match any outer indentation level");
    indents_.push_back(Indent{width, alt_width, false});
  } else if (alt_width != indents_.back().alt_width) {
    Report(line_begin, pos_, kTabError);
  }
}

// At a backslash outside a string: a line continuation when a newline follows, else an error.
void Lexer::Continuation() {
  uint32_t at = pos_++;
  if (!AtEnd() && IsNewline(Peek())) {
    SkipNewline();
    if (AtEnd()) EmitError(at, at + 1, "unexpected end of file after line continuation `\\`");
    return;
  }
  if (AtEnd()) {
    EmitError(at, at + 1, "unexpected end of file after line continuation `\\`");
    return;
  }
  uint32_t p = pos_;
  while (p < end_ && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\f')) ++p;
  bool only_space = p > pos_ && (p >= end_ || IsNewline(text_[p]));
  EmitError(at, at + 1,
            only_space ? "unexpected character after line continuation `\\`; remove the "
                         "whitespace after it"
                       : "unexpected character after line continuation `\\`");
}

void Lexer::ScanToken() {
  uint32_t start = pos_;
  char c = Peek();
  if (IsAsciiLetter(c)) {
    for (uint32_t len = 1; len <= 2 && IsAsciiLetter(Peek(len - 1)); ++len) {
      char quote = Peek(len);
      StringFlags flags;
      if ((quote == '"' || quote == '\'') && pos_ + len < end_ &&
          ParseStringPrefix(text_.substr(pos_, len), flags)) {
        ScanString(start, pos_ + len, flags);
        return;
      }
    }
  }
  if (IsIdentStart(c)) {
    ScanName();
  } else if (c == '"' || c == '\'') {
    ScanString(start, start, StringFlags{});
  } else if (IsDigit(c) || (c == '.' && IsDigit(Peek(1)))) {
    ScanNumber();
  } else {
    ScanOperator();
  }
}

void Lexer::ScanName() {
  uint32_t start = pos_;
  while (!AtEnd() && IsIdentChar(Peek())) ++pos_;
  std::string_view word = text_.substr(start, pos_ - start);
  Emit(KeywordOrName(word), start, pos_, std::string(word));
}

// Consumes digits accepted by `is_digit`, with single underscores between them (`1_000`).
uint32_t Lexer::ConsumeDigits(bool (*is_digit)(char)) {
  uint32_t count = 0;
  while (!AtEnd()) {
    if (is_digit(Peek())) {
      ++pos_;
      ++count;
    } else if (Peek() == '_' && count > 0 && pos_ + 1 < end_ && is_digit(Peek(1))) {
      ++pos_;
    } else {
      break;
    }
  }
  return count;
}

// After the digits of a number: letters, digits or underscores glued to it make the literal
// invalid (reported, returns false), except a keyword (`1if x else 2` is valid Python).
bool Lexer::CheckNumberEnd(uint32_t start, std::string_view kind, bool (*is_digit)(char)) {
  if (AtEnd() || !IsIdentChar(Peek())) return true;
  uint32_t p = pos_;
  while (p < end_ && IsIdentChar(text_[p])) ++p;
  std::string_view word = text_.substr(pos_, p - pos_);
  if (KeywordOrName(word) != TokenKind::kName) return true;
  pos_ = p;
  if (Lower(word[0]) == 'j' && word.size() == 1 && kind == "decimal") {
    EmitError(start, p, "complex numbers are not supported");
  } else if (word[0] == '_') {
    EmitError(start, p,
              fmt::format("invalid {} literal; `_` may only appear between digits", kind));
  } else if (IsDigit(word[0]) && !is_digit(word[0])) {
    EmitError(start, p, fmt::format("invalid digit `{}` in {} literal", word[0], kind));
  } else {
    EmitError(start, p, fmt::format("invalid {} literal", kind));
  }
  return false;
}

void Lexer::ScanNumber() {
  uint32_t start = pos_;
  char radix = Lower(Peek(1));
  if (Peek() == '0' && (radix == 'x' || radix == 'o' || radix == 'b')) {
    auto* is_digit = radix == 'x' ? IsHexDigit : radix == 'o' ? IsOctDigit : IsBinDigit;
    std::string_view kind = radix == 'x' ? "hexadecimal" : radix == 'o' ? "octal" : "binary";
    int base = radix == 'x' ? 16 : radix == 'o' ? 8 : 2;
    pos_ += 2;
    if (Peek() == '_' && pos_ + 1 < end_ && is_digit(Peek(1))) ++pos_;  // 0x_ff is valid
    uint32_t digits_begin = pos_;
    if (ConsumeDigits(is_digit) == 0) {
      while (!AtEnd() && IsIdentChar(Peek())) ++pos_;
      bool bad_digit = pos_ > digits_begin && IsDigit(text_[digits_begin]);
      EmitError(start, pos_,
                bad_digit
                    ? fmt::format("invalid digit `{}` in {} literal", text_[digits_begin], kind)
                    : fmt::format("invalid {} literal", kind));
      return;
    }
    if (!CheckNumberEnd(start, kind, is_digit)) return;
    std::string digits = WithoutUnderscores(text_.substr(digits_begin, pos_ - digits_begin));
    int64_t value = 0;
    auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (result.ec != std::errc()) {
      EmitError(start, pos_, "integer literal too large; integers are 64-bit here");
      return;
    }
    Emit(TokenKind::kInt, start, pos_, std::string(text_.substr(start, pos_ - start))).int_value =
        value;
    return;
  }

  bool is_float = false;
  ConsumeDigits(IsDigit);
  if (Peek() == '.' && !AtEnd()) {
    ++pos_;
    is_float = true;
    ConsumeDigits(IsDigit);
  }
  if (Lower(Peek()) == 'e' && !AtEnd()) {
    uint32_t p = pos_ + 1;
    if (p < end_ && (text_[p] == '+' || text_[p] == '-')) ++p;
    if (p < end_ && IsDigit(text_[p])) {
      pos_ = p;
      ConsumeDigits(IsDigit);
      is_float = true;
    }
  }
  if (!CheckNumberEnd(start, "decimal", IsDigit)) return;
  std::string_view literal = text_.substr(start, pos_ - start);
  std::string digits = WithoutUnderscores(literal);
  if (is_float) {
    double value = 0;
    auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value,
                                  std::chars_format::general);
    if (result.ec == std::errc::result_out_of_range) value = OutOfRangeFloat(digits);
    Emit(TokenKind::kFloat, start, pos_, std::string(literal)).float_value = value;
    return;
  }
  if (digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of('0') != std::string::npos) {
    EmitError(start, pos_,
              "leading zeros in decimal integer literals are not permitted; use an `0o` prefix "
              "for octal integers");
    return;
  }
  int64_t value = 0;
  auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (result.ec != std::errc()) {
    EmitError(start, pos_, "integer literal too large; integers are 64-bit here");
    return;
  }
  Emit(TokenKind::kInt, start, pos_, std::string(literal)).int_value = value;
}

// Scans a string literal whose prefix starts at `start` and whose opening quote is at `quote_at`.
void Lexer::ScanString(uint32_t start, uint32_t quote_at, StringFlags flags) {
  char quote = text_[quote_at];
  bool triple = quote_at + 2 < end_ && text_[quote_at + 1] == quote && text_[quote_at + 2] == quote;
  uint32_t body_begin = quote_at + (triple ? 3 : 1);
  uint32_t p = body_begin;
  uint32_t body_end = 0;
  while (true) {
    if (p >= end_ || (!triple && IsNewline(text_[p]))) {
      std::string message =
          triple ? "unterminated triple-quoted string literal" : "unterminated string literal";
      Report(start, body_begin, message);
      Emit(TokenKind::kError, start, p, std::move(message));
      pos_ = p;
      return;
    }
    char c = text_[p];
    if (c == '\\') {
      ++p;
      if (p < end_) p += (text_[p] == '\r' && p + 1 < end_ && text_[p + 1] == '\n') ? 2 : 1;
    } else if (c == quote && !triple) {
      body_end = p++;
      break;
    } else if (c == quote && p + 2 < end_ && text_[p + 1] == quote && text_[p + 2] == quote) {
      body_end = p;
      p += 3;
      break;
    } else {
      ++p;
    }
  }
  pos_ = p;
  std::string_view body = text_.substr(body_begin, body_end - body_begin);
  if (flags.bytes && std::any_of(body.begin(), body.end(),
                                 [](char c) { return static_cast<unsigned char>(c) >= 0x80; })) {
    EmitError(start, p, "bytes can only contain ASCII literal characters");
    return;
  }
  std::string value;
  EscapeMode mode = flags.bytes ? EscapeMode::kBytes : EscapeMode::kStr;
  if (flags.fstring) {
    value = std::string(body);
  } else if (flags.raw) {
    value = NormalizeNewlines(body);
  } else if (auto error = DecodeLiteral(body, mode, value)) {
    Report(body_begin + static_cast<uint32_t>(error->begin),
           body_begin + static_cast<uint32_t>(error->end), error->message);
    Emit(TokenKind::kError, start, p, std::move(error->message));
    return;
  }
  Token& token = Emit(TokenKind::kString, start, p, std::move(value));
  token.string_flags = flags;
  if (flags.fstring) token.body_begin = body_begin;
}

void Lexer::ScanOperator() {
  uint32_t start = pos_;
  if (std::optional<Entry> match = MatchOperator(text_.substr(pos_, end_ - pos_))) {
    char c = Peek();
    pos_ += static_cast<uint32_t>(match->first.size());
    if (c == '(' || c == '[' || c == '{') {
      brackets_.push_back(Bracket{c, start});
    } else if (c == ')' || c == ']' || c == '}') {
      if (brackets_.empty()) {
        EmitError(start, pos_, fmt::format("unmatched `{}`", c));
        return;
      }
      Bracket open = brackets_.back();
      brackets_.pop_back();
      if (ClosingFor(open.open) != c) {
        std::string message = fmt::format("closing `{}` does not match opening `{}`", c, open.open);
        Report(start, pos_, message,
               {Note{fmt::format("`{}` opened here", open.open),
                     SourceSpan{id_, open.offset, open.offset + 1}}});
        Emit(TokenKind::kError, start, pos_, std::move(message));
        return;
      }
    }
    Emit(match->second, start, pos_);
    return;
  }
  if (Peek() == '!') {
    ++pos_;
    EmitError(start, pos_, "unexpected `!`; use `not` for negation and `!=` for inequality");
    return;
  }
  ScanInvalid();
}

// A byte that starts no token (`$`, `?`, a backtick, a control character); a run of the same
// byte becomes one error.
void Lexer::ScanInvalid() {
  uint32_t start = pos_;
  char c = Peek();
  while (!AtEnd() && Peek() == c) ++pos_;
  auto u = static_cast<unsigned char>(c);
  EmitError(start, pos_,
            u >= 0x21 && u < 0x7f
                ? fmt::format("invalid character `{}`", c)
                : fmt::format("invalid non-printable character U+{:04X}", static_cast<int>(u)));
}

void Lexer::Finish() {
  if (!expression_ && line_has_tokens_) EmitLayout(TokenKind::kNewline, last_token_end_);
  if (!brackets_.empty()) {
    const Bracket& open = brackets_.back();
    Report(open.offset, open.offset + 1, fmt::format("`{}` was never closed", open.open));
  }
  while (indents_.size() > 1) {
    if (indents_.back().emitted) EmitLayout(TokenKind::kDedent, end_);
    indents_.pop_back();
  }
  EmitLayout(TokenKind::kEnd, end_);
}

Token& Lexer::Emit(TokenKind kind, uint32_t begin, uint32_t end, std::string text) {
  Token& token = tokens_.emplace_back();
  token.kind = kind;
  token.span = SourceSpan{id_, begin, end};
  token.text = std::move(text);
  line_has_tokens_ = true;
  last_token_end_ = end;
  return token;
}

void Lexer::EmitLayout(TokenKind kind, uint32_t at) {
  Token& token = tokens_.emplace_back();
  token.kind = kind;
  token.span = SourceSpan{id_, at, at};
}

void Lexer::EmitError(uint32_t begin, uint32_t end, std::string message) {
  Report(begin, end, message);
  Emit(TokenKind::kError, begin, end, std::move(message));
}

void Lexer::Report(uint32_t begin, uint32_t end, std::string message, std::vector<Note> notes) {
  sink_.Report(Diagnostic{.severity = Severity::kError,
                          .phase = Phase::kLex,
                          .message = std::move(message),
                          .span = SourceSpan{id_, begin, end},
                          .notes = std::move(notes)});
}

// Offsets are 32-bit; bytes past 4 GiB are not scanned.
uint32_t ClampOffset(size_t offset) {
  return static_cast<uint32_t>(std::min<size_t>(offset, std::numeric_limits<uint32_t>::max()));
}

}  // namespace

std::vector<Token> Tokenize(const SourceFile& file, FileId id, DiagnosticSink& sink) {
  return Lexer(file, id, 0, ClampOffset(file.text().size()), /*expression=*/false, sink).Run();
}

std::vector<Token> TokenizeExpression(const SourceFile& file, FileId id, uint32_t begin,
                                      uint32_t end, DiagnosticSink& sink) {
  end = std::min(end, ClampOffset(file.text().size()));
  begin = std::min(begin, end);
  return Lexer(file, id, begin, end, /*expression=*/true, sink).Run();
}

}  // namespace pz::lang

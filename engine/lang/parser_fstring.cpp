// Parser, part 4 of 4: string literals. Adjacent literals concatenate (bytes only with bytes,
// into a BytesLit); if any is an f-string the result is an FString whose raw body (as the lexer
// left it) is split here into literal parts (escapes decoded unless raw, `{{`/`}}` collapsed)
// and replacement fields `{expr=!r:spec}`, following CPython 3.11. Each field's expression is
// lexed and parsed over its exact byte range of the file, so its spans point into the real
// source.
#include <fmt/format.h>

#include <cctype>
#include <utility>

#include "lang/escapes.h"
#include "lang/lexer.h"
#include "lang/parser_impl.h"
#include "support/check.h"

namespace pz::lang {
namespace {

// Appends literal text, merging with a literal part just before it.
void AppendLiteral(std::vector<FStringPart>& parts, std::string text) {
  if (text.empty()) return;
  if (!parts.empty() && parts.back().value == nullptr) {
    parts.back().literal += text;
  } else {
    parts.push_back(FStringPart{.literal = std::move(text)});
  }
}

}  // namespace

// Splits the raw body of one f-string token. Offsets are into the body; the body starts at byte
// `base_` of the file.
class FStringParser {
 public:
  FStringParser(Parser& parser, const Token& token)
      : parser_(parser), body_(token.text), base_(token.body_begin), raw_(token.string_flags.raw) {}

  void Parse(std::vector<FStringPart>& parts) { ParsePieces(parts, /*nesting=*/0); }

 private:
  // Literal text and fields up to the end of the body or, inside a format spec (nesting > 0), up
  // to the `}` that closes the spec's field (left unconsumed).
  void ParsePieces(std::vector<FStringPart>& parts, int nesting);
  void ParseField(std::vector<FStringPart>& parts, int nesting);
  // Scans the field's expression from pos_ to the `=`, `!`, `:` or `}` that ends it.
  void SkipExpression(size_t open);
  void FlushLiteral(std::string& raw, size_t begin, std::vector<FStringPart>& parts);

  char At(size_t offset) const { return offset < body_.size() ? body_[offset] : '\0'; }
  SourceSpan Span(size_t begin, size_t end) const {
    return SourceSpan{parser_.id_, base_ + static_cast<uint32_t>(begin),
                      base_ + static_cast<uint32_t>(end)};
  }
  [[noreturn]] void Fail(size_t begin, size_t end, std::string message) {
    parser_.Fail(Span(begin, end), std::move(message));
  }

  Parser& parser_;
  std::string_view body_;
  uint32_t base_;
  bool raw_;
  size_t pos_ = 0;
};

void FStringParser::ParsePieces(std::vector<FStringPart>& parts, int nesting) {
  std::string raw;  // undecoded literal text, doubled braces already collapsed
  size_t literal_begin = pos_;
  while (pos_ < body_.size()) {
    char c = body_[pos_];
    if (c == '{' && nesting == 0 && At(pos_ + 1) == '{') {
      raw += '{';
      pos_ += 2;
    } else if (c == '{') {
      FlushLiteral(raw, literal_begin, parts);
      ParseField(parts, nesting);
      literal_begin = pos_;
    } else if (c == '}' && nesting == 0) {
      if (At(pos_ + 1) != '}') Fail(pos_, pos_ + 1, "f-string: single `}` is not allowed");
      raw += '}';
      pos_ += 2;
    } else if (c == '}') {
      break;  // closes the format spec
    } else {
      raw += c;
      ++pos_;
    }
  }
  FlushLiteral(raw, literal_begin, parts);
}

void FStringParser::FlushLiteral(std::string& raw, size_t begin, std::vector<FStringPart>& parts) {
  if (raw_) {
    std::string normalized;  // CRLF and CR become LF, as in every other string literal
    for (size_t i = 0; i < raw.size(); ++i) {
      normalized += raw[i] == '\r' ? '\n' : raw[i];
      if (raw[i] == '\r' && i + 1 < raw.size() && raw[i + 1] == '\n') ++i;
    }
    AppendLiteral(parts, std::move(normalized));
  } else {
    std::string decoded;
    std::string error;
    if (!DecodeEscapes(raw, decoded, error)) Fail(begin, pos_, fmt::format("f-string: {}", error));
    AppendLiteral(parts, std::move(decoded));
  }
  raw.clear();
}

void FStringParser::ParseField(std::vector<FStringPart>& parts, int nesting) {
  size_t open = pos_++;
  if (nesting >= 2) Fail(open, open + 1, "f-string: expressions nested too deeply");
  Parser::NestingGuard guard(parser_);
  size_t expr_begin = pos_;
  SkipExpression(open);
  size_t expr_end = pos_;
  bool blank = true;
  for (size_t i = expr_begin; i < expr_end; ++i) {
    blank = blank && std::isspace(static_cast<unsigned char>(body_[i]));
  }
  if (blank) Fail(open, expr_end + 1, "f-string: empty expression not allowed");

  FStringPart part;
  part.value = parser_.ParseFieldExpression(base_ + static_cast<uint32_t>(expr_begin),
                                            base_ + static_cast<uint32_t>(expr_end));
  if (At(pos_) == '=') {
    ++pos_;
    while (std::isspace(static_cast<unsigned char>(At(pos_)))) ++pos_;
    part.debug_text = std::string(body_.substr(expr_begin, pos_ - expr_begin));
  }
  if (At(pos_) == '!') {
    ++pos_;
    char conversion = At(pos_);
    if (conversion != 'r' && conversion != 's' && conversion != 'a') {
      Fail(pos_, pos_ + 1, "f-string: invalid conversion character; expected `s`, `r` or `a`");
    }
    part.conversion = conversion;
    ++pos_;
  }
  bool has_spec = At(pos_) == ':';
  if (has_spec) {
    size_t spec_begin = ++pos_;
    std::vector<FStringPart> spec_parts;
    ParsePieces(spec_parts, nesting + 1);
    if (!spec_parts.empty()) {
      part.format_spec = parser_.MakeExpr(FString{std::move(spec_parts)}, Span(spec_begin, pos_));
    }
  }
  if (At(pos_) != '}') Fail(open, open + 1, "f-string: expecting `}`");
  ++pos_;
  // `{x=}` shows the repr unless a conversion or format spec says otherwise (as CPython does).
  if (!part.debug_text.empty() && part.conversion == 0 && !has_spec) part.conversion = 'r';
  parts.push_back(std::move(part));
}

void FStringParser::SkipExpression(size_t open) {
  int depth = 0;
  char quote = 0;
  bool triple = false;
  while (pos_ < body_.size()) {
    char c = body_[pos_];
    if (c == '\\') Fail(pos_, pos_ + 1, "f-string expression part cannot include a backslash");
    if (quote != 0) {
      if (c == quote && !triple) {
        quote = 0;
      } else if (c == quote && At(pos_ + 1) == quote && At(pos_ + 2) == quote) {
        quote = 0;
        pos_ += 2;
      }
      ++pos_;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      triple = At(pos_ + 1) == c && At(pos_ + 2) == c;
      pos_ += triple ? 3 : 1;
      continue;
    }
    if (c == '#') Fail(pos_, pos_ + 1, "f-string expression part cannot include `#`");
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (depth == 0 && (c == '!' || c == '=' || c == '<' || c == '>') &&
               At(pos_ + 1) == '=') {
      ++pos_;  // != == <= >= are operators, not the end of the expression
    } else if (depth == 0 && (c == '!' || c == '=' || c == ':' || c == '}')) {
      return;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) Fail(pos_, pos_ + 1, fmt::format("f-string: unmatched `{}`", c));
      --depth;
    }
    ++pos_;
  }
  if (quote != 0) Fail(open, body_.size(), "f-string: unterminated string");
  Fail(open, open + 1, "f-string: expecting `}`");
}

ExprPtr Parser::ParseStrings() {
  std::vector<Token> pieces;
  while (At(TokenKind::kString)) pieces.push_back(Advance());
  SourceSpan span = SourceSpan::Cover(pieces.front().span, pieces.back().span);
  bool any_fstring = false;
  bool any_bytes = false;
  for (const Token& piece : pieces) {
    any_fstring = any_fstring || piece.string_flags.fstring;
    any_bytes = any_bytes || piece.string_flags.bytes;
  }
  if (any_bytes) {
    // Adjacent literals are all bytes or all str (f-strings included).
    for (const Token& piece : pieces) {
      if (!piece.string_flags.bytes) Fail(span, "cannot mix bytes and nonbytes literals");
    }
    std::string value;
    for (const Token& piece : pieces) value += piece.text;
    return MakeExpr(BytesLit{std::move(value)}, span);
  }
  if (!any_fstring) {
    std::string value;
    for (const Token& piece : pieces) value += piece.text;
    return MakeExpr(StrLit{std::move(value)}, span);
  }
  std::vector<FStringPart> parts;
  for (const Token& piece : pieces) {
    if (piece.string_flags.fstring) {
      PZ_CHECK(file_.text().compare(piece.body_begin, piece.text.size(), piece.text) == 0);
      FStringParser(*this, piece).Parse(parts);
    } else {
      AppendLiteral(parts, piece.text);
    }
  }
  return MakeExpr(FString{std::move(parts)}, span);
}

// Parses one field's expression from its own token stream, swapped in for the duration; the
// nesting depth carries over, so f-strings nested in fields count towards the limit.
ExprPtr Parser::ParseFieldExpression(uint32_t begin, uint32_t end) {
  struct StreamSwap {
    Parser& parser;
    std::vector<Token> saved_tokens;
    size_t saved_pos;
    SourceSpan saved_previous;
    int saved_open_brackets;
    ~StreamSwap() {
      parser.tokens_.swap(saved_tokens);
      parser.pos_ = saved_pos;
      parser.previous_span_ = saved_previous;
      parser.open_brackets_ = saved_open_brackets;
    }
  };
  std::vector<Token> tokens = TokenizeExpression(file_, id_, begin, end, sink_);
  if (tokens.empty() || tokens.back().kind != TokenKind::kEnd) {
    tokens.push_back(Token{.kind = TokenKind::kEnd, .span = SourceSpan{id_, end, end}});
  }
  StreamSwap swap{*this, std::move(tokens), pos_, previous_span_, open_brackets_};
  tokens_.swap(swap.saved_tokens);
  pos_ = 0;
  open_brackets_ = 0;

  ExprPtr value = ParseStarExpressions();
  CheckNotBareStarred(*value);
  if (!At(TokenKind::kEnd)) {
    FailIfSpecialToken();
    if (StartsExpression(Peek().kind)) {
      Fail(Peek().span, "f-string: invalid syntax; perhaps you forgot a comma?");
    }
    Fail(Peek().span, fmt::format("f-string: expected `}}`, found {}", Describe(Peek())));
  }
  return value;
}

}  // namespace pz::lang

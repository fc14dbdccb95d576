// Parser, part 1 of 4: the entry points, token helpers, error reporting, and the statement loop
// with its recovery: after an error it skips to the next logical line (and over the indented
// block of a failed header), so one file yields one error per broken line. Statements are in
// parser_stmt.cpp, expressions in parser_expr.cpp, string literals in parser_fstring.cpp.
#include "lang/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "lang/lexer.h"
#include "lang/parser_impl.h"

namespace pz::lang {
namespace {

// The message for a construct the course's Python subset leaves out, or nullptr.
const char* UnsupportedMessage(TokenKind kind) {
  switch (kind) {
    case TokenKind::kYield:
      return "`yield` is not supported in puzzle files; the course never needs generators";
    case TokenKind::kAsync:
      return "`async` is not supported in puzzle files; the course never needs it";
    case TokenKind::kAwait:
      return "`await` is not supported in puzzle files; the course never needs it";
    default:
      return nullptr;
  }
}

bool IsClauseKeyword(TokenKind kind) {
  return kind == TokenKind::kElif || kind == TokenKind::kElse || kind == TokenKind::kExcept ||
         kind == TokenKind::kFinally;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Entry points

Module ParseModule(const SourceFile& file, FileId id, DiagnosticSink& sink) {
  Parser parser(file, id, Tokenize(file, id, sink), sink);
  return parser.ParseModule();
}

ExprPtr ParseExpression(const SourceFile& file, FileId id, uint32_t begin, uint32_t end,
                        DiagnosticSink& sink) {
  uint32_t size = static_cast<uint32_t>(file.text().size());
  end = std::min(end, size);
  begin = std::min(begin, end);
  int errors_before = sink.ErrorCount();
  Parser parser(file, id, TokenizeExpression(file, id, begin, end, sink), sink);
  ExprPtr expr = parser.ParseStandaloneExpression();
  if (sink.ErrorCount() > errors_before) return nullptr;
  return expr;
}

Parser::Parser(const SourceFile& file, FileId id, std::vector<Token> tokens, DiagnosticSink& sink)
    : file_(file), id_(id), tokens_(std::move(tokens)), sink_(sink) {
  if (tokens_.empty() || tokens_.back().kind != TokenKind::kEnd) {
    uint32_t size = static_cast<uint32_t>(file.text().size());
    tokens_.push_back(Token{.kind = TokenKind::kEnd, .span = SourceSpan{id, size, size}});
  }
}

Module Parser::ParseModule() {
  Module module;
  module.file = id_;
  ParseStatements(module.body, /*top_level=*/true);
  return module;
}

ExprPtr Parser::ParseStandaloneExpression() {
  try {
    ExprPtr expr = ParseStarExpressions();
    CheckNotBareStarred(*expr);
    if (!At(TokenKind::kEnd)) {
      FailAtCurrent(fmt::format("invalid syntax; expected the end of the expression, found {}",
                                Describe(Peek())));
    }
    return expr;
  } catch (const SyntaxErrorUnwind&) {
    return nullptr;
  }
}

// ---------------------------------------------------------------------------------------------
// Tokens

const Token& Parser::Peek(size_t ahead) const {
  return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
}

const Token& Parser::Advance() {
  const Token& token = tokens_[pos_];
  switch (token.kind) {
    case TokenKind::kEnd:
      return token;
    case TokenKind::kNewline:
      line_has_error_ = false;
      open_brackets_ = 0;
      break;
    case TokenKind::kIndent:
    case TokenKind::kDedent:
      break;
    case TokenKind::kLParen:
    case TokenKind::kLBracket:
    case TokenKind::kLBrace:
      ++open_brackets_;
      previous_span_ = token.span;
      break;
    case TokenKind::kRParen:
    case TokenKind::kRBracket:
    case TokenKind::kRBrace:
      open_brackets_ = std::max(open_brackets_ - 1, 0);
      previous_span_ = token.span;
      break;
    default:
      previous_span_ = token.span;
      break;
  }
  ++pos_;
  return token;
}

bool Parser::Match(TokenKind kind) {
  if (!At(kind)) return false;
  Advance();
  return true;
}

const Token& Parser::Expect(TokenKind kind, std::string_view message) {
  if (!At(kind)) FailAtCurrent(std::string(message));
  return Advance();
}

Token Parser::ExpectName(std::string_view message) {
  if (!At(TokenKind::kName)) {
    FailAtCurrent(fmt::format("{}, found {}", message, Describe(Peek())));
  }
  return Advance();
}

bool Parser::AtStatementEnd() const {
  return At(TokenKind::kNewline) || At(TokenKind::kSemicolon) || At(TokenKind::kEnd);
}

bool Parser::StartsExpression(TokenKind kind) {
  switch (kind) {
    case TokenKind::kName:
    case TokenKind::kInt:
    case TokenKind::kFloat:
    case TokenKind::kString:
    case TokenKind::kNone:
    case TokenKind::kTrue:
    case TokenKind::kFalse:
    case TokenKind::kEllipsis:
    case TokenKind::kLParen:
    case TokenKind::kLBracket:
    case TokenKind::kLBrace:
    case TokenKind::kMinus:
    case TokenKind::kPlus:
    case TokenKind::kTilde:
    case TokenKind::kNot:
    case TokenKind::kLambda:
    case TokenKind::kStar:
    case TokenKind::kAwait:
    case TokenKind::kError:
      return true;
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Errors

void Parser::Error(SourceSpan span, std::string message, std::vector<Note> notes) {
  if (line_has_error_) return;
  line_has_error_ = true;
  sink_.Report(Diagnostic{.severity = Severity::kError,
                          .phase = Phase::kParse,
                          .message = std::move(message),
                          .span = span,
                          .notes = std::move(notes)});
}

void Parser::Fail(SourceSpan span, std::string message, std::vector<Note> notes) {
  Error(span, std::move(message), std::move(notes));
  throw SyntaxErrorUnwind{};
}

void Parser::FailIfSpecialToken() {
  const Token& token = Peek();
  if (token.kind == TokenKind::kError) throw SyntaxErrorUnwind{};
  bool at_end = token.kind == TokenKind::kNewline || token.kind == TokenKind::kEnd;
  if (at_end && open_brackets_ > 0) throw SyntaxErrorUnwind{};  // "`(` was never closed"
  if (const char* message = UnsupportedMessage(token.kind)) Fail(token.span, message);
}

void Parser::FailAtCurrent(std::string message) {
  FailIfSpecialToken();
  Fail(Peek().span, std::move(message));
}

std::string Parser::Describe(const Token& token) const {
  switch (token.kind) {
    case TokenKind::kName:
    case TokenKind::kInt:
    case TokenKind::kFloat:
      return fmt::format("`{}`", token.text);
    case TokenKind::kString:
      return "a string";
    case TokenKind::kNewline:
      return "the end of the line";
    case TokenKind::kEnd:
      return "the end of the file";
    case TokenKind::kIndent:
      return "an indent";
    case TokenKind::kDedent:
      return "a dedent";
    case TokenKind::kError:
      return "an invalid token";
    default:
      return fmt::format("`{}`", Spelling(token.kind));
  }
}

Parser::NestingGuard::NestingGuard(Parser& parser, bool enter) : parser_(parser) {
  if (enter) Add();
}

void Parser::NestingGuard::Add() {
  if (parser_.depth_ >= kMaxNesting) {
    parser_.Fail(parser_.Peek().span,
                 fmt::format("too many nested parentheses / expressions (limit {})", kMaxNesting));
  }
  ++parser_.depth_;
  ++levels_;
}

// ---------------------------------------------------------------------------------------------
// Statement loop and recovery

void Parser::ParseStatements(Block& out, bool top_level) {
  while (!At(TokenKind::kEnd)) {
    if (At(TokenKind::kDedent)) {
      if (!top_level) return;
      Advance();  // unbalanced; the lexer never produces it, but never loop on it either
      continue;
    }
    ParseStatementRecovering(out);
  }
}

void Parser::ParseStatementRecovering(Block& out) {
  TokenKind first = Peek().kind;
  if (recovering_ && IsClauseKeyword(first)) {
    // The `else:` (etc.) of a statement whose header failed: skip it without another error.
    Recover(first);
    return;
  }
  // A line the lexer already reported on (it holds an error token) gets no parser error.
  for (size_t i = pos_; i < tokens_.size() && !line_has_error_; ++i) {
    if (tokens_[i].kind == TokenKind::kNewline) break;
    line_has_error_ = tokens_[i].kind == TokenKind::kError;
  }
  try {
    ParseStatement(out);
    recovering_ = false;
  } catch (const SyntaxErrorUnwind&) {
    Recover(first);
  }
}

void Parser::Recover(TokenKind failed_statement_start) {
  while (!At(TokenKind::kNewline) && !At(TokenKind::kEnd) && !At(TokenKind::kDedent)) Advance();
  Match(TokenKind::kNewline);
  if (At(TokenKind::kIndent)) SkipBlockAfterRecovery(failed_statement_start);
  recovering_ = true;  // after the dropped block, whose statements may have cleared it
}

// The indented block after a failed header is still parsed (its errors are worth reporting) in
// the context the header would have set up, and then dropped.
void Parser::SkipBlockAfterRecovery(TokenKind failed_statement_start) {
  StmtContext context = context_;
  switch (failed_statement_start) {
    case TokenKind::kFor:
    case TokenKind::kWhile:
      ++context.loop_depth;
      break;
    case TokenKind::kDef:
    case TokenKind::kAt:
    case TokenKind::kAsync:
    case TokenKind::kClass:
      context = StmtContext{.loop_depth = 0, .in_function = true};
      break;
    default:
      break;
  }
  ScopedValue<StmtContext> scoped(context_, context);
  NestingGuard nesting(*this);
  Advance();  // INDENT
  Block dropped;
  ParseStatements(dropped, /*top_level=*/false);
  Match(TokenKind::kDedent);
}

void Parser::ParseStatement(Block& out) {
  FailIfKeywordAssigned();
  switch (Peek().kind) {
    case TokenKind::kIf:
      out.push_back(ParseIf(/*is_elif=*/false));
      return;
    case TokenKind::kWhile:
      out.push_back(ParseWhile());
      return;
    case TokenKind::kFor:
      out.push_back(ParseFor());
      return;
    case TokenKind::kTry:
      out.push_back(ParseTry());
      return;
    case TokenKind::kDef:
    case TokenKind::kAt:
      out.push_back(ParseFunctionDef());
      return;
    case TokenKind::kClass:
      out.push_back(ParseClassDef({}));
      return;
    case TokenKind::kWith:
      out.push_back(ParseWith());
      return;
    case TokenKind::kAsync:
      FailIfSpecialToken();
      return;
    case TokenKind::kElif:
      Fail(Peek().span, "`elif` without a matching `if`; check the indentation of this line");
    case TokenKind::kElse:
      Fail(Peek().span,
           "`else` without a matching `if`, `for`, `while` or `try`; check the indentation of "
           "this line");
    case TokenKind::kExcept:
      Fail(Peek().span, "`except` without a matching `try`; check the indentation of this line");
    case TokenKind::kFinally:
      Fail(Peek().span, "`finally` without a matching `try`; check the indentation of this line");
    case TokenKind::kIndent: {
      Error(Peek().span, "unexpected indent");
      NestingGuard nesting(*this);
      Advance();
      ParseStatements(out, /*top_level=*/false);
      Match(TokenKind::kDedent);
      return;
    }
    default:
      ParseSimpleStatements(out);
      return;
  }
}

void Parser::ParseSimpleStatements(Block& out) {
  while (true) {
    out.push_back(ParseSmallStatement());
    if (!Match(TokenKind::kSemicolon) || At(TokenKind::kNewline) || At(TokenKind::kEnd)) break;
  }
  if (At(TokenKind::kEnd)) return;
  if (!At(TokenKind::kNewline)) {
    FailIfSpecialToken();
    if (At(TokenKind::kAssign)) {
      Fail(Peek().span, "invalid syntax; `=` is assignment, did you mean `==`?");
    }
    Fail(Peek().span,
         fmt::format("invalid syntax; expected a newline or `;`, found {}", Describe(Peek())));
  }
  Advance();
}

}  // namespace pz::lang

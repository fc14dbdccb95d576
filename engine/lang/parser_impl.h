// Private to the parser (not part of the lang API): the recursive-descent Parser class, whose
// methods are split by concept over parser.cpp (entry points, tokens, errors, the statement loop
// and recovery), parser_stmt.cpp (statements), parser_expr.cpp (expressions, calls, displays,
// parameters) and parser_fstring.cpp (string literals).
// A syntax error is reported once and unwinds to the statement loop, which skips to the next
// logical line; nothing escapes ParseModule / ParseExpression.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lang/ast.h"
#include "lang/token.h"
#include "support/diagnostic.h"
#include "support/source.h"

namespace pz::lang {

// Thrown after a syntax error has been reported (or deliberately not reported, for a lexer error
// token); caught by the statement loop in parser.cpp.
struct SyntaxErrorUnwind {};

// CPython's tokenizer allows 200 nested brackets (MAXLEVEL). The parser applies the same bound to
// every construct it recurses through (brackets, unary operators, `**`, chains of binary
// operators and trailers, conditional expressions, lambdas, blocks, f-string fields), so the AST
// it returns is shallow enough for recursive visitors and destructors.
inline constexpr int kMaxNesting = 200;

// Sets a variable for the lifetime of the guard; restores it also when a syntax error unwinds.
template <typename T>
class ScopedValue {
 public:
  ScopedValue(T& variable, T value) : variable_(variable), saved_(std::move(variable)) {
    variable_ = std::move(value);
  }
  ~ScopedValue() { variable_ = std::move(saved_); }
  ScopedValue(const ScopedValue&) = delete;
  ScopedValue& operator=(const ScopedValue&) = delete;

 private:
  T& variable_;
  T saved_;
};

class Parser {
 public:
  Parser(const SourceFile& file, FileId id, std::vector<Token> tokens, DiagnosticSink& sink);

  Module ParseModule();
  // A whole token stream holding one expression list (ParseExpression of parser.h).
  ExprPtr ParseStandaloneExpression();

 private:
  // Counts one level of nesting for as long as it lives; Add() adds further levels (one per
  // operator of a left-associative chain). Fails with the nesting error past kMaxNesting.
  class NestingGuard {
   public:
    // Enters one level unless `enter` is false (a chain that starts empty).
    explicit NestingGuard(Parser& parser, bool enter = true);
    ~NestingGuard() { parser_.depth_ -= levels_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;
    void Add();

   private:
    Parser& parser_;
    int levels_ = 0;
  };

  // Where `break`, `continue` and `return` are allowed.
  struct StmtContext {
    int loop_depth = 0;        // enclosing loops inside the innermost function (or module)
    bool in_function = false;  // inside a `def`
  };

  // ---- tokens (parser.cpp)
  const Token& Peek(size_t ahead = 0) const;
  bool At(TokenKind kind) const { return Peek().kind == kind; }
  const Token& Advance();
  bool Match(TokenKind kind);
  const Token& Expect(TokenKind kind, std::string_view message);
  Token ExpectName(std::string_view message);
  // The span from `start` to the end of the last consumed token.
  SourceSpan Since(SourceSpan start) const { return SourceSpan::Cover(start, previous_span_); }
  bool AtStatementEnd() const;
  static bool StartsExpression(TokenKind kind);

  // ---- errors (parser.cpp)
  // Reports unless this logical line already has an error (one error per line, no cascades).
  void Error(SourceSpan span, std::string message, std::vector<Note> notes = {});
  [[noreturn]] void Fail(SourceSpan span, std::string message, std::vector<Note> notes = {});
  // Fails at the current token; a lexer error token fails silently (already reported) and an
  // unsupported construct (`class`, `yield`, `:=`, ...) gets its own message instead.
  [[noreturn]] void FailAtCurrent(std::string message);
  // Fails silently or with the unsupported-construct message if the current token calls for it.
  void FailIfSpecialToken();
  std::string Describe(const Token& token) const;
  // `lambda = 0.5`: a keyword where a name is being assigned gets its own message.
  void FailIfKeywordAssigned();

  // ---- statement loop and recovery (parser.cpp)
  void ParseStatements(Block& out, bool top_level);
  void ParseStatementRecovering(Block& out);
  void Recover(TokenKind failed_statement_start);
  void ParseStatement(Block& out);
  void ParseSimpleStatements(Block& out);
  void SkipBlockAfterRecovery(TokenKind failed_statement_start);

  // ---- statements (parser_stmt.cpp)
  StmtPtr ParseSmallStatement();
  StmtPtr ParseExpressionStatement();
  StmtPtr ParseImport();
  StmtPtr ParseImportFrom();
  Alias ParseAlias(bool dotted);
  StmtPtr ParseIf(bool is_elif);
  // The body of a `for`/`while` (inside the loop context) and its optional `else` clause.
  void ParseLoopBody(const Token& keyword, Block& body, Block& orelse);
  StmtPtr ParseWhile();
  StmtPtr ParseFor();
  StmtPtr ParseTry();
  StmtPtr ParseFunctionDef();
  // `class` after any decorators (already parsed, passed in).
  StmtPtr ParseClassDef(std::vector<ExprPtr> decorators);
  StmtPtr ParseWith();
  // Parses the indented block (or same-line simple statements) after a header's `:`.
  Block ParseSuite(const Token& header);
  const Token& ExpectHeaderColon(std::string_view after);

  // ---- targets (parser_stmt.cpp)
  enum class TargetUse { kAssign, kDelete };
  void CheckTarget(const Expr& target, TargetUse use);
  // A name, attribute or subscript: what `+=` and annotations accept.
  static bool IsSingleTarget(const Expr& target);
  void CheckNotBareStarred(const Expr& value);
  static std::string DescribeExpr(const Expr& expr);

  // ---- expressions (parser_expr.cpp)
  ExprPtr ParseStarExpressions();   // a, *b, c   (a bare tuple when there is a comma)
  ExprPtr ParseStarOrExpression();  // *x or an expression
  ExprPtr ParseExpr();              // lambda | conditional expression
  ExprPtr ParseDisjunction();       // or
  ExprPtr ParseConjunction();       // and
  ExprPtr ParseInversion();         // not
  ExprPtr ParseComparison();        // < <= == != > >= in not-in is is-not, chained
  ExprPtr ParseBitOr();             // any binary operator: | ^ & << >> + - * @ / // %
  ExprPtr ParseBinary(int min_precedence);
  ExprPtr ParseFactor();   // unary + - ~
  ExprPtr ParsePower();    // **
  ExprPtr ParsePrimary();  // atom with trailers .x (args) [index]
  ExprPtr ParseAtom();
  ExprPtr ParseLambda();
  ExprPtr ParseParenthesised();
  ExprPtr ParseListDisplay();
  ExprPtr ParseBraceDisplay();
  ExprPtr ParseCall(ExprPtr func);
  ExprPtr ParseSubscript(ExprPtr value);
  ExprPtr ParseSliceOrIndex();
  // True at the `for` of a comprehension after `elt` (an unpacked `*elt` there is an error).
  bool AtComprehension(const Expr& elt);
  // The elements of a display from its first: `first, elt, ...` up to (not including) `close`.
  std::vector<ExprPtr> ParseElements(ExprPtr first, TokenKind close);
  // Parses `for target in iter if cond ...` clauses (at least one).
  std::vector<Comprehension> ParseComprehensions();
  // for-loop and comprehension targets: a, (b, *c), d[i]
  ExprPtr ParseTargetList();
  // Parameters of `def` (up to `)`) or `lambda` (up to `:`).
  Params ParseParams(TokenKind close, bool is_lambda);
  const Token& ExpectClosing(const Token& open, TokenKind close);
  ExprPtr MakeExpr(ExprNode node, SourceSpan span);

  // ---- strings and f-strings (parser_fstring.cpp)
  ExprPtr ParseStrings();
  void ParseFStringBody(const Token& token, std::vector<FStringPart>& parts);
  ExprPtr ParseFieldExpression(uint32_t begin, uint32_t end);

  friend class FStringParser;

  const SourceFile& file_;
  FileId id_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  SourceSpan previous_span_;
  DiagnosticSink& sink_;
  StmtContext context_;
  int depth_ = 0;
  bool line_has_error_ = false;
  // Brackets opened and not yet closed on this logical line. A NEWLINE or end of input reached
  // inside one means it is never closed, which the lexer has reported.
  int open_brackets_ = 0;
  // Set after a statement failed: the `elif`/`else`/`except`/`finally` clauses that follow it
  // are skipped silently instead of being reported as orphans.
  bool recovering_ = false;
};

}  // namespace pz::lang

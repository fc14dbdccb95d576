// Parser, part 2 of 4: statements. Simple statements (assignments with their target checks,
// imports, `return`, `del`, ...) and compound ones (`if`, `while`, `for`, `try`, `def` with its
// decorators), each compound header with its `:` and indented suite. The statement loop that
// calls these, and error recovery, are in parser.cpp.
#include <fmt/format.h>

#include <optional>
#include <utility>

#include "lang/parser_impl.h"

namespace pz::lang {
namespace {

std::optional<BinOpKind> AugmentedOp(TokenKind kind) {
  switch (kind) {
    case TokenKind::kPlusAssign:
      return BinOpKind::kAdd;
    case TokenKind::kMinusAssign:
      return BinOpKind::kSub;
    case TokenKind::kStarAssign:
      return BinOpKind::kMul;
    case TokenKind::kAtAssign:
      return BinOpKind::kMatMul;
    case TokenKind::kSlashAssign:
      return BinOpKind::kDiv;
    case TokenKind::kDoubleSlashAssign:
      return BinOpKind::kFloorDiv;
    case TokenKind::kPercentAssign:
      return BinOpKind::kMod;
    case TokenKind::kDoubleStarAssign:
      return BinOpKind::kPow;
    case TokenKind::kLShiftAssign:
      return BinOpKind::kLShift;
    case TokenKind::kRShiftAssign:
      return BinOpKind::kRShift;
    case TokenKind::kPipeAssign:
      return BinOpKind::kBitOr;
    case TokenKind::kCaretAssign:
      return BinOpKind::kBitXor;
    case TokenKind::kAmpAssign:
      return BinOpKind::kBitAnd;
    default:
      return std::nullopt;
  }
}

// A name for each kind of expression, as in "cannot assign to function call" (CPython's words).
struct ExprKindName {
  std::string operator()(const Name&) const { return "name"; }
  std::string operator()(const NoneLit&) const { return "None"; }
  std::string operator()(const BoolLit& node) const { return node.value ? "True" : "False"; }
  std::string operator()(const IntLit&) const { return "literal"; }
  std::string operator()(const FloatLit&) const { return "literal"; }
  std::string operator()(const StrLit&) const { return "literal"; }
  std::string operator()(const BytesLit&) const { return "literal"; }
  std::string operator()(const EllipsisLit&) const { return "ellipsis"; }
  std::string operator()(const FString&) const { return "f-string expression"; }
  std::string operator()(const UnaryOp&) const { return "expression"; }
  std::string operator()(const BinOp&) const { return "expression"; }
  std::string operator()(const BoolOp&) const { return "expression"; }
  std::string operator()(const Compare&) const { return "comparison"; }
  std::string operator()(const IfExp&) const { return "conditional expression"; }
  std::string operator()(const Lambda&) const { return "lambda"; }
  std::string operator()(const Call&) const { return "function call"; }
  std::string operator()(const Attribute&) const { return "attribute"; }
  std::string operator()(const Subscript&) const { return "subscript"; }
  std::string operator()(const Slice&) const { return "slice"; }
  std::string operator()(const Starred&) const { return "starred"; }
  std::string operator()(const Tuple&) const { return "tuple"; }
  std::string operator()(const List&) const { return "list"; }
  std::string operator()(const Set&) const { return "set display"; }
  std::string operator()(const Dict&) const { return "dict literal"; }
  std::string operator()(const ListComp&) const { return "list comprehension"; }
  std::string operator()(const SetComp&) const { return "set comprehension"; }
  std::string operator()(const DictComp&) const { return "dict comprehension"; }
  std::string operator()(const GeneratorExp&) const { return "generator expression"; }
  std::string operator()(const NamedExpr&) const { return "named expression"; }
};
}  // namespace

// ---------------------------------------------------------------------------------------------
// Simple statements

StmtPtr Parser::ParseSmallStatement() {
  const Token& first = Peek();
  SourceSpan start = first.span;
  auto make = [&](StmtNode node) {
    return std::make_unique<Stmt>(Stmt{std::move(node), Since(start)});
  };
  switch (first.kind) {
    case TokenKind::kPass:
      Advance();
      return make(Pass{});
    case TokenKind::kBreak:
      Advance();
      if (context_.loop_depth == 0) Error(start, "`break` outside loop");
      return make(Break{});
    case TokenKind::kContinue:
      Advance();
      if (context_.loop_depth == 0) Error(start, "`continue` outside loop");
      return make(Continue{});
    case TokenKind::kReturn: {
      Advance();
      if (!context_.in_function) Error(start, "`return` outside function");
      Return node;
      if (!AtStatementEnd()) {
        node.value = ParseStarExpressions();
        CheckNotBareStarred(*node.value);
      }
      return make(std::move(node));
    }
    case TokenKind::kRaise: {
      Advance();
      Raise node;
      if (!AtStatementEnd()) {
        node.exc = ParseExpr();
        if (Match(TokenKind::kFrom)) node.cause = ParseExpr();
      }
      return make(std::move(node));
    }
    case TokenKind::kGlobal:
    case TokenKind::kNonlocal: {
      bool global = first.kind == TokenKind::kGlobal;
      Advance();
      if (!global && !context_.in_function) {
        Error(start, "`nonlocal` declaration not allowed at module level");
      }
      std::vector<std::string> names;
      do {
        names.push_back(ExpectName(global ? "expected a name after `global`"
                                          : "expected a name after `nonlocal`")
                            .text);
      } while (Match(TokenKind::kComma));
      if (global) return make(Global{std::move(names)});
      return make(Nonlocal{std::move(names)});
    }
    case TokenKind::kDel: {
      Advance();
      Delete node;
      do {
        node.targets.push_back(ParseBitOr());
        CheckTarget(*node.targets.back(), TargetUse::kDelete);
      } while (Match(TokenKind::kComma) && !AtStatementEnd());
      return make(std::move(node));
    }
    case TokenKind::kAssert: {
      Advance();
      Assert node;
      node.test = ParseExpr();
      if (Match(TokenKind::kComma)) node.msg = ParseExpr();
      return make(std::move(node));
    }
    case TokenKind::kImport:
      return ParseImport();
    case TokenKind::kFrom:
      return ParseImportFrom();
    default:
      return ParseExpressionStatement();
  }
}

StmtPtr Parser::ParseExpressionStatement() {
  SourceSpan start = Peek().span;
  auto make = [&](StmtNode node) {
    return std::make_unique<Stmt>(Stmt{std::move(node), Since(start)});
  };
  ExprPtr first = ParseStarExpressions();

  if (At(TokenKind::kColon)) {
    Advance();
    if (std::holds_alternative<Tuple>(first->node)) {
      Error(first->span, "only a single target (not a tuple) can be annotated");
    } else if (std::holds_alternative<List>(first->node)) {
      Error(first->span, "only a single target (not a list) can be annotated");
    } else if (!IsSingleTarget(*first)) {
      Error(first->span, fmt::format("cannot annotate {}", DescribeExpr(*first)));
    }
    AnnAssign node{.target = std::move(first), .annotation = ParseExpr()};
    if (Match(TokenKind::kAssign)) {
      node.value = ParseStarExpressions();
      CheckNotBareStarred(*node.value);
    }
    return make(std::move(node));
  }

  if (std::optional<BinOpKind> op = AugmentedOp(Peek().kind)) {
    const Token& op_token = Advance();
    if (!IsSingleTarget(*first)) {
      Error(first->span,
            fmt::format("invalid target for augmented assignment; `{}` needs a name, attribute or "
                        "subscript on its left",
                        Spelling(op_token.kind)));
    }
    ExprPtr value = ParseStarExpressions();
    CheckNotBareStarred(*value);
    return make(AugAssign{.target = std::move(first), .op = *op, .value = std::move(value)});
  }

  if (At(TokenKind::kAssign)) {
    Assign node;
    ExprPtr current = std::move(first);
    while (Match(TokenKind::kAssign)) {
      CheckTarget(*current, TargetUse::kAssign);
      node.targets.push_back(std::move(current));
      current = ParseStarExpressions();
    }
    CheckNotBareStarred(*current);
    node.value = std::move(current);
    return make(std::move(node));
  }

  CheckNotBareStarred(*first);
  const Name* name = std::get_if<Name>(&first->node);
  if (name != nullptr && name->id == "print" &&
      (At(TokenKind::kString) || At(TokenKind::kName) || At(TokenKind::kInt))) {
    Fail(first->span, "missing parentheses in call to `print`; did you mean `print(...)`?");
  }
  return make(ExprStmt{std::move(first)});
}

// ---------------------------------------------------------------------------------------------
// Assignment targets

void Parser::FailIfKeywordAssigned() {
  const Token& token = Peek();
  TokenKind next = Peek(1).kind;
  bool keyword =
      token.kind != TokenKind::kName && KeywordOrName(Spelling(token.kind)) == token.kind;
  bool constant = token.kind == TokenKind::kNone || token.kind == TokenKind::kTrue ||
                  token.kind == TokenKind::kFalse;  // "cannot assign to None", as CPython says
  if (keyword && !constant && (next == TokenKind::kAssign || AugmentedOp(next))) {
    Fail(token.span, fmt::format("`{}` is a keyword and cannot be used as a name; choose another",
                                 Spelling(token.kind)));
  }
}

bool Parser::IsSingleTarget(const Expr& target) {
  return std::holds_alternative<Name>(target.node) ||
         std::holds_alternative<Attribute>(target.node) ||
         std::holds_alternative<Subscript>(target.node);
}

void Parser::CheckTarget(const Expr& target, TargetUse use) {
  const char* verb = use == TargetUse::kDelete ? "delete" : "assign to";
  if (IsSingleTarget(target)) return;
  const std::vector<ExprPtr>* elements = nullptr;
  if (const auto* tuple = std::get_if<Tuple>(&target.node)) elements = &tuple->elts;
  if (const auto* list = std::get_if<List>(&target.node)) elements = &list->elts;
  if (elements == nullptr) {
    if (std::holds_alternative<Starred>(target.node) && use == TargetUse::kAssign) {
      Error(target.span, "starred assignment target must be in a list or tuple");
    } else {
      Error(target.span, fmt::format("cannot {} {}", verb, DescribeExpr(target)));
    }
    return;
  }
  bool seen_starred = false;
  for (const ExprPtr& element : *elements) {
    const auto* starred = std::get_if<Starred>(&element->node);
    if (starred == nullptr) {
      CheckTarget(*element, use);
    } else if (use == TargetUse::kDelete) {
      Error(element->span, "cannot delete starred");
    } else if (seen_starred) {
      Error(element->span, "multiple starred expressions in assignment");
    } else {
      seen_starred = true;
      CheckTarget(*starred->value, use);
    }
  }
}

void Parser::CheckNotBareStarred(const Expr& value) {
  if (std::holds_alternative<Starred>(value.node)) {
    Error(value.span, "cannot use starred expression here");
  }
}

std::string Parser::DescribeExpr(const Expr& expr) { return std::visit(ExprKindName{}, expr.node); }

// ---------------------------------------------------------------------------------------------
// Imports

StmtPtr Parser::ParseImport() {
  SourceSpan start = Advance().span;
  Import node;
  do {
    node.names.push_back(ParseAlias(/*dotted=*/true));
  } while (Match(TokenKind::kComma));
  return std::make_unique<Stmt>(Stmt{std::move(node), Since(start)});
}

Alias Parser::ParseAlias(bool dotted) {
  Token first = ExpectName(dotted ? "expected a module name" : "expected a name to import");
  Alias alias{.name = first.text};
  while (dotted && Match(TokenKind::kDot)) {
    alias.name += "." + ExpectName("expected a name after `.`").text;
  }
  if (Match(TokenKind::kAs)) alias.asname = ExpectName("expected a name after `as`").text;
  alias.span = Since(first.span);
  return alias;
}

StmtPtr Parser::ParseImportFrom() {
  SourceSpan start = Advance().span;
  ImportFrom node;
  while (At(TokenKind::kDot) || At(TokenKind::kEllipsis)) {
    node.level += At(TokenKind::kDot) ? 1 : 3;
    Advance();
  }
  if (At(TokenKind::kName) || node.level == 0) {
    node.module = ExpectName("expected a module name after `from`").text;
    while (Match(TokenKind::kDot)) {
      node.module += "." + ExpectName("expected a name after `.`").text;
    }
  }
  Expect(TokenKind::kImport, "expected `import` after the module name");
  if (At(TokenKind::kStar)) {
    // `*` is one alias named "*"; a function's locals are fixed when it is compiled, so CPython
    // allows it only outside functions.
    Token star = Advance();
    if (context_.in_function) Error(star.span, "import * only allowed at module level");
    node.names.push_back(Alias{.name = "*", .span = star.span});
  } else if (At(TokenKind::kLParen)) {
    Token open = Advance();
    do {
      if (At(TokenKind::kRParen) && !node.names.empty()) break;
      node.names.push_back(ParseAlias(/*dotted=*/false));
    } while (Match(TokenKind::kComma));
    ExpectClosing(open, TokenKind::kRParen);
  } else {
    do {
      if (AtStatementEnd() && !node.names.empty()) {
        Fail(previous_span_, "trailing comma not allowed without surrounding parentheses");
      }
      node.names.push_back(ParseAlias(/*dotted=*/false));
    } while (Match(TokenKind::kComma));
  }
  return std::make_unique<Stmt>(Stmt{std::move(node), Since(start)});
}

// ---------------------------------------------------------------------------------------------
// Compound statements

const Token& Parser::ExpectHeaderColon(std::string_view after) {
  if (At(TokenKind::kColon)) return Advance();
  FailIfSpecialToken();
  if (At(TokenKind::kAssign)) {
    Fail(Peek().span, "invalid syntax; `=` is assignment, did you mean `==`?");
  }
  Fail(Peek().span, fmt::format("expected `:` after {}", after));
}

Block Parser::ParseSuite(const Token& header) {
  Block body;
  if (!At(TokenKind::kNewline) && !At(TokenKind::kEnd)) {
    ParseSimpleStatements(body);  // one-line body: `if x: y = 1`
    return body;
  }
  Match(TokenKind::kNewline);
  if (!At(TokenKind::kIndent)) {
    Fail(Peek().span, fmt::format("expected an indented block after `{}` on line {}",
                                  Spelling(header.kind), file_.Locate(header.span.begin).line));
  }
  NestingGuard nesting(*this);
  Advance();
  ParseStatements(body, /*top_level=*/false);
  Match(TokenKind::kDedent);
  return body;
}

StmtPtr Parser::ParseIf(bool is_elif) {
  Token keyword = Advance();
  If node;
  node.test = ParseExpr();
  const Token& colon = ExpectHeaderColon(is_elif ? "the `elif` condition" : "the `if` condition");
  SourceSpan span = SourceSpan::Cover(keyword.span, colon.span);
  node.body = ParseSuite(keyword);
  if (At(TokenKind::kElif)) {
    NestingGuard nesting(*this);  // an elif chain nests in the AST
    node.orelse.push_back(ParseIf(/*is_elif=*/true));
  } else if (At(TokenKind::kElse)) {
    Token else_token = Advance();
    ExpectHeaderColon("`else`");
    node.orelse = ParseSuite(else_token);
  }
  return std::make_unique<Stmt>(Stmt{std::move(node), span});
}

void Parser::ParseLoopBody(const Token& keyword, Block& body, Block& orelse) {
  {
    ScopedValue<int> loop(context_.loop_depth, context_.loop_depth + 1);
    body = ParseSuite(keyword);
  }
  if (At(TokenKind::kElse)) {
    Token else_token = Advance();
    ExpectHeaderColon("`else`");
    orelse = ParseSuite(else_token);
  }
}

StmtPtr Parser::ParseWhile() {
  Token keyword = Advance();
  While node;
  node.test = ParseExpr();
  SourceSpan span =
      SourceSpan::Cover(keyword.span, ExpectHeaderColon("the `while` condition").span);
  ParseLoopBody(keyword, node.body, node.orelse);
  return std::make_unique<Stmt>(Stmt{std::move(node), span});
}

StmtPtr Parser::ParseFor() {
  Token keyword = Advance();
  For node;
  node.target = ParseTargetList();
  CheckTarget(*node.target, TargetUse::kAssign);
  if (!At(TokenKind::kIn)) {
    FailAtCurrent(fmt::format("expected `in` after the `for` target, found {}", Describe(Peek())));
  }
  Advance();
  node.iter = ParseStarExpressions();
  CheckNotBareStarred(*node.iter);
  SourceSpan span = SourceSpan::Cover(keyword.span, ExpectHeaderColon("`for ... in ...`").span);
  ParseLoopBody(keyword, node.body, node.orelse);
  return std::make_unique<Stmt>(Stmt{std::move(node), span});
}

StmtPtr Parser::ParseTry() {
  Token keyword = Advance();
  SourceSpan span = SourceSpan::Cover(keyword.span, ExpectHeaderColon("`try`").span);
  Try node;
  node.body = ParseSuite(keyword);
  while (At(TokenKind::kExcept)) {
    Token except = Advance();
    if (At(TokenKind::kStar)) {
      Fail(Peek().span, "`except*` is not supported in puzzle files; the course never needs it");
    }
    if (!node.handlers.empty() && node.handlers.back().type == nullptr) {
      Error(node.handlers.back().span, "default `except:` must be last");
    }
    ExceptHandler handler;
    if (!At(TokenKind::kColon)) {
      handler.type = ParseExpr();
      if (At(TokenKind::kComma)) {
        Fail(Peek().span, "multiple exception types must be parenthesized; write `except (A, B):`");
      }
      if (Match(TokenKind::kAs)) handler.name = ExpectName("expected a name after `as`").text;
    }
    handler.span = SourceSpan::Cover(except.span, ExpectHeaderColon("the `except` clause").span);
    handler.body = ParseSuite(except);
    node.handlers.push_back(std::move(handler));
  }
  if (!node.handlers.empty() && At(TokenKind::kElse)) {
    Token else_token = Advance();
    ExpectHeaderColon("`else`");
    node.orelse = ParseSuite(else_token);
  }
  if (At(TokenKind::kFinally)) {
    Token finally = Advance();
    ExpectHeaderColon("`finally`");
    node.finalbody = ParseSuite(finally);
  } else if (node.handlers.empty()) {
    // Reported at the `try` (the current token is on another line, whose own errors must stay).
    sink_.Report(Diagnostic{.severity = Severity::kError,
                            .phase = Phase::kParse,
                            .message = "expected `except` or `finally` block after `try`",
                            .span = keyword.span});
  }
  return std::make_unique<Stmt>(Stmt{std::move(node), span});
}

StmtPtr Parser::ParseFunctionDef() {
  FunctionDef node;
  while (At(TokenKind::kAt)) {
    Advance();
    node.decorators.push_back(ParseExpr());
    if (!At(TokenKind::kNewline)) {
      FailAtCurrent(
          fmt::format("expected a newline after the decorator, found {}", Describe(Peek())));
    }
    Advance();
  }
  if (At(TokenKind::kClass)) return ParseClassDef(std::move(node.decorators));
  if (!At(TokenKind::kDef)) {
    FailAtCurrent(
        fmt::format("expected `def` or `class` after a decorator, found {}", Describe(Peek())));
  }
  Token keyword = Advance();
  Token name = ExpectName("expected a function name after `def`");
  node.name = name.text;
  node.name_span = name.span;
  Token open = Expect(TokenKind::kLParen, "expected `(` after the function name");
  node.params = ParseParams(TokenKind::kRParen, /*is_lambda=*/false);
  ExpectClosing(open, TokenKind::kRParen);
  if (Match(TokenKind::kArrow)) node.returns = ParseExpr();
  SourceSpan span =
      SourceSpan::Cover(keyword.span, ExpectHeaderColon("the function signature").span);
  {
    ScopedValue<StmtContext> function(context_, StmtContext{.loop_depth = 0, .in_function = true});
    node.body = ParseSuite(keyword);
  }
  return std::make_unique<Stmt>(Stmt{std::move(node), span});
}

StmtPtr Parser::ParseClassDef(std::vector<ExprPtr> decorators) {
  ClassDef node;
  node.decorators = std::move(decorators);
  Token keyword = Advance();
  Token name = ExpectName("expected a class name after `class`");
  node.name = name.text;
  node.name_span = name.span;
  if (At(TokenKind::kLParen)) {
    Token open = Advance();
    while (!At(TokenKind::kRParen)) {
      if (At(TokenKind::kName) && Peek(1).kind == TokenKind::kAssign) {
        std::string keyword_name = Advance().text;
        Advance();  // =
        node.keywords.emplace_back(std::move(keyword_name), ParseExpr());
      } else if (At(TokenKind::kDoubleStar)) {
        FailAtCurrent("`**` in a class header is not supported");
      } else {
        if (!node.keywords.empty()) {
          FailAtCurrent("a base class cannot follow a keyword argument in a class header");
        }
        node.bases.push_back(ParseStarOrExpression());
      }
      if (!Match(TokenKind::kComma)) break;
    }
    ExpectClosing(open, TokenKind::kRParen);
  }
  SourceSpan span = SourceSpan::Cover(keyword.span, ExpectHeaderColon("the class header").span);
  {
    // A class body is not a function: `return` is an error there, and loops start afresh.
    ScopedValue<StmtContext> body(context_, StmtContext{.loop_depth = 0, .in_function = false});
    node.body = ParseSuite(keyword);
  }
  return std::make_unique<Stmt>(Stmt{std::move(node), span});
}

StmtPtr Parser::ParseWith() {
  With node;
  Token keyword = Advance();
  // `with (a as x, b as y):` groups its items in parentheses.
  bool grouped = false;
  if (At(TokenKind::kLParen)) {
    // Look for an `as` or a comma at this bracket's depth to tell the grouped form from a
    // parenthesised expression such as `with (a if c else b):`.
    int depth = 0;
    for (size_t i = 0;; ++i) {
      TokenKind kind = Peek(i).kind;
      if (kind == TokenKind::kEnd || kind == TokenKind::kNewline) break;
      if (kind == TokenKind::kLParen || kind == TokenKind::kLBracket ||
          kind == TokenKind::kLBrace) {
        ++depth;
      } else if (kind == TokenKind::kRParen || kind == TokenKind::kRBracket ||
                 kind == TokenKind::kRBrace) {
        if (--depth == 0) {
          grouped = grouped && Peek(i + 1).kind == TokenKind::kColon;
          break;
        }
      } else if (depth == 1 && (kind == TokenKind::kAs || kind == TokenKind::kComma)) {
        grouped = true;
      }
    }
  }
  std::optional<Token> open;
  if (grouped) open = Advance();
  while (true) {
    WithItem item;
    item.context = ParseExpr();
    if (Match(TokenKind::kAs)) {
      item.target = ParseBitOr();  // one target: a comma starts the next item
      CheckTarget(*item.target, TargetUse::kAssign);
    }
    node.items.push_back(std::move(item));
    if (!Match(TokenKind::kComma)) break;
    if (grouped && At(TokenKind::kRParen)) break;
  }
  if (open) ExpectClosing(*open, TokenKind::kRParen);
  SourceSpan span = SourceSpan::Cover(keyword.span, ExpectHeaderColon("the `with` items").span);
  node.body = ParseSuite(keyword);
  return std::make_unique<Stmt>(Stmt{std::move(node), span});
}

}  // namespace pz::lang

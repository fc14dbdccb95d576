// Parser, part 3 of 4: expressions, one function per level of Python's precedence table (lambda <
// if-else < or < and < not < comparisons < | < ^ < & < shifts < + - < * @ / // % < unary < ** <
// primary), the binary levels by precedence climbing; then calls, subscripts and slices,
// displays, comprehensions and parameter lists. A parenthesised expression's span includes its
// parentheses.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "lang/parser_impl.h"

namespace pz::lang {
namespace {

struct BinaryOperator {
  BinOpKind kind;
  int precedence;  // 1 (|) binds loosest ... 6 (* @ / // %) tightest
};

constexpr int kBitOrPrecedence = 1;

std::optional<BinaryOperator> BinaryOperatorFor(TokenKind kind) {
  switch (kind) {
    case TokenKind::kPipe:
      return BinaryOperator{BinOpKind::kBitOr, 1};
    case TokenKind::kCaret:
      return BinaryOperator{BinOpKind::kBitXor, 2};
    case TokenKind::kAmp:
      return BinaryOperator{BinOpKind::kBitAnd, 3};
    case TokenKind::kLShift:
      return BinaryOperator{BinOpKind::kLShift, 4};
    case TokenKind::kRShift:
      return BinaryOperator{BinOpKind::kRShift, 4};
    case TokenKind::kPlus:
      return BinaryOperator{BinOpKind::kAdd, 5};
    case TokenKind::kMinus:
      return BinaryOperator{BinOpKind::kSub, 5};
    case TokenKind::kStar:
      return BinaryOperator{BinOpKind::kMul, 6};
    case TokenKind::kAt:
      return BinaryOperator{BinOpKind::kMatMul, 6};
    case TokenKind::kSlash:
      return BinaryOperator{BinOpKind::kDiv, 6};
    case TokenKind::kDoubleSlash:
      return BinaryOperator{BinOpKind::kFloorDiv, 6};
    case TokenKind::kPercent:
      return BinaryOperator{BinOpKind::kMod, 6};
    default:
      return std::nullopt;
  }
}

std::optional<UnaryOpKind> UnaryOperatorFor(TokenKind kind) {
  switch (kind) {
    case TokenKind::kMinus:
      return UnaryOpKind::kNeg;
    case TokenKind::kPlus:
      return UnaryOpKind::kPos;
    case TokenKind::kTilde:
      return UnaryOpKind::kInvert;
    default:
      return std::nullopt;
  }
}

bool IsClosingBracket(TokenKind kind) {
  return kind == TokenKind::kRParen || kind == TokenKind::kRBracket || kind == TokenKind::kRBrace;
}

bool IsOpeningBracket(TokenKind kind) {
  return kind == TokenKind::kLParen || kind == TokenKind::kLBracket || kind == TokenKind::kLBrace;
}

// Tokens that, right after a complete element inside brackets, suggest a forgotten comma.
bool SuggestsMissingComma(TokenKind kind) {
  switch (kind) {
    case TokenKind::kName:
    case TokenKind::kInt:
    case TokenKind::kFloat:
    case TokenKind::kString:
    case TokenKind::kNone:
    case TokenKind::kTrue:
    case TokenKind::kFalse:
    case TokenKind::kEllipsis:
    case TokenKind::kLBrace:
    case TokenKind::kLambda:
    case TokenKind::kNot:
      return true;
    default:
      return false;
  }
}

}  // namespace

ExprPtr Parser::MakeExpr(ExprNode node, SourceSpan span) {
  return std::make_unique<Expr>(Expr{std::move(node), span});
}

// ---------------------------------------------------------------------------------------------
// Expression lists and the precedence levels

ExprPtr Parser::ParseStarExpressions() {
  ExprPtr first = ParseStarOrExpression();
  if (!At(TokenKind::kComma)) return first;
  SourceSpan start = first->span;
  std::vector<ExprPtr> elts;
  elts.push_back(std::move(first));
  while (Match(TokenKind::kComma) && StartsExpression(Peek().kind)) {
    elts.push_back(ParseStarOrExpression());
  }
  return MakeExpr(Tuple{std::move(elts)}, Since(start));
}

ExprPtr Parser::ParseStarOrExpression() {
  if (!At(TokenKind::kStar)) return ParseExpr();
  SourceSpan start = Advance().span;
  ExprPtr value = ParseBitOr();
  return MakeExpr(Starred{std::move(value)}, Since(start));
}

ExprPtr Parser::ParseExpr() {
  if (At(TokenKind::kLambda)) return ParseLambda();
  if (At(TokenKind::kName) && Peek(1).kind == TokenKind::kWalrus) {
    NestingGuard nesting(*this);
    Token target = Advance();
    Advance();  // :=
    ExprPtr value = ParseExpr();
    SourceSpan span = SourceSpan::Cover(target.span, value->span);
    return MakeExpr(NamedExpr{target.text, target.span, std::move(value)}, span);
  }
  ExprPtr body = ParseDisjunction();
  if (!At(TokenKind::kIf)) return body;
  NestingGuard nesting(*this);
  Advance();
  ExprPtr test = ParseDisjunction();
  if (!At(TokenKind::kElse)) {
    FailAtCurrent(
        fmt::format("expected `else` after the condition of a conditional expression, "
                    "found {}",
                    Describe(Peek())));
  }
  Advance();
  ExprPtr orelse = ParseExpr();
  SourceSpan span = SourceSpan::Cover(body->span, orelse->span);
  return MakeExpr(IfExp{std::move(test), std::move(body), std::move(orelse)}, span);
}

ExprPtr Parser::ParseLambda() {
  NestingGuard nesting(*this);
  SourceSpan start = Advance().span;
  Params params = ParseParams(TokenKind::kColon, /*is_lambda=*/true);
  if (!At(TokenKind::kColon)) {
    FailAtCurrent(
        fmt::format("expected `:` after the `lambda` parameters, found {}", Describe(Peek())));
  }
  Advance();
  ExprPtr body = ParseExpr();
  return MakeExpr(Lambda{std::move(params), std::move(body)}, Since(start));
}

ExprPtr Parser::ParseDisjunction() {
  ExprPtr first = ParseConjunction();
  if (!At(TokenKind::kOr)) return first;
  std::vector<ExprPtr> values;
  values.push_back(std::move(first));
  while (Match(TokenKind::kOr)) values.push_back(ParseConjunction());
  SourceSpan span = SourceSpan::Cover(values.front()->span, values.back()->span);
  return MakeExpr(BoolOp{BoolOpKind::kOr, std::move(values)}, span);
}

ExprPtr Parser::ParseConjunction() {
  ExprPtr first = ParseInversion();
  if (!At(TokenKind::kAnd)) return first;
  std::vector<ExprPtr> values;
  values.push_back(std::move(first));
  while (Match(TokenKind::kAnd)) values.push_back(ParseInversion());
  SourceSpan span = SourceSpan::Cover(values.front()->span, values.back()->span);
  return MakeExpr(BoolOp{BoolOpKind::kAnd, std::move(values)}, span);
}

ExprPtr Parser::ParseInversion() {
  if (!At(TokenKind::kNot)) return ParseComparison();
  NestingGuard nesting(*this);
  SourceSpan start = Advance().span;
  ExprPtr operand = ParseInversion();
  SourceSpan span = SourceSpan::Cover(start, operand->span);
  return MakeExpr(UnaryOp{UnaryOpKind::kNot, std::move(operand)}, span);
}

ExprPtr Parser::ParseComparison() {
  ExprPtr left = ParseBitOr();
  Compare node;
  while (true) {
    std::optional<CmpOpKind> op;
    int length = 1;
    switch (Peek().kind) {
      case TokenKind::kEqEq:
        op = CmpOpKind::kEq;
        break;
      case TokenKind::kNotEq:
        op = CmpOpKind::kNotEq;
        break;
      case TokenKind::kLess:
        op = CmpOpKind::kLt;
        break;
      case TokenKind::kLessEq:
        op = CmpOpKind::kLtE;
        break;
      case TokenKind::kGreater:
        op = CmpOpKind::kGt;
        break;
      case TokenKind::kGreaterEq:
        op = CmpOpKind::kGtE;
        break;
      case TokenKind::kIn:
        op = CmpOpKind::kIn;
        break;
      case TokenKind::kIs:
        op = Peek(1).kind == TokenKind::kNot ? CmpOpKind::kIsNot : CmpOpKind::kIs;
        length = op == CmpOpKind::kIsNot ? 2 : 1;
        break;
      case TokenKind::kNot:
        if (Peek(1).kind == TokenKind::kIn) {
          op = CmpOpKind::kNotIn;
          length = 2;
        }
        break;
      default:
        break;
    }
    if (!op) break;
    for (int i = 0; i < length; ++i) Advance();
    node.ops.push_back(*op);
    node.comparators.push_back(ParseBitOr());
  }
  if (node.ops.empty()) return left;
  SourceSpan span = SourceSpan::Cover(left->span, node.comparators.back()->span);
  node.left = std::move(left);
  return MakeExpr(std::move(node), span);
}

ExprPtr Parser::ParseBitOr() { return ParseBinary(kBitOrPrecedence); }

// Precedence climbing over the left-associative binary operators. Each operator of a chain is one
// level of nesting (the AST it builds is left-deep).
ExprPtr Parser::ParseBinary(int min_precedence) {
  ExprPtr left = ParseFactor();
  NestingGuard chain(*this, /*enter=*/false);
  while (true) {
    std::optional<BinaryOperator> op = BinaryOperatorFor(Peek().kind);
    if (!op || op->precedence < min_precedence) break;
    chain.Add();
    Advance();
    ExprPtr right = ParseBinary(op->precedence + 1);
    SourceSpan span = SourceSpan::Cover(left->span, right->span);
    left = MakeExpr(BinOp{op->kind, std::move(left), std::move(right)}, span);
  }
  return left;
}

ExprPtr Parser::ParseFactor() {
  std::optional<UnaryOpKind> op = UnaryOperatorFor(Peek().kind);
  if (!op) return ParsePower();
  NestingGuard nesting(*this);
  SourceSpan start = Advance().span;
  ExprPtr operand = ParseFactor();
  SourceSpan span = SourceSpan::Cover(start, operand->span);
  return MakeExpr(UnaryOp{*op, std::move(operand)}, span);
}

// `**` is right-associative and binds tighter than a unary operator on its left (-2**2 == -4)
// but not on its right (2**-1).
ExprPtr Parser::ParsePower() {
  ExprPtr base = ParsePrimary();
  if (!At(TokenKind::kDoubleStar)) return base;
  NestingGuard nesting(*this);
  Advance();
  ExprPtr exponent = ParseFactor();
  SourceSpan span = SourceSpan::Cover(base->span, exponent->span);
  return MakeExpr(BinOp{BinOpKind::kPow, std::move(base), std::move(exponent)}, span);
}

ExprPtr Parser::ParsePrimary() {
  ExprPtr value = ParseAtom();
  NestingGuard chain(*this, /*enter=*/false);
  while (true) {
    if (At(TokenKind::kDot)) {
      chain.Add();
      Advance();
      Token attr = ExpectName("expected an attribute name after `.`");
      SourceSpan span = SourceSpan::Cover(value->span, attr.span);
      value = MakeExpr(Attribute{std::move(value), attr.text, attr.span}, span);
    } else if (At(TokenKind::kLParen)) {
      chain.Add();
      value = ParseCall(std::move(value));
    } else if (At(TokenKind::kLBracket)) {
      chain.Add();
      value = ParseSubscript(std::move(value));
    } else {
      return value;
    }
  }
}

ExprPtr Parser::ParseAtom() {
  const Token& token = Peek();
  switch (token.kind) {
    case TokenKind::kName: {
      Advance();
      return MakeExpr(Name{token.text}, token.span);
    }
    case TokenKind::kNone:
      Advance();
      return MakeExpr(NoneLit{}, token.span);
    case TokenKind::kTrue:
    case TokenKind::kFalse:
      Advance();
      return MakeExpr(BoolLit{token.kind == TokenKind::kTrue}, token.span);
    case TokenKind::kInt:
      Advance();
      return MakeExpr(IntLit{token.int_value}, token.span);
    case TokenKind::kFloat:
      Advance();
      return MakeExpr(FloatLit{token.float_value}, token.span);
    case TokenKind::kEllipsis:
      Advance();
      return MakeExpr(EllipsisLit{}, token.span);
    case TokenKind::kString:
      return ParseStrings();
    case TokenKind::kLParen:
      return ParseParenthesised();
    case TokenKind::kLBracket:
      return ParseListDisplay();
    case TokenKind::kLBrace:
      return ParseBraceDisplay();
    case TokenKind::kStar:
      Fail(token.span, "cannot use starred expression here");
    case TokenKind::kLambda:
      Fail(token.span, "invalid syntax; put this `lambda` in parentheses");
    case TokenKind::kNot:
      Fail(token.span, "invalid syntax; put this `not` expression in parentheses");
    default:
      FailAtCurrent("expected an expression");
  }
}

// ---------------------------------------------------------------------------------------------
// Brackets: groups, tuples, displays, comprehensions

const Token& Parser::ExpectClosing(const Token& open, TokenKind close) {
  if (At(close)) return Advance();
  FailIfSpecialToken();
  const Token& found = Peek();
  // A bracket that never closes swallows the rest of the file (the lexer emits no NEWLINE inside
  // brackets) and the lexer has reported "`(` was never closed" at it: nothing to add.
  int depth = 0;
  bool closes_later = false;
  for (size_t i = pos_; i < tokens_.size() && !closes_later; ++i) {
    TokenKind kind = tokens_[i].kind;
    if (kind == TokenKind::kNewline || kind == TokenKind::kEnd) break;
    if (IsOpeningBracket(kind)) ++depth;
    if (IsClosingBracket(kind)) closes_later = depth-- == 0;
  }
  if (!closes_later) throw SyntaxErrorUnwind{};
  if (found.kind == TokenKind::kAssign) {
    Fail(found.span, "invalid syntax; `=` is assignment, did you mean `==`?");
  }
  if (SuggestsMissingComma(found.kind)) {
    Fail(found.span, "invalid syntax; perhaps you forgot a comma?");
  }
  if (IsClosingBracket(found.kind)) {
    Fail(found.span,
         fmt::format("closing `{}` does not match opening `{}`", Spelling(found.kind),
                     Spelling(open.kind)),
         {Note{fmt::format("`{}` opened here", Spelling(open.kind)), open.span}});
  }
  Fail(found.span, fmt::format("expected `,` or `{}`, found {}", Spelling(close), Describe(found)));
}

bool Parser::AtComprehension(const Expr& elt) {
  if (!At(TokenKind::kFor) && !At(TokenKind::kAsync)) return false;
  if (std::holds_alternative<Starred>(elt.node)) {
    Fail(elt.span, "iterable unpacking cannot be used in comprehension");
  }
  return true;
}

std::vector<ExprPtr> Parser::ParseElements(ExprPtr first, TokenKind close) {
  std::vector<ExprPtr> elts;
  elts.push_back(std::move(first));
  while (Match(TokenKind::kComma) && !At(close)) elts.push_back(ParseStarOrExpression());
  return elts;
}

ExprPtr Parser::ParseParenthesised() {
  NestingGuard nesting(*this);
  Token open = Advance();
  if (Match(TokenKind::kRParen)) return MakeExpr(Tuple{}, Since(open.span));
  ExprPtr first = ParseStarOrExpression();
  if (AtComprehension(*first)) {
    std::vector<Comprehension> generators = ParseComprehensions();
    ExpectClosing(open, TokenKind::kRParen);
    return MakeExpr(GeneratorExp{std::move(first), std::move(generators)}, Since(open.span));
  }
  if (Match(TokenKind::kRParen)) {
    CheckNotBareStarred(*first);
    first->span = Since(open.span);
    return first;
  }
  std::vector<ExprPtr> elts = ParseElements(std::move(first), TokenKind::kRParen);
  ExpectClosing(open, TokenKind::kRParen);
  return MakeExpr(Tuple{std::move(elts)}, Since(open.span));
}

ExprPtr Parser::ParseListDisplay() {
  NestingGuard nesting(*this);
  Token open = Advance();
  if (Match(TokenKind::kRBracket)) return MakeExpr(List{}, Since(open.span));
  ExprPtr first = ParseStarOrExpression();
  if (AtComprehension(*first)) {
    std::vector<Comprehension> generators = ParseComprehensions();
    ExpectClosing(open, TokenKind::kRBracket);
    return MakeExpr(ListComp{std::move(first), std::move(generators)}, Since(open.span));
  }
  std::vector<ExprPtr> elts = ParseElements(std::move(first), TokenKind::kRBracket);
  ExpectClosing(open, TokenKind::kRBracket);
  return MakeExpr(List{std::move(elts)}, Since(open.span));
}

// `{` starts a dict (empty, `k: v` or `**d` first) or a set, or one of their comprehensions.
ExprPtr Parser::ParseBraceDisplay() {
  NestingGuard nesting(*this);
  Token open = Advance();
  if (Match(TokenKind::kRBrace)) return MakeExpr(Dict{}, Since(open.span));

  auto parse_dict_item = [&]() {
    if (Match(TokenKind::kDoubleStar)) return DictItem{nullptr, ParseBitOr()};
    ExprPtr key = ParseExpr();
    if (!At(TokenKind::kColon)) {
      FailAtCurrent(fmt::format("expected `:` after the dict key, found {}", Describe(Peek())));
    }
    Advance();
    return DictItem{std::move(key), ParseExpr()};
  };

  ExprPtr first;
  if (!At(TokenKind::kDoubleStar)) first = ParseStarOrExpression();
  bool is_dict =
      first == nullptr || (At(TokenKind::kColon) && !std::holds_alternative<Starred>(first->node));
  if (!is_dict) {
    if (AtComprehension(*first)) {
      std::vector<Comprehension> generators = ParseComprehensions();
      ExpectClosing(open, TokenKind::kRBrace);
      return MakeExpr(SetComp{std::move(first), std::move(generators)}, Since(open.span));
    }
    std::vector<ExprPtr> elts = ParseElements(std::move(first), TokenKind::kRBrace);
    ExpectClosing(open, TokenKind::kRBrace);
    return MakeExpr(Set{std::move(elts)}, Since(open.span));
  }

  DictItem item;
  if (first == nullptr) {
    item = parse_dict_item();
  } else {
    Advance();  // ':'
    item = DictItem{std::move(first), ParseExpr()};
  }
  if (At(TokenKind::kFor) || At(TokenKind::kAsync)) {
    if (item.key == nullptr) {
      Fail(item.value->span, "dict unpacking cannot be used in dict comprehension");
    }
    std::vector<Comprehension> generators = ParseComprehensions();
    ExpectClosing(open, TokenKind::kRBrace);
    return MakeExpr(DictComp{std::move(item.key), std::move(item.value), std::move(generators)},
                    Since(open.span));
  }
  Dict dict;
  dict.items.push_back(std::move(item));
  while (Match(TokenKind::kComma) && !At(TokenKind::kRBrace)) {
    dict.items.push_back(parse_dict_item());
  }
  ExpectClosing(open, TokenKind::kRBrace);
  return MakeExpr(std::move(dict), Since(open.span));
}

std::vector<Comprehension> Parser::ParseComprehensions() {
  std::vector<Comprehension> generators;
  while (At(TokenKind::kFor) || At(TokenKind::kAsync)) {
    FailIfSpecialToken();  // `async for`
    Advance();
    Comprehension generator;
    generator.target = ParseTargetList();
    CheckTarget(*generator.target, TargetUse::kAssign);
    if (!At(TokenKind::kIn)) {
      FailAtCurrent(
          fmt::format("expected `in` after the comprehension target, found {}", Describe(Peek())));
    }
    Advance();
    generator.iter = ParseDisjunction();
    while (Match(TokenKind::kIf)) generator.ifs.push_back(ParseDisjunction());
    generators.push_back(std::move(generator));
  }
  return generators;
}

ExprPtr Parser::ParseTargetList() {
  auto parse_element = [&]() -> ExprPtr {
    if (!At(TokenKind::kStar)) return ParseBitOr();
    SourceSpan start = Advance().span;
    ExprPtr value = ParseBitOr();
    return MakeExpr(Starred{std::move(value)}, Since(start));
  };
  ExprPtr first = parse_element();
  if (!At(TokenKind::kComma)) return first;
  SourceSpan start = first->span;
  std::vector<ExprPtr> elts;
  elts.push_back(std::move(first));
  while (Match(TokenKind::kComma) && StartsExpression(Peek().kind)) {
    elts.push_back(parse_element());
  }
  return MakeExpr(Tuple{std::move(elts)}, Since(start));
}

// ---------------------------------------------------------------------------------------------
// Calls and subscripts

ExprPtr Parser::ParseCall(ExprPtr func) {
  Token open = Advance();
  Call call;
  bool seen_keyword = false;
  bool seen_double_star = false;
  while (!At(TokenKind::kRParen)) {
    SourceSpan start = Peek().span;
    FailIfKeywordAssigned();
    Arg arg;
    if (Match(TokenKind::kStar)) {
      arg.kind = ArgKind::kStar;
      arg.value = ParseExpr();
      if (seen_double_star) {
        Error(Since(start), "iterable argument unpacking follows keyword argument unpacking");
      }
    } else if (Match(TokenKind::kDoubleStar)) {
      arg.kind = ArgKind::kDoubleStar;
      arg.value = ParseExpr();
      seen_double_star = true;
    } else if (At(TokenKind::kName) && Peek(1).kind == TokenKind::kAssign) {
      arg.kind = ArgKind::kKeyword;
      arg.name = Advance().text;
      Advance();
      arg.value = ParseExpr();
      bool repeated = std::any_of(call.args.begin(), call.args.end(), [&](const Arg& other) {
        return other.kind == ArgKind::kKeyword && other.name == arg.name;
      });
      if (repeated) Error(Since(start), fmt::format("keyword argument repeated: `{}`", arg.name));
      seen_keyword = true;
    } else {
      arg.value = ParseExpr();
      if (At(TokenKind::kFor) || At(TokenKind::kAsync)) {
        // f(x for x in xs): a generator expression as the sole argument.
        if (!call.args.empty()) Fail(arg.value->span, "generator expression must be parenthesized");
        std::vector<Comprehension> generators = ParseComprehensions();
        SourceSpan span = Since(start);
        arg.value = MakeExpr(GeneratorExp{std::move(arg.value), std::move(generators)}, span);
        if (!At(TokenKind::kRParen)) Fail(span, "generator expression must be parenthesized");
      }
      if (At(TokenKind::kAssign)) {
        Fail(Since(start), "expression cannot contain assignment; did you mean `==`?");
      }
      if (seen_double_star) {
        Error(arg.value->span, "positional argument follows keyword argument unpacking");
      } else if (seen_keyword) {
        Error(arg.value->span, "positional argument follows keyword argument");
      }
    }
    arg.span = Since(start);
    call.args.push_back(std::move(arg));
    if (!Match(TokenKind::kComma)) break;
  }
  const Token& close = ExpectClosing(open, TokenKind::kRParen);
  SourceSpan span = SourceSpan::Cover(func->span, close.span);
  call.func = std::move(func);
  return MakeExpr(std::move(call), span);
}

// x[i], x[i, j], x[a:b], x[a:b, ::2, None, ...]: one element is the index itself; several (or a
// trailing comma, or a starred element) form a Tuple.
ExprPtr Parser::ParseSubscript(ExprPtr value) {
  Token open = Advance();
  std::vector<ExprPtr> elts;
  bool is_tuple = false;
  while (true) {
    elts.push_back(ParseSliceOrIndex());
    is_tuple = is_tuple || std::holds_alternative<Starred>(elts.back()->node);
    if (!Match(TokenKind::kComma)) break;
    is_tuple = true;
    if (At(TokenKind::kRBracket)) break;
  }
  SourceSpan index_span = Since(elts.front()->span);
  const Token& close = ExpectClosing(open, TokenKind::kRBracket);
  ExprPtr index = is_tuple ? MakeExpr(Tuple{std::move(elts)}, index_span) : std::move(elts.front());
  SourceSpan span = SourceSpan::Cover(value->span, close.span);
  return MakeExpr(Subscript{std::move(value), std::move(index)}, span);
}

ExprPtr Parser::ParseSliceOrIndex() {
  SourceSpan start = Peek().span;
  Slice slice;
  if (!At(TokenKind::kColon)) {
    ExprPtr index = ParseStarOrExpression();
    if (!At(TokenKind::kColon)) return index;
    if (std::holds_alternative<Starred>(index->node)) {
      Fail(index->span, "cannot use starred expression here");
    }
    slice.lower = std::move(index);
  }
  Advance();  // ':'
  auto at_bound_end = [&]() {
    return At(TokenKind::kColon) || At(TokenKind::kComma) || At(TokenKind::kRBracket);
  };
  if (!at_bound_end()) slice.upper = ParseExpr();
  if (Match(TokenKind::kColon) && !at_bound_end()) slice.step = ParseExpr();
  return MakeExpr(std::move(slice), Since(start));
}

// ---------------------------------------------------------------------------------------------
// Parameters

Params Parser::ParseParams(TokenKind close, bool is_lambda) {
  Params params;
  bool seen_slash = false;
  bool seen_star = false;
  bool seen_var_kwargs = false;
  bool seen_default = false;
  std::optional<SourceSpan> bare_star;  // a `*` still waiting for its keyword-only parameter

  auto parse_param = [&](ParamKind kind) {
    Token name = ExpectName("expected a parameter name");
    Param param{.name = name.text, .kind = kind, .span = name.span};
    if (!is_lambda && Match(TokenKind::kColon)) param.annotation = ParseExpr();
    if (At(TokenKind::kAssign)) {
      SourceSpan equals = Advance().span;
      param.default_value = ParseExpr();
      if (kind == ParamKind::kVarArgs) {
        Error(equals, "var-positional parameter cannot have a default value");
      } else if (kind == ParamKind::kVarKwargs) {
        Error(equals, "var-keyword parameter cannot have a default value");
      }
    }
    bool duplicate = std::any_of(params.params.begin(), params.params.end(),
                                 [&](const Param& other) { return other.name == param.name; });
    if (seen_var_kwargs) {
      Error(param.span, "parameters cannot follow the `**` parameter");
    } else if (duplicate) {
      Error(param.span, fmt::format("duplicate parameter `{}` in function definition", param.name));
    } else if (kind == ParamKind::kNormal && param.default_value == nullptr && seen_default) {
      Error(param.span, "non-default parameter follows default parameter");
    }
    if (kind == ParamKind::kNormal && param.default_value != nullptr) seen_default = true;
    if (kind == ParamKind::kKeywordOnly) bare_star.reset();
    if (kind == ParamKind::kVarKwargs) seen_var_kwargs = true;
    params.params.push_back(std::move(param));
  };

  while (!At(close)) {
    if (At(TokenKind::kSlash)) {
      SourceSpan slash = Advance().span;
      if (seen_slash) {
        Error(slash, "`/` may appear only once");
      } else if (seen_star || seen_var_kwargs) {
        Error(slash, "`/` must be ahead of `*`");
      } else if (params.params.empty()) {
        Error(slash, "at least one parameter must precede `/`");
      }
      for (Param& param : params.params) {
        if (param.kind == ParamKind::kNormal) param.kind = ParamKind::kPositionalOnly;
      }
      seen_slash = true;
    } else if (At(TokenKind::kStar)) {
      SourceSpan star = Advance().span;
      if (seen_star) Error(star, "`*` may appear only once");
      seen_star = true;
      if (At(TokenKind::kName)) {
        parse_param(ParamKind::kVarArgs);
      } else {
        bare_star = star;
      }
    } else if (Match(TokenKind::kDoubleStar)) {
      parse_param(ParamKind::kVarKwargs);
    } else {
      parse_param(seen_star ? ParamKind::kKeywordOnly : ParamKind::kNormal);
    }
    if (!Match(TokenKind::kComma)) break;
  }
  if (bare_star) Error(*bare_star, "named parameters must follow bare `*`");
  return params;
}

}  // namespace pz::lang

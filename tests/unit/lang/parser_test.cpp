// Parser tests: operator precedence, every statement form, f-strings, spans, and the AST
// printer's format (malformed input: parser_errors_test.cpp).
#include "lang/parser.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "lang/ast_printer.h"
#include "parse_helpers.h"

namespace pz::lang {
namespace {

using testing::Errors;
using testing::FormatDiagnostics;
using testing::Parse;

// Parses one expression and renders the printed tree as an S-expression without locations, with
// names and integers bare: "-2**2" -> "(UnaryOp - (BinOp ** 2 2))".
std::string Sexp(std::string_view source) {
  SourceManager sources;
  FileId id = sources.Add("test.py", std::string(source));
  DiagnosticSink sink;
  ExprPtr expr =
      ParseExpression(sources.Get(id), id, 0, static_cast<uint32_t>(source.size()), sink);
  if (expr == nullptr) return "error: " + FormatDiagnostics(sink, sources);
  std::string printed = PrintExpr(*expr, sources);

  struct Line {
    size_t depth;
    std::string text;
  };
  std::vector<Line> lines;
  size_t start = 0;
  while (start < printed.size()) {
    size_t end = printed.find('\n', start);
    std::string line = printed.substr(start, end - start);
    start = end + 1;
    size_t indent = line.find_first_not_of(' ');
    std::string text = line.substr(indent);
    if (size_t at = text.rfind(" @"); at != std::string::npos) text.resize(at);
    lines.push_back({indent / 2, text});
  }
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    bool leaf = i + 1 == lines.size() || lines[i + 1].depth <= lines[i].depth;
    std::string text = lines[i].text;
    // "role: node" -> "role:node"
    if (size_t colon = text.find(": "); colon != std::string::npos && text.find('\'') > colon) {
      text.erase(colon + 1, 1);
    }
    for (std::string_view bare : {"Name ", "IntLit "}) {
      size_t at = text.find(bare);
      if (leaf && at != std::string::npos && text.find('\'') > at) text.erase(at, bare.size());
    }
    if (i > 0) out += ' ';
    out += leaf ? text : "(" + text;
    if (!leaf) continue;
    size_t next_depth = i + 1 == lines.size() ? 0 : lines[i + 1].depth;
    for (size_t d = lines[i].depth; d > next_depth; --d) out += ')';
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Precedence

TEST(ParserPrecedence, PowerBindsTighterThanUnaryMinusOnItsLeft) {
  EXPECT_EQ(Sexp("-2**2"), "(UnaryOp - (BinOp ** 2 2))");
}

TEST(ParserPrecedence, PowerIsRightAssociative) {
  EXPECT_EQ(Sexp("2**3**2"), "(BinOp ** 2 (BinOp ** 3 2))");
}

TEST(ParserPrecedence, PowerAcceptsUnaryExponent) {
  EXPECT_EQ(Sexp("2**-x"), "(BinOp ** 2 (UnaryOp - x))");
}

TEST(ParserPrecedence, MultiplicationBindsTighterThanAddition) {
  EXPECT_EQ(Sexp("a + b * c"), "(BinOp + a (BinOp * b c))");
  EXPECT_EQ(Sexp("a * b + c"), "(BinOp + (BinOp * a b) c)");
}

TEST(ParserPrecedence, BinaryOperatorsAreLeftAssociative) {
  EXPECT_EQ(Sexp("a - b - c"), "(BinOp - (BinOp - a b) c)");
  EXPECT_EQ(Sexp("a @ b // c % d / e"), "(BinOp / (BinOp % (BinOp // (BinOp @ a b) c) d) e)");
}

TEST(ParserPrecedence, ShiftsSitBetweenAdditionAndBitwiseAnd) {
  EXPECT_EQ(Sexp("a & b << c + d"), "(BinOp & a (BinOp << b (BinOp + c d)))");
  EXPECT_EQ(Sexp("a >> b - c"), "(BinOp >> a (BinOp - b c))");
}

TEST(ParserPrecedence, BitwiseOrXorAndNestInThatOrder) {
  EXPECT_EQ(Sexp("a | b ^ c & d"), "(BinOp | a (BinOp ^ b (BinOp & c d)))");
}

TEST(ParserPrecedence, ComparisonsBindLooserThanBitwiseOr) {
  EXPECT_EQ(Sexp("a | b < c"), "(Compare < (BinOp | a b) c)");
}

TEST(ParserPrecedence, ComparisonsChainIntoOneNode) {
  EXPECT_EQ(Sexp("a < b <= c is not d not in e"), "(Compare <, <=, is not, not in a b c d e)");
}

TEST(ParserPrecedence, NotBindsLooserThanComparison) {
  EXPECT_EQ(Sexp("not a == b"), "(UnaryOp not (Compare == a b))");
}

TEST(ParserPrecedence, AndBindsTighterThanOrAndBothAreFlat) {
  EXPECT_EQ(Sexp("a or b and c and d or e"), "(BoolOp or a (BoolOp and b c d) e)");
}

TEST(ParserPrecedence, ConditionalExpressionIsRightNested) {
  EXPECT_EQ(Sexp("a if b else c if d else e"),
            "(IfExp test:b body:a (orelse:IfExp test:d body:c orelse:e))");
}

TEST(ParserPrecedence, LambdaBodyHoldsAConditionalExpression) {
  EXPECT_EQ(Sexp("lambda: a if b else c"), "(Lambda (body:IfExp test:b body:a orelse:c))");
}

TEST(ParserPrecedence, UnaryOperatorsNest) {
  EXPECT_EQ(Sexp("- + ~x"), "(UnaryOp - (UnaryOp + (UnaryOp ~ x)))");
}

TEST(ParserPrecedence, TrailersBindTightest) {
  EXPECT_EQ(Sexp("-a.b(c)[d] ** 2"),
            "(UnaryOp - (BinOp ** (Subscript (Call (Attribute .b a) c) d) 2))");
}

TEST(ParserPrecedence, ParenthesesOverridePrecedence) {
  EXPECT_EQ(Sexp("(a + b) * c"), "(BinOp * (BinOp + a b) c)");
  EXPECT_EQ(Sexp("(-2)**2"), "(BinOp ** (UnaryOp - 2) 2)");
}

// ---------------------------------------------------------------------------------------------
// Expressions

TEST(ParserExpr, CallsTakeEveryArgumentForm) {
  EXPECT_EQ(Sexp("f(a, *b, k=1, **c, j=2)"), "(Call f a *:b keyword k:1 **:c keyword j:2)");
}

TEST(ParserExpr, GeneratorExpressionCanBeTheSoleCallArgument) {
  EXPECT_EQ(Sexp("sum(x for x in xs if x)"),
            "(Call sum (GeneratorExp x (Comprehension target:x iter:xs if:x)))");
}

TEST(ParserExpr, SingleSliceIndexIsABareSlice) {
  EXPECT_EQ(Sexp("x[1:2]"), "(Subscript x (Slice lower:1 upper:2))");
  EXPECT_EQ(Sexp("x[::2]"), "(Subscript x (Slice step:2))");
  EXPECT_EQ(Sexp("x[:]"), "(Subscript x Slice)");
}

TEST(ParserExpr, SeveralIndicesFormATuple) {
  EXPECT_EQ(Sexp("x[1:2, ::2, None, ...]"),
            "(Subscript x (Tuple (Slice lower:1 upper:2) (Slice step:2) NoneLit EllipsisLit))");
  EXPECT_EQ(Sexp("x[i,]"), "(Subscript x (Tuple i))");
}

TEST(ParserExpr, TuplesNeedCommasNotParentheses) {
  EXPECT_EQ(Sexp("()"), "Tuple");
  EXPECT_EQ(Sexp("(a)"), "a");
  EXPECT_EQ(Sexp("(a,)"), "(Tuple a)");
  EXPECT_EQ(Sexp("a, b,"), "(Tuple a b)");
}

TEST(ParserExpr, DisplaysAcceptUnpacking) {
  EXPECT_EQ(Sexp("[a, *b]"), "(List a (Starred b))");
  EXPECT_EQ(Sexp("{a, *b}"), "(Set a (Starred b))");
  EXPECT_EQ(Sexp("{'k': 1, **d}"), "(Dict key:StrLit 'k' value:1 **:d)");
  EXPECT_EQ(Sexp("{}"), "Dict");
}

TEST(ParserExpr, ComprehensionsOfEveryKind) {
  EXPECT_EQ(Sexp("[x for x in a if x for y in b]"),
            "(ListComp x (Comprehension target:x iter:a if:x) (Comprehension target:y iter:b))");
  EXPECT_EQ(Sexp("{x for x in a}"), "(SetComp x (Comprehension target:x iter:a))");
  EXPECT_EQ(Sexp("{k: v for k, v in d}"),
            "(DictComp key:k value:v (Comprehension (target:Tuple k v) iter:d))");
  EXPECT_EQ(Sexp("(x for x in a)"), "(GeneratorExp x (Comprehension target:x iter:a))");
}

TEST(ParserExpr, LambdaTakesEveryParameterForm) {
  EXPECT_EQ(Sexp("lambda a, b=1, *c, d, **e: a"),
            "(Lambda Param a (Param b default:1) Param *c Param d (keyword-only) Param **e "
            "body:a)");
}

TEST(ParserExpr, AdjacentStringsConcatenate) {
  EXPECT_EQ(Sexp("'a' \"b\" '''c'''"), "StrLit 'abc'");
}

TEST(ParserExpr, LiteralsOfEveryKind) {
  EXPECT_EQ(Sexp("[None, True, False, 1.5, ...]"),
            "(List NoneLit BoolLit True BoolLit False FloatLit 1.5 EllipsisLit)");
}

// ---------------------------------------------------------------------------------------------
// f-strings

TEST(ParserFString, SplitsLiteralsAndFields) {
  EXPECT_EQ(Sexp("f'a{x}b{y!r}'"), "(FString Literal 'a' (Field x) Literal 'b' (Field !r y))");
}

TEST(ParserFString, FormatSpecIsAnFStringWithNestedFields) {
  EXPECT_EQ(Sexp("f'{x:>{width}.2f}'"),
            "(FString (Field x (spec:FString Literal '>' (Field width) Literal '.2f')))");
}

TEST(ParserFString, DebugFieldKeepsItsTextAndDefaultsToRepr) {
  EXPECT_EQ(Sexp("f'{x=}'"), "(FString (Field !r debug 'x=' x))");
  EXPECT_EQ(Sexp("f'{x = !s}'"), "(FString (Field !s debug 'x = ' x))");
  EXPECT_EQ(Sexp("f'{x=:>4}'"), "(FString (Field debug 'x=' x (spec:FString Literal '>4')))");
}

TEST(ParserFString, DoubledBracesAreLiteralAndEscapesDecoded) {
  EXPECT_EQ(Sexp("f'{{a}}\\n'"), "(FString Literal '{a}\\n')");
  EXPECT_EQ(Sexp("rf'\\n{x}'"), "(FString Literal '\\\\n' (Field x))");
}

TEST(ParserFString, ConcatenatesWithPlainStrings) {
  EXPECT_EQ(Sexp("'a' f'{x}' 'b'"), "(FString Literal 'a' (Field x) Literal 'b')");
}

TEST(ParserFString, FieldExpressionsAreFullExpressions) {
  EXPECT_EQ(Sexp("f'{a + b[\"k\"]!a}'"),
            "(FString (Field !a (BinOp + a (Subscript b StrLit 'k'))))");
  EXPECT_EQ(Sexp("f'{a != b}'"), "(FString (Field (Compare != a b)))");
}

TEST(ParserFString, FieldSpansPointIntoTheFile) {
  EXPECT_EQ(Parse("s = f'ab{ x }'\n"),
            "Module\n"
            "  Assign @1:1\n"
            "    Name s @1:1\n"
            "    FString @1:5\n"
            "      Literal 'ab'\n"
            "      Field\n"
            "        Name x @1:11\n");
}

TEST(ParserFString, ReportsMalformedFields) {
  EXPECT_EQ(Errors("f'{}'\n"), "1:3: f-string: empty expression not allowed\n");
  EXPECT_EQ(Errors("f'a}'\n"), "1:4: f-string: single `}` is not allowed\n");
  EXPECT_EQ(Errors("f'{x!z}'\n"),
            "1:6: f-string: invalid conversion character; expected `s`, `r` or `a`\n");
  EXPECT_EQ(Errors("f'{x'\n"), "1:3: f-string: expecting `}`\n");
  EXPECT_EQ(Errors("f'{a:{b:{c}}}'\n"), "1:9: f-string: expressions nested too deeply\n");
  EXPECT_EQ(Errors("f'{a b}'\n"), "1:6: f-string: invalid syntax; perhaps you forgot a comma?\n");
}

TEST(ParserExpr, AdjacentBytesLiteralsConcatenateOnlyWithBytes) {
  EXPECT_EQ(Sexp("b'a' B\"\\x00\" rb'\\n'"), "BytesLit b'a\\x00\\\\n'");
  EXPECT_EQ(Errors("x = b'a' 'b'\n"), "1:5: cannot mix bytes and nonbytes literals\n");
  EXPECT_EQ(Errors("x = 'a' b'b'\n"), "1:5: cannot mix bytes and nonbytes literals\n");
  EXPECT_EQ(Errors("x = f'{1}' b'b'\n"), "1:5: cannot mix bytes and nonbytes literals\n");
}

// ---------------------------------------------------------------------------------------------
// Statements

TEST(ParserStmt, ImportsWithDottedNamesAndAliases) {
  EXPECT_EQ(Parse("import a.b as c, d\n"),
            "Module\n"
            "  Import @1:1\n"
            "    Alias a.b as c @1:8\n"
            "    Alias d @1:18\n");
}

TEST(ParserStmt, FromImportsCountTheirLevel) {
  EXPECT_EQ(Parse("from a.b import c as d, e\n"
                  "from x import (f,\n    g,)\n"
                  "from . import y\n"
                  "from ..m import z\n"),
            "Module\n"
            "  ImportFrom a.b @1:1\n"
            "    Alias c as d @1:17\n"
            "    Alias e @1:25\n"
            "  ImportFrom x @2:1\n"
            "    Alias f @2:16\n"
            "    Alias g @3:5\n"
            "  ImportFrom . @4:1\n"
            "    Alias y @4:15\n"
            "  ImportFrom ..m @5:1\n"
            "    Alias z @5:17\n");
}

TEST(ParserStmt, FunctionWithEveryParameterKind) {
  EXPECT_EQ(Parse("def f(a, b=1, /, c: int = 2, *args, d, e=3, **kw) -> int:\n    pass\n"),
            "Module\n"
            "  FunctionDef f @1:1\n"
            "    Param a (positional-only) @1:7\n"
            "    Param b (positional-only) @1:10\n"
            "      default: IntLit 1 @1:12\n"
            "    Param c @1:18\n"
            "      annotation: Name int @1:21\n"
            "      default: IntLit 2 @1:27\n"
            "    Param *args @1:31\n"
            "    Param d (keyword-only) @1:37\n"
            "    Param e (keyword-only) @1:40\n"
            "      default: IntLit 3 @1:42\n"
            "    Param **kw @1:47\n"
            "    returns: Name int @1:54\n"
            "    body:\n"
            "      Pass @2:5\n");
}

TEST(ParserStmt, DecoratorsMayBeCalls) {
  EXPECT_EQ(Parse("@pl.when(c)\n@functools.partial(jax.jit, static_argnums=0)\ndef f(): pass\n"),
            "Module\n"
            "  FunctionDef f @3:1\n"
            "    decorator: Call @1:2\n"
            "      Attribute .when @1:2\n"
            "        Name pl @1:2\n"
            "      Name c @1:10\n"
            "    decorator: Call @2:2\n"
            "      Attribute .partial @2:2\n"
            "        Name functools @2:2\n"
            "      Attribute .jit @2:20\n"
            "        Name jax @2:20\n"
            "      keyword static_argnums: IntLit 0 @2:44\n"
            "    body:\n"
            "      Pass @3:10\n");
}

TEST(ParserStmt, ElifIsALoneIfInOrelse) {
  EXPECT_EQ(Parse("if a:\n  x\nelif b:\n  y\nelse:\n  z\n"),
            "Module\n"
            "  If @1:1\n"
            "    Name a @1:4\n"
            "    body:\n"
            "      ExprStmt @2:3\n"
            "        Name x @2:3\n"
            "    orelse:\n"
            "      If @3:1\n"
            "        Name b @3:6\n"
            "        body:\n"
            "          ExprStmt @4:3\n"
            "            Name y @4:3\n"
            "        orelse:\n"
            "          ExprStmt @6:3\n"
            "            Name z @6:3\n");
}

TEST(ParserStmt, LoopsWithElseAndBreakContinue) {
  EXPECT_EQ(Parse("for i, j in pairs:\n  break\nelse:\n  pass\nwhile x:\n  continue\n"),
            "Module\n"
            "  For @1:1\n"
            "    Tuple @1:5\n"
            "      Name i @1:5\n"
            "      Name j @1:8\n"
            "    Name pairs @1:13\n"
            "    body:\n"
            "      Break @2:3\n"
            "    orelse:\n"
            "      Pass @4:3\n"
            "  While @5:1\n"
            "    Name x @5:7\n"
            "    body:\n"
            "      Continue @6:3\n");
}

TEST(ParserStmt, TryWithHandlersElseAndFinally) {
  EXPECT_EQ(Parse("try:\n  a\nexcept (A, B) as e:\n  raise X from e\nexcept:\n  raise\n"
                  "else:\n  b\nfinally:\n  c\n"),
            "Module\n"
            "  Try @1:1\n"
            "    body:\n"
            "      ExprStmt @2:3\n"
            "        Name a @2:3\n"
            "    ExceptHandler as e @3:1\n"
            "      type: Tuple @3:8\n"
            "        Name A @3:9\n"
            "        Name B @3:12\n"
            "      body:\n"
            "        Raise @4:3\n"
            "          Name X @4:9\n"
            "          from: Name e @4:16\n"
            "    ExceptHandler @5:1\n"
            "      body:\n"
            "        Raise @6:3\n"
            "    orelse:\n"
            "      ExprStmt @8:3\n"
            "        Name b @8:3\n"
            "    finalbody:\n"
            "      ExprStmt @10:3\n"
            "        Name c @10:3\n");
}

TEST(ParserStmt, SemicolonsSeparateSimpleStatementsAndBodiesMayShareTheHeaderLine) {
  EXPECT_EQ(Parse("if x: a = 1; pass;\n"),
            "Module\n"
            "  If @1:1\n"
            "    Name x @1:4\n"
            "    body:\n"
            "      Assign @1:7\n"
            "        Name a @1:7\n"
            "        IntLit 1 @1:11\n"
            "      Pass @1:14\n");
}

TEST(ParserStmt, ChainedAndUnpackingAssignments) {
  EXPECT_EQ(Parse("a = b = 1\nx, *y = [p, q] = z\no.attr[i] = 2\n"),
            "Module\n"
            "  Assign @1:1\n"
            "    Name a @1:1\n"
            "    Name b @1:5\n"
            "    IntLit 1 @1:9\n"
            "  Assign @2:1\n"
            "    Tuple @2:1\n"
            "      Name x @2:1\n"
            "      Starred @2:4\n"
            "        Name y @2:5\n"
            "    List @2:9\n"
            "      Name p @2:10\n"
            "      Name q @2:13\n"
            "    Name z @2:18\n"
            "  Assign @3:1\n"
            "    Subscript @3:1\n"
            "      Attribute .attr @3:1\n"
            "        Name o @3:1\n"
            "      Name i @3:8\n"
            "    IntLit 2 @3:13\n");
}

TEST(ParserStmt, AllThirteenAugmentedAssignments) {
  std::string source;
  for (const char* op :
       {"+=", "-=", "*=", "@=", "/=", "//=", "%=", "**=", "<<=", ">>=", "|=", "^=", "&="}) {
    source += std::string("x ") + op + " 1\n";
  }
  std::string printed = Parse(source);
  for (const char* op :
       {"+=", "-=", "*=", "@=", "/=", "//=", "%=", "**=", "<<=", ">>=", "|=", "^=", "&="}) {
    EXPECT_NE(printed.find(std::string("AugAssign ") + op + " @"), std::string::npos) << op;
  }
}

TEST(ParserStmt, AnnotatedAssignmentWithAndWithoutValue) {
  EXPECT_EQ(Parse("x: int = 1\ny: list\n"),
            "Module\n"
            "  AnnAssign @1:1\n"
            "    Name x @1:1\n"
            "    annotation: Name int @1:4\n"
            "    IntLit 1 @1:10\n"
            "  AnnAssign @2:1\n"
            "    Name y @2:1\n"
            "    annotation: Name list @2:4\n");
}

TEST(ParserStmt, SmallStatements) {
  EXPECT_EQ(Parse("assert x, 'm'\ndel a, b[0]\nglobal g, h\ndef f():\n  nonlocal n\n  return\n"),
            "Module\n"
            "  Assert @1:1\n"
            "    Name x @1:8\n"
            "    msg: StrLit 'm' @1:11\n"
            "  Delete @2:1\n"
            "    Name a @2:5\n"
            "    Subscript @2:8\n"
            "      Name b @2:8\n"
            "      IntLit 0 @2:10\n"
            "  Global g, h @3:1\n"
            "  FunctionDef f @4:1\n"
            "    body:\n"
            "      Nonlocal n @5:3\n"
            "      Return @6:3\n");
}

// ---------------------------------------------------------------------------------------------
// Spans

TEST(ParserSpans, CoverTheWholeConstruct) {
  SourceManager sources;
  std::string text = "def f(x):\n    return g(x, 1) + x.y[2]\n";
  FileId id = sources.Add("t.py", text);
  DiagnosticSink sink;
  Module module = ParseModule(sources.Get(id), id, sink);
  ASSERT_FALSE(sink.HasErrors());
  const Stmt& def = *module.body[0];
  EXPECT_EQ(sources.Text(def.span), "def f(x):");
  const auto& ret = std::get<Return>(std::get<FunctionDef>(def.node).body[0]->node);
  EXPECT_EQ(sources.Text(ret.value->span), "g(x, 1) + x.y[2]");
  const auto& sum = std::get<BinOp>(ret.value->node);
  EXPECT_EQ(sources.Text(sum.left->span), "g(x, 1)");
  EXPECT_EQ(sources.Text(sum.right->span), "x.y[2]");
  EXPECT_EQ(sources.Text(std::get<Call>(sum.left->node).args[1].span), "1");
}

TEST(ParserSpans, ParenthesesBelongToTheExpression) {
  SourceManager sources;
  FileId id = sources.Add("t.py", "x = (a + b) * c\n");
  DiagnosticSink sink;
  Module module = ParseModule(sources.Get(id), id, sink);
  const auto& assign = std::get<Assign>(module.body[0]->node);
  EXPECT_EQ(sources.Text(std::get<BinOp>(assign.value->node).left->span), "(a + b)");
  EXPECT_EQ(sources.Text(module.body[0]->span), "x = (a + b) * c");
}

// ---------------------------------------------------------------------------------------------
// Printer and the expression entry point

TEST(AstPrinter, PrintsASmallProgram) {
  EXPECT_EQ(Parse("import jax.numpy as jnp\n"
                  "\n"
                  "def add(x_ref, o_ref, *, scale=2.0):\n"
                  "    o_ref[...] = x_ref[:, 0] * scale  # comment\n"
                  "    print(f\"{scale:.1f}\")\n"),
            "Module\n"
            "  Import @1:1\n"
            "    Alias jax.numpy as jnp @1:8\n"
            "  FunctionDef add @3:1\n"
            "    Param x_ref @3:9\n"
            "    Param o_ref @3:16\n"
            "    Param scale (keyword-only) @3:26\n"
            "      default: FloatLit 2 @3:32\n"
            "    body:\n"
            "      Assign @4:5\n"
            "        Subscript @4:5\n"
            "          Name o_ref @4:5\n"
            "          EllipsisLit @4:11\n"
            "        BinOp * @4:18\n"
            "          Subscript @4:18\n"
            "            Name x_ref @4:18\n"
            "            Tuple @4:24\n"
            "              Slice @4:24\n"
            "              IntLit 0 @4:27\n"
            "          Name scale @4:32\n"
            "      ExprStmt @5:5\n"
            "        Call @5:5\n"
            "          Name print @5:5\n"
            "          FString @5:11\n"
            "            Field\n"
            "              Name scale @5:14\n"
            "              spec: FString @5:20\n"
            "                Literal '.1f'\n");
}

TEST(ParseExpression, ReturnsNullOnErrors) {
  SourceManager sources;
  FileId id = sources.Add("t.py", "a + ");
  DiagnosticSink sink;
  EXPECT_EQ(ParseExpression(sources.Get(id), id, 0, 4, sink), nullptr);
  EXPECT_EQ(sink.ErrorCount(), 1);
}

TEST(ParseExpression, ParsesASubRangeWithFileSpans) {
  SourceManager sources;
  FileId id = sources.Add("t.py", "xx = a.b\n");
  DiagnosticSink sink;
  ExprPtr expr = ParseExpression(sources.Get(id), id, 5, 8, sink);
  ASSERT_NE(expr, nullptr);
  EXPECT_EQ(PrintExpr(*expr, sources), "Attribute .b @1:6\n  Name a @1:6\n");
}

}  // namespace
}  // namespace pz::lang

// Parser tests of malformed input: error messages with their line:col and hints, recovery (one
// error per broken line, no cascades), and the nesting limit.
#include <gtest/gtest.h>

#include <string>

#include "parse_helpers.h"

namespace pz::lang {
namespace {

using testing::Errors;
using testing::Parse;

// ---------------------------------------------------------------------------------------------
// Errors

TEST(ParserErrors, AssignmentInConditionSuggestsEquality) {
  EXPECT_EQ(Errors("if x = 1:\n    pass\n"),
            "1:6: invalid syntax; `=` is assignment, did you mean `==`?\n");
}

TEST(ParserErrors, MissingColonAfterCondition) {
  EXPECT_EQ(Errors("if x == 1\n    pass\n"), "1:10: expected `:` after the `if` condition\n");
  EXPECT_EQ(Errors("while x\n    pass\n"), "1:8: expected `:` after the `while` condition\n");
}

TEST(ParserErrors, InvalidAssignmentTargets) {
  EXPECT_EQ(Errors("f() = 1\n"), "1:1: cannot assign to function call\n");
  EXPECT_EQ(Errors("1 = x\n"), "1:1: cannot assign to literal\n");
  EXPECT_EQ(Errors("a, b + 1 = x\n"), "1:4: cannot assign to expression\n");
  EXPECT_EQ(Errors("for f() in x: pass\n"), "1:5: cannot assign to function call\n");
  EXPECT_EQ(Errors("del f()\n"), "1:5: cannot delete function call\n");
  EXPECT_EQ(Errors("*a = b\n"), "1:1: starred assignment target must be in a list or tuple\n");
  EXPECT_EQ(Errors("a, *b, *c = d\n"), "1:8: multiple starred expressions in assignment\n");
}

TEST(ParserErrors, InvalidAugmentedAssignmentTarget) {
  EXPECT_EQ(Errors("a, b += 1\n"),
            "1:1: invalid target for augmented assignment; `+=` needs a name, attribute or "
            "subscript on its left\n");
}

TEST(ParserErrors, ExpectedIndentedBlockNamesTheHeaderLine) {
  EXPECT_EQ(Errors("x = 1\n\n\ndef f():\nreturn 1\n"),
            "5:1: expected an indented block after `def` on line 4\n");
  EXPECT_EQ(Errors("for x in y:\n"), "2:1: expected an indented block after `for` on line 1\n");
}

TEST(ParserErrors, UnexpectedIndent) {
  EXPECT_EQ(Errors("x = 1\n    y = 2\n"), "2:5: unexpected indent\n");
}

TEST(ParserErrors, ArgumentOrder) {
  EXPECT_EQ(Errors("f(a=1, b)\n"), "1:8: positional argument follows keyword argument\n");
  EXPECT_EQ(Errors("f(**a, b)\n"), "1:8: positional argument follows keyword argument unpacking\n");
  EXPECT_EQ(Errors("f(**a, *b)\n"),
            "1:8: iterable argument unpacking follows keyword argument unpacking\n");
  EXPECT_EQ(Errors("f(a=1, a=2)\n"), "1:8: keyword argument repeated: `a`\n");
  EXPECT_EQ(Errors("f(x for x in y, 1)\n"), "1:3: generator expression must be parenthesized\n");
  EXPECT_EQ(Errors("f(a.b=1)\n"),
            "1:3: expression cannot contain assignment; did you mean `==`?\n");
  EXPECT_EQ(Parse("f(a=1, *b, c=2, **d, e=3)\n").find("error"), std::string::npos);
}

TEST(ParserErrors, ParameterOrder) {
  EXPECT_EQ(Errors("def f(a=1, b): pass\n"),
            "1:12: non-default parameter follows default parameter\n");
  EXPECT_EQ(Errors("def f(a, a): pass\n"),
            "1:10: duplicate parameter `a` in function definition\n");
  EXPECT_EQ(Errors("def f(*): pass\n"), "1:7: named parameters must follow bare `*`\n");
  EXPECT_EQ(Errors("def f(/, a): pass\n"), "1:7: at least one parameter must precede `/`\n");
  EXPECT_EQ(Errors("def f(**k, a): pass\n"), "1:12: parameters cannot follow the `**` parameter\n");
  EXPECT_EQ(Errors("lambda *, a=1, b: 0\n"), "");  // keyword-only may skip defaults
}

TEST(ParserErrors, ReturnBreakAndContinueNeedTheirContext) {
  EXPECT_EQ(Errors("return 1\n"), "1:1: `return` outside function\n");
  EXPECT_EQ(Errors("break\n"), "1:1: `break` outside loop\n");
  EXPECT_EQ(Errors("if x:\n  continue\n"), "2:3: `continue` outside loop\n");
  EXPECT_EQ(Errors("for x in y:\n  def f():\n    break\n"), "3:5: `break` outside loop\n");
  EXPECT_EQ(Errors("for x in y:\n  pass\nelse:\n  break\n"), "4:3: `break` outside loop\n");
  EXPECT_EQ(Errors("def f():\n  while 1:\n    if x: break\n  return\n"), "");
}

TEST(ParserErrors, UnclosedBracketIsReportedOnceByTheLexer) {
  EXPECT_EQ(Errors("x = f(1,\ny = 2\n"), "1:6: `(` was never closed\n");
}

TEST(ParserErrors, NothingMoreToSayAtTheEndOfAnUnclosedBracket) {
  EXPECT_EQ(Errors("blocks = [\n    (0, 0),\n    (0, 1),\n"), "1:10: `[` was never closed\n");
  EXPECT_EQ(Errors("f'{g(}'\n"), "1:3: f-string: expecting `}`\n");
}

TEST(ParserErrors, KeywordsCannotBeAssigned) {
  EXPECT_EQ(Errors("lambda = 0.5\n"),
            "1:1: `lambda` is a keyword and cannot be used as a name; choose another\n");
  EXPECT_EQ(Errors("class += 1\n"),
            "1:1: `class` is a keyword and cannot be used as a name; choose another\n");
  EXPECT_EQ(Errors("f(x, in=2)\n"),
            "1:6: `in` is a keyword and cannot be used as a name; choose another\n");
  EXPECT_EQ(Errors("None = 1\n"), "1:1: cannot assign to None\n");
}

TEST(ParserErrors, ForgottenCommaInsideBrackets) {
  EXPECT_EQ(Errors("x = [1, 2 3]\n"), "1:11: invalid syntax; perhaps you forgot a comma?\n");
  EXPECT_EQ(Errors("print('a' b)\n"), "1:11: invalid syntax; perhaps you forgot a comma?\n");
}

TEST(ParserErrors, ExpectedAnExpression) {
  EXPECT_EQ(Errors("x = \n"), "1:4: expected an expression\n");
  EXPECT_EQ(Errors("x = 1 + )\n"), "1:9: unmatched `)`\n");  // the lexer's, reported once
  EXPECT_EQ(Errors("x = (1 + )\n"), "1:10: expected an expression\n");
}

TEST(ParserErrors, ClassWithAndWalrusParse) {
  EXPECT_EQ(
      Errors("@deco\nclass A(B, *more, metaclass=M):\n  x: int = 1\n  def f(self): return 1\n"),
      "");
  EXPECT_EQ(Errors("with a as x, b:\n  pass\nwith (a as x, b as y):\n  pass\n"), "");
  EXPECT_EQ(Errors("with (a if c else b) as z:\n  pass\n"), "");
  EXPECT_EQ(Errors("if (n := 1): pass\nys = [y for x in xs if (y := x)]\n"), "");
  EXPECT_EQ(Errors("class A:\n  return 1\n"), "2:3: `return` outside function\n");
  EXPECT_EQ(Errors("with a as f():\n  pass\n"), "1:11: cannot assign to function call\n");
}

TEST(ParserErrors, UnsupportedConstructsSaySo) {
  EXPECT_EQ(Errors("def g():\n  yield 1\n"),
            "2:3: `yield` is not supported in puzzle files; the course never needs generators\n");
  EXPECT_EQ(Errors("async def f(): pass\n"),
            "1:1: `async` is not supported in puzzle files; the course never needs it\n");
  EXPECT_EQ(Errors("x = await y\n"),
            "1:5: `await` is not supported in puzzle files; the course never needs it\n");
}

TEST(ParserErrors, StarredExpressionsOnlyInDisplaysAndTargets) {
  EXPECT_EQ(Errors("x = *a\n"), "1:5: cannot use starred expression here\n");
  EXPECT_EQ(Errors("x = *a,\n"), "");
  EXPECT_EQ(Errors("print(*a)\n"), "");
}

TEST(ParserErrors, OrphanClauses) {
  EXPECT_EQ(Errors("x = 1\nelse:\n  pass\n"),
            "2:1: `else` without a matching `if`, `for`, `while` or `try`; check the indentation "
            "of this line\n");
  EXPECT_EQ(Errors("try:\n  pass\nx = 1\n"),
            "1:1: expected `except` or `finally` block after `try`\n");
}

TEST(ParserErrors, PrintStatementGetsAHint) {
  EXPECT_EQ(Errors("print 'hello'\n"),
            "1:1: missing parentheses in call to `print`; did you mean `print(...)`?\n");
}

TEST(ParserErrors, LexerErrorsAreNotReportedAgain) {
  EXPECT_EQ(Errors("x = 1 $ 2\n"), "1:7: invalid character `$`\n");
  EXPECT_EQ(Errors("x = = 1 $\ny = = 2\n"),
            "1:9: invalid character `$`\n2:5: expected an expression\n");
}

// ---------------------------------------------------------------------------------------------
// Recovery

TEST(ParserRecovery, ReportsOneErrorPerBrokenLine) {
  EXPECT_EQ(Errors("x = = 1\n"
                   "y = 2\n"
                   "f() = 3\n"
                   "def g(x y):\n"
                   "    return 1\n"
                   "z = 1 +\n"),
            "1:5: expected an expression\n"
            "3:1: cannot assign to function call\n"
            "4:9: invalid syntax; perhaps you forgot a comma?\n"
            "6:8: expected an expression\n");
}

TEST(ParserRecovery, ClausesOfAFailedStatementDoNotCascade) {
  EXPECT_EQ(Errors("if x = 1:\n"
                   "    pass\n"
                   "elif y:\n"
                   "    pass\n"
                   "else:\n"
                   "    pass\n"
                   "for i in range(3) x:\n"
                   "    break\n"),
            "1:6: invalid syntax; `=` is assignment, did you mean `==`?\n"
            "7:19: expected `:` after `for ... in ...`\n");
}

TEST(ParserRecovery, ErrorsInsideBlocksKeepTheEnclosingStatement) {
  EXPECT_EQ(Errors("def f():\n"
                   "    x = (1,\n"
                   "    y = )\n"
                   "    return 2\n"
                   "break\n"),
            "3:7: invalid syntax; `=` is assignment, did you mean `==`?\n"
            "5:1: `break` outside loop\n");
}

TEST(ParserRecovery, StopsAtOneErrorPerLine) {
  EXPECT_EQ(Errors("f(a=1, b) = f(**c, d)\n"),
            "1:8: positional argument follows keyword argument\n");
}

// ---------------------------------------------------------------------------------------------
// Nesting limit

std::string Nested(int depth) {
  return "x = " + std::string(depth, '(') + "1" + std::string(depth, ')') + "\n";
}

TEST(ParserNesting, AllowsTwoHundredLevels) { EXPECT_EQ(Errors(Nested(200)), ""); }

TEST(ParserNesting, ReportsOneErrorPastTheLimit) {
  EXPECT_EQ(Errors(Nested(201)), "1:205: too many nested parentheses / expressions (limit 200)\n");
}

TEST(ParserNesting, DeepInputNeverOverflowsTheStack) {
  EXPECT_EQ(Errors(Nested(100000)),
            "1:205: too many nested parentheses / expressions (limit 200)\n");
  EXPECT_EQ(Errors("x = " + std::string(100000, '-') + "1\n"),
            "1:205: too many nested parentheses / expressions (limit 200)\n");
  std::string chain = "x = 1";
  for (int i = 0; i < 50000; ++i) chain += "+1";
  EXPECT_NE(Errors(chain + "\n").find("too many nested"), std::string::npos);
  std::string blocks;
  for (int i = 0; i < 300; ++i) blocks += std::string(i, ' ') + "if x:\n";
  blocks += std::string(300, ' ') + "pass\n";
  EXPECT_NE(Errors(blocks).find("too many nested"), std::string::npos);
}

}  // namespace
}  // namespace pz::lang

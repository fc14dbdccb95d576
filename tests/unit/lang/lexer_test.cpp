// Unit tests of the lexer (lang/lexer.h) and the token table (lang/token.h). Token streams are
// compared as compact strings (`NAME(x) = INT(1) NEWLINE END`); errors as `line:col: message`.
#include "lang/lexer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "lang/escapes.h"

namespace pz::lang {
namespace {

// "NAME(x) = INT(1) NEWLINE END": layout tokens in capitals, literals with their text, everything
// else by its spelling.
std::string Render(const std::vector<Token>& tokens) {
  std::string out;
  for (const Token& token : tokens) {
    if (!out.empty()) out += ' ';
    if (token.kind == TokenKind::kName) {
      out += "NAME(" + token.text + ")";
    } else if (token.kind == TokenKind::kInt) {
      out += "INT(" + token.text + ")";
    } else if (token.kind == TokenKind::kFloat) {
      out += "FLOAT(" + token.text + ")";
    } else if (token.kind == TokenKind::kString) {
      out += (token.string_flags.fstring ? "FSTRING(" : "STRING(") + token.text + ")";
    } else if (token.kind == TokenKind::kError) {
      out += "ERROR";
    } else if (token.kind == TokenKind::kNewline) {
      out += "NEWLINE";
    } else if (token.kind == TokenKind::kIndent) {
      out += "INDENT";
    } else if (token.kind == TokenKind::kDedent) {
      out += "DEDENT";
    } else if (token.kind == TokenKind::kEnd) {
      out += "END";
    } else {
      out += Spelling(token.kind);
    }
  }
  return out;
}

// One lexed file: its tokens and the diagnostics they produced.
struct Lexed {
  explicit Lexed(std::string text) : file("test.py", std::move(text)) {
    tokens = Tokenize(file, FileId{0}, sink);
  }

  std::string Tokens() const { return Render(tokens); }
  // "line:col: message" per diagnostic, joined by " | ".
  std::string Errors() const {
    std::string out;
    for (const Diagnostic& diagnostic : sink.diagnostics()) {
      if (!out.empty()) out += " | ";
      LineCol at = file.Locate(diagnostic.span->begin);
      out += std::to_string(at.line) + ":" + std::to_string(at.col) + ": " + diagnostic.message;
    }
    return out;
  }

  SourceFile file;
  DiagnosticSink sink;
  std::vector<Token> tokens;
};

// Tokens of `text`, which must lex without errors.
std::string Tokens(std::string text) {
  Lexed lexed(std::move(text));
  EXPECT_EQ(lexed.Errors(), "");
  return lexed.Tokens();
}

std::string Errors(std::string text) { return Lexed(std::move(text)).Errors(); }

// The only token of a one-literal file (tokens: literal NEWLINE END).
Token Single(std::string text) {
  Lexed lexed(std::move(text));
  EXPECT_EQ(lexed.Errors(), "");
  EXPECT_EQ(lexed.tokens.size(), 3u) << lexed.Tokens();
  return lexed.tokens.empty() ? Token{} : lexed.tokens[0];
}

std::string Decoded(std::string_view body) {
  std::string out;
  std::string error;
  EXPECT_TRUE(DecodeEscapes(body, out, error)) << error;
  return out;
}

std::string DecodeError(std::string_view body) {
  std::string out;
  std::string error;
  EXPECT_FALSE(DecodeEscapes(body, out, error));
  return error;
}

TEST(Token, SpellingComesFromTheTable) {
  EXPECT_EQ(Spelling(TokenKind::kEnd), "end of file");
  EXPECT_EQ(Spelling(TokenKind::kDef), "def");
  EXPECT_EQ(Spelling(TokenKind::kRParen), ")");
  EXPECT_EQ(Spelling(TokenKind::kDoubleStarAssign), "**=");
}

TEST(Token, KeywordOrNameFindsEveryKeywordAndNothingElse) {
  for (int k = static_cast<int>(TokenKind::kFalse); k <= static_cast<int>(TokenKind::kYield); ++k) {
    auto kind = static_cast<TokenKind>(k);
    EXPECT_EQ(KeywordOrName(Spelling(kind)), kind) << Spelling(kind);
  }
  EXPECT_EQ(KeywordOrName("match"), TokenKind::kName);
  EXPECT_EQ(KeywordOrName("Def"), TokenKind::kName);
  EXPECT_EQ(KeywordOrName("name"), TokenKind::kName);
  EXPECT_EQ(KeywordOrName("("), TokenKind::kName);
  EXPECT_EQ(KeywordOrName(""), TokenKind::kName);
}

TEST(Lexer, TokenizesASimpleAssignment) {
  EXPECT_EQ(Tokens("x = 1\n"), "NAME(x) = INT(1) NEWLINE END");
}

TEST(Lexer, AddsNewlineWhenTheFileLacksOne) {
  EXPECT_EQ(Tokens("x = 1"), "NAME(x) = INT(1) NEWLINE END");
}

TEST(Lexer, EmptyAndBlankFilesAreJustEnd) {
  EXPECT_EQ(Tokens(""), "END");
  EXPECT_EQ(Tokens("\n\n   \n# only a comment\n\t\n"), "END");
}

TEST(Lexer, EmitsIndentAndDedentForNestedBlocks) {
  EXPECT_EQ(Tokens("if a:\n  if b:\n    c\n  d\ne\n"),
            "if NAME(a) : NEWLINE INDENT if NAME(b) : NEWLINE INDENT NAME(c) NEWLINE DEDENT "
            "NAME(d) NEWLINE DEDENT NAME(e) NEWLINE END");
}

TEST(Lexer, ClosesOpenBlocksAtEndOfFile) {
  EXPECT_EQ(Tokens("def f():\n  while x:\n    pass"),
            "def NAME(f) ( ) : NEWLINE INDENT while NAME(x) : NEWLINE INDENT pass NEWLINE DEDENT "
            "DEDENT END");
}

TEST(Lexer, DedentsSeveralLevelsAtOnce) {
  EXPECT_EQ(Tokens("if a:\n if b:\n  c\nd\n"),
            "if NAME(a) : NEWLINE INDENT if NAME(b) : NEWLINE INDENT NAME(c) NEWLINE DEDENT "
            "DEDENT NAME(d) NEWLINE END");
}

TEST(Lexer, BlankAndCommentLinesNeverProduceLayoutTokens) {
  EXPECT_EQ(Tokens("if a:\n\n        # deep comment\n  b\n# shallow comment\n   \n  c\n"),
            "if NAME(a) : NEWLINE INDENT NAME(b) NEWLINE NAME(c) NEWLINE DEDENT END");
}

TEST(Lexer, TabsAdvanceToTheNextMultipleOfEight) {
  // One tab and "  \t" are both 8 columns wide, so b and c sit in one block.
  Lexed lexed("if a:\n\tb\n  \tc\n");
  EXPECT_EQ(lexed.Tokens(),
            "if NAME(a) : NEWLINE INDENT NAME(b) NEWLINE NAME(c) NEWLINE DEDENT END");
  // ... but they differ when tabs count as one column, which CPython rejects.
  EXPECT_EQ(lexed.Errors(), "3:1: inconsistent use of tabs and spaces in indentation");
  EXPECT_EQ(Tokens("if a:\n\tb\n\tif c:\n\t\td\n"),
            "if NAME(a) : NEWLINE INDENT NAME(b) NEWLINE if NAME(c) : NEWLINE INDENT NAME(d) "
            "NEWLINE DEDENT DEDENT END");
}

TEST(Lexer, InconsistentDedentIsAnErrorAtThatLine) {
  Lexed lexed("if a:\n    b\n  c\nd\n");
  EXPECT_EQ(lexed.Errors(), "3:1: unindent does not match any outer indentation level");
  // The stream stays balanced: one INDENT, one DEDENT.
  EXPECT_EQ(lexed.Tokens(),
            "if NAME(a) : NEWLINE INDENT NAME(b) NEWLINE DEDENT NAME(c) NEWLINE NAME(d) NEWLINE "
            "END");
  const Diagnostic& diagnostic = lexed.sink.diagnostics()[0];
  EXPECT_EQ(diagnostic.span->begin, 12u);
  EXPECT_EQ(diagnostic.span->end, 14u);
}

TEST(Lexer, FormFeedResetsTheIndentationCount) {
  EXPECT_EQ(Tokens("\fx = 1\n"), "NAME(x) = INT(1) NEWLINE END");
  EXPECT_EQ(Tokens("if a:\n  b\n    \f  c\n"),
            "if NAME(a) : NEWLINE INDENT NAME(b) NEWLINE NAME(c) NEWLINE DEDENT END");
}

TEST(Lexer, JoinsLinesInsideBrackets) {
  EXPECT_EQ(Tokens("x = (1,\n     2)\ny = [\n  3,\n]\nz = {\n}\n"),
            "NAME(x) = ( INT(1) , INT(2) ) NEWLINE NAME(y) = [ INT(3) , ] NEWLINE NAME(z) = { } "
            "NEWLINE END");
}

TEST(Lexer, IgnoresIndentationInsideBrackets) {
  EXPECT_EQ(Tokens("def f(\n        a,\n  # comment\n):\n  pass\n"),
            "def NAME(f) ( NAME(a) , ) : NEWLINE INDENT pass NEWLINE DEDENT END");
}

TEST(Lexer, BackslashJoinsLines) {
  EXPECT_EQ(Tokens("x = 1 + \\\n        2\ny\n"),
            "NAME(x) = INT(1) + INT(2) NEWLINE NAME(y) NEWLINE END");
}

TEST(Lexer, BackslashNotFollowedByNewlineIsAnError) {
  Lexed lexed("x = 1 \\ y\n");
  EXPECT_EQ(lexed.Errors(), "1:7: unexpected character after line continuation `\\`");
  EXPECT_EQ(lexed.Tokens(), "NAME(x) = INT(1) ERROR NAME(y) NEWLINE END");
}

TEST(Lexer, BackslashFollowedBySpacesGetsAHint) {
  EXPECT_EQ(Errors("x = 1 \\  \ny\n"),
            "1:7: unexpected character after line continuation `\\`; remove the whitespace "
            "after it");
}

TEST(Lexer, BackslashAtEndOfFileIsAnError) {
  EXPECT_EQ(Errors("x = 1 \\"), "1:7: unexpected end of file after line continuation `\\`");
  EXPECT_EQ(Errors("x = 1 \\\n"), "1:7: unexpected end of file after line continuation `\\`");
}

TEST(Lexer, UnmatchedClosingBracketIsAnError) {
  Lexed lexed("x = 1)\ny = 2\n");
  EXPECT_EQ(lexed.Errors(), "1:6: unmatched `)`");
  EXPECT_EQ(lexed.Tokens(), "NAME(x) = INT(1) ERROR NEWLINE NAME(y) = INT(2) NEWLINE END");
}

TEST(Lexer, MismatchedClosingBracketIsAnErrorWithANoteAtTheOpener) {
  Lexed lexed("x = (1]\ny\n");
  EXPECT_EQ(lexed.Errors(), "1:7: closing `]` does not match opening `(`");
  const Diagnostic& diagnostic = lexed.sink.diagnostics()[0];
  ASSERT_EQ(diagnostic.notes.size(), 1u);
  EXPECT_EQ(diagnostic.notes[0].message, "`(` opened here");
  EXPECT_EQ(diagnostic.notes[0].span->begin, 4u);
  // The mismatched closer still closes the bracket, so the next line is a new statement.
  EXPECT_EQ(lexed.Tokens(), "NAME(x) = ( INT(1) ERROR NEWLINE NAME(y) NEWLINE END");
}

TEST(Lexer, UnclosedBracketPointsAtTheOpeningBracket) {
  Lexed lexed("x = (1,\n  [2,\ny = 3\n");
  EXPECT_EQ(lexed.Errors(), "2:3: `[` was never closed");
  EXPECT_EQ(lexed.Tokens(), "NAME(x) = ( INT(1) , [ INT(2) , NAME(y) = INT(3) NEWLINE END");
}

TEST(Lexer, CommentsRunToEndOfLine) {
  EXPECT_EQ(Tokens("x = 1  # a comment with ( and \" and \\\ny  #\n"),
            "NAME(x) = INT(1) NEWLINE NAME(y) NEWLINE END");
}

TEST(Lexer, NewlineSitsAtTheEndOfTheLastToken) {
  Lexed lexed("if x   # why\n");
  ASSERT_EQ(lexed.tokens[2].kind, TokenKind::kNewline);
  EXPECT_EQ(lexed.tokens[2].span.begin, 4u);
  EXPECT_EQ(lexed.tokens[2].span.end, 4u);
  EXPECT_EQ(lexed.tokens[3].span.begin, 13u);  // END at the end of the file
}

TEST(Lexer, DecimalIntegersCarryTheirValue) {
  Token token = Single("1_000_000");
  EXPECT_EQ(token.kind, TokenKind::kInt);
  EXPECT_EQ(token.text, "1_000_000");
  EXPECT_EQ(token.int_value, 1000000);
  EXPECT_EQ(Single("0").int_value, 0);
  EXPECT_EQ(Single("00").int_value, 0);
  EXPECT_EQ(Single("9223372036854775807").int_value, INT64_MAX);
}

TEST(Lexer, RadixPrefixesParseInAnyCase) {
  EXPECT_EQ(Single("0x1F").int_value, 31);
  EXPECT_EQ(Single("0XfF").int_value, 255);
  EXPECT_EQ(Single("0x_ff").int_value, 255);
  EXPECT_EQ(Single("0o17").int_value, 15);
  EXPECT_EQ(Single("0O7_7").int_value, 63);
  EXPECT_EQ(Single("0b1010").int_value, 10);
  EXPECT_EQ(Single("0B1_1").int_value, 3);
}

TEST(Lexer, FloatsInEveryForm) {
  EXPECT_EQ(Tokens("1. .5 1e-3 1_0.5e+2 2E5 0.0 012.5 1.e2"),
            "FLOAT(1.) FLOAT(.5) FLOAT(1e-3) FLOAT(1_0.5e+2) FLOAT(2E5) FLOAT(0.0) FLOAT(012.5) "
            "FLOAT(1.e2) NEWLINE END");
  EXPECT_DOUBLE_EQ(Single("1.").float_value, 1.0);
  EXPECT_DOUBLE_EQ(Single(".5").float_value, 0.5);
  EXPECT_DOUBLE_EQ(Single("1e-3").float_value, 1e-3);
  EXPECT_DOUBLE_EQ(Single("1_0.5e+2").float_value, 1050.0);
  EXPECT_DOUBLE_EQ(Single("012.5").float_value, 12.5);
}

TEST(Lexer, FloatsOutOfRangeBecomeInfinityOrZero) {
  EXPECT_TRUE(std::isinf(Single("1e999").float_value));
  EXPECT_EQ(Single("1e-999").float_value, 0.0);
  EXPECT_TRUE(std::isinf(Single("1" + std::string(400, '0') + ".0").float_value));
  EXPECT_EQ(Single("0." + std::string(400, '0') + "1").float_value, 0.0);
}

TEST(Lexer, ComplexNumbersAreNotSupported) {
  Lexed lexed("x = 1j + 2.5J\n");
  EXPECT_EQ(lexed.Errors(),
            "1:5: complex numbers are not supported | 1:10: complex numbers are not supported");
  EXPECT_EQ(lexed.Tokens(), "NAME(x) = ERROR + ERROR NEWLINE END");
}

TEST(Lexer, IntegersAboveInt64MaxAreAnError) {
  EXPECT_EQ(Errors("x = 9223372036854775808\n"),
            "1:5: integer literal too large; integers are 64-bit here");
  EXPECT_EQ(Errors("0xFFFFFFFFFFFFFFFF"),
            "1:1: integer literal too large; integers are 64-bit here");
  EXPECT_EQ(Errors(std::string(1000, '7')),
            "1:1: integer literal too large; integers are 64-bit here");
}

TEST(Lexer, LeadingZerosInDecimalIntegersAreAnError) {
  EXPECT_EQ(Errors("x = 012\n"),
            "1:5: leading zeros in decimal integer literals are not permitted; use an `0o` "
            "prefix for octal integers");
}

TEST(Lexer, MalformedNumbersAreErrors) {
  EXPECT_EQ(Errors("1__0"), "1:1: invalid decimal literal; `_` may only appear between digits");
  EXPECT_EQ(Errors("1_"), "1:1: invalid decimal literal; `_` may only appear between digits");
  EXPECT_EQ(Errors("12abc"), "1:1: invalid decimal literal");
  EXPECT_EQ(Errors("1e"), "1:1: invalid decimal literal");
  EXPECT_EQ(Errors("0x"), "1:1: invalid hexadecimal literal");
  EXPECT_EQ(Errors("0xfg"), "1:1: invalid hexadecimal literal");
  EXPECT_EQ(Errors("0b12"), "1:1: invalid digit `2` in binary literal");
  EXPECT_EQ(Errors("0o8"), "1:1: invalid digit `8` in octal literal");
  Lexed lexed("y = 0b12 + 3\n");
  EXPECT_EQ(lexed.Tokens(), "NAME(y) = ERROR + INT(3) NEWLINE END");
  EXPECT_EQ(lexed.tokens[2].span.end, 8u);
}

TEST(Lexer, NumberFollowedByAKeywordEndsBeforeIt) {
  EXPECT_EQ(Tokens("1if x else 2"), "INT(1) if NAME(x) else INT(2) NEWLINE END");
}

TEST(Lexer, DotFollowedByNonDigitIsAnOperator) {
  EXPECT_EQ(Tokens("a.b[1:].c"), "NAME(a) . NAME(b) [ INT(1) : ] . NAME(c) NEWLINE END");
}

TEST(Lexer, StringsInBothQuotesAreDecoded) {
  EXPECT_EQ(Tokens("'a\\tb' \"c\\\"d\" 'it\\'s'"),
            "STRING(a\tb) STRING(c\"d) STRING(it's) NEWLINE END");
  Token token = Single("\"x\"");
  EXPECT_EQ(token.span.begin, 0u);
  EXPECT_EQ(token.span.end, 3u);
  EXPECT_FALSE(token.string_flags.raw || token.string_flags.fstring || token.string_flags.bytes);
}

TEST(Lexer, TripleQuotedStringsSpanLines) {
  Lexed lexed("s = \"\"\"one\n  'two' \"\n\"\"\"\nt = '''x'''\n");
  EXPECT_EQ(lexed.Errors(), "");
  ASSERT_EQ(lexed.tokens[2].kind, TokenKind::kString);
  EXPECT_EQ(lexed.tokens[2].text, "one\n  'two' \"\n");
  EXPECT_EQ(lexed.Tokens(),
            "NAME(s) = STRING(one\n  'two' \"\n) NEWLINE NAME(t) = STRING(x) NEWLINE END");
}

TEST(Lexer, EscapedNewlineInsideAStringContinuesIt) {
  EXPECT_EQ(Tokens("s = 'ab\\\ncd'\n"), "NAME(s) = STRING(abcd) NEWLINE END");
}

TEST(Lexer, RawStringsKeepBackslashes) {
  Token token = Single("r'\\n\\''");
  EXPECT_EQ(token.text, "\\n\\'");
  EXPECT_TRUE(token.string_flags.raw);
}

TEST(Lexer, StringPrefixesWorkInAnyCase) {
  Lexed lexed("R'a' U'b' B'c' rb'd' Br'e' F'f' fR'g' Rf'h'");
  EXPECT_EQ(lexed.Errors(), "");
  ASSERT_EQ(lexed.tokens.size(), 10u);
  auto flags = [&](int i) {
    const StringFlags& f = lexed.tokens[i].string_flags;
    return std::string(f.raw ? "r" : "") + (f.bytes ? "b" : "") + (f.fstring ? "f" : "");
  };
  EXPECT_EQ(flags(0), "r");
  EXPECT_EQ(flags(1), "");
  EXPECT_EQ(flags(2), "b");
  EXPECT_EQ(flags(3), "rb");
  EXPECT_EQ(flags(4), "rb");
  EXPECT_EQ(flags(5), "f");
  EXPECT_EQ(flags(6), "rf");
  EXPECT_EQ(flags(7), "rf");
  EXPECT_EQ(lexed.tokens[3].text, "d");
  EXPECT_EQ(lexed.tokens[3].span.begin, 15u);  // the span includes the prefix
}

TEST(Lexer, BytesLiteralsDecodeNumericEscapesToSingleBytes) {
  Token token = Single("b'\\x00\\xff\\n\\101\\777'");
  EXPECT_EQ(token.kind, TokenKind::kString);
  EXPECT_TRUE(token.string_flags.bytes);
  EXPECT_EQ(token.text, std::string("\x00\xff\nA\xff", 5));  // octal keeps the low 8 bits
  // \u, \U and \N are no escapes in bytes: they stay as written.
  EXPECT_EQ(Single("b'\\u0041\\N{DASH}'").text, "\\u0041\\N{DASH}");
  EXPECT_EQ(Single("rb'\\x00'").text, "\\x00");
}

TEST(Lexer, BytesLiteralsRejectNonAsciiCharactersAndBadEscapes) {
  EXPECT_EQ(Errors("x = b'caf\xc3\xa9'\n"), "1:5: bytes can only contain ASCII literal characters");
  EXPECT_EQ(Errors("x = rb'\xc3\xa9'\n"), "1:5: bytes can only contain ASCII literal characters");
  EXPECT_EQ(Errors("x = b'\\x4'\n"), "1:7: truncated `\\xXX` escape");
}

TEST(Lexer, InvalidPrefixLexesAsANameThenAString) {
  EXPECT_EQ(Tokens("ur'x' bf'y'"), "NAME(ur) STRING(x) NAME(bf) STRING(y) NEWLINE END");
}

TEST(Lexer, FStringKeepsItsRawBodyAndItsOffset) {
  std::string source = "x = f\"a{b!r:>{w}} {c['k']}\\n\"\n";
  Lexed lexed(source);
  EXPECT_EQ(lexed.Errors(), "");
  const Token& token = lexed.tokens[2];
  ASSERT_EQ(token.kind, TokenKind::kString);
  EXPECT_TRUE(token.string_flags.fstring);
  EXPECT_EQ(token.text, "a{b!r:>{w}} {c['k']}\\n");
  EXPECT_EQ(token.body_begin, 6u);
  EXPECT_EQ(source.substr(token.body_begin, token.text.size()), token.text);
  EXPECT_EQ(token.span.begin, 4u);
  EXPECT_EQ(token.span.end, source.size() - 1);
}

TEST(Lexer, TripleQuotedFStringMayContainSingleQuotes) {
  Token token = Single("f'''{a['x']} and \"{b}\"'''");
  EXPECT_EQ(token.text, "{a['x']} and \"{b}\"");
  EXPECT_EQ(token.body_begin, 4u);
}

TEST(Lexer, UnterminatedStringPointsAtTheOpeningQuote) {
  Lexed lexed("x = 'abc\ny = 1\n");
  EXPECT_EQ(lexed.Errors(), "1:5: unterminated string literal");
  EXPECT_EQ(lexed.Tokens(), "NAME(x) = ERROR NEWLINE NAME(y) = INT(1) NEWLINE END");
  EXPECT_EQ(Errors("s = f'{x}\\'"), "1:5: unterminated string literal");
}

TEST(Lexer, UnterminatedTripleQuotedStringPointsAtTheOpeningQuotes) {
  Lexed lexed("x = 1\ny = \"\"\"abc\n\nz = 2\n");
  EXPECT_EQ(lexed.Errors(), "2:5: unterminated triple-quoted string literal");
  EXPECT_EQ(lexed.Tokens(), "NAME(x) = INT(1) NEWLINE NAME(y) = ERROR NEWLINE END");
  EXPECT_EQ(lexed.sink.diagnostics()[0].span->end, 13u);
}

TEST(Lexer, MalformedEscapeIsAnErrorAtTheEscape) {
  Lexed lexed("s = 'ab\\x4'\n");
  EXPECT_EQ(lexed.Errors(), "1:8: truncated `\\xXX` escape");
  EXPECT_EQ(lexed.Tokens(), "NAME(s) = ERROR NEWLINE END");
}

TEST(Lexer, OperatorsUseTheLongestMatch) {
  EXPECT_EQ(Tokens("**= //= >>= <<= ... -> := != ** // >> << <= >= == .. @= %= &= |= ^= ~"),
            "**= //= >>= <<= ... -> := != ** // >> << <= >= == . . @= %= &= |= ^= ~ NEWLINE END");
  EXPECT_EQ(Tokens("a+=b-c*d/e%f@g&h|i^j<k>l;m,n"),
            "NAME(a) += NAME(b) - NAME(c) * NAME(d) / NAME(e) % NAME(f) @ NAME(g) & NAME(h) | "
            "NAME(i) ^ NAME(j) < NAME(k) > NAME(l) ; NAME(m) , NAME(n) NEWLINE END");
}

TEST(Lexer, LoneExclamationMarkIsAnError) {
  Lexed lexed("if !x:\n  pass\n");
  EXPECT_EQ(lexed.Errors(), "1:4: unexpected `!`; use `not` for negation and `!=` for inequality");
  EXPECT_EQ(lexed.Tokens(), "if ERROR NAME(x) : NEWLINE INDENT pass NEWLINE DEDENT END");
}

TEST(Lexer, KeywordsAreRecognised) {
  EXPECT_EQ(Tokens("def f(x): return None if x is not True else lambda: y"),
            "def NAME(f) ( NAME(x) ) : return None if NAME(x) is not True else lambda : NAME(y) "
            "NEWLINE END");
  EXPECT_EQ(Tokens("match = case"), "NAME(match) = NAME(case) NEWLINE END");
}

TEST(Lexer, NamesMayContainUtf8) {
  EXPECT_EQ(Tokens("café = π_2 + _x9"), "NAME(café) = NAME(π_2) + NAME(_x9) NEWLINE END");
  Lexed lexed("a = \xff\xfe\n");  // invalid UTF-8 lexes as a name; the parser decides
  EXPECT_EQ(lexed.Errors(), "");
}

TEST(Lexer, InvalidCharacterIsReportedAndLexingContinues) {
  Lexed lexed("x = $ + 1 ? 2\n");
  EXPECT_EQ(lexed.Errors(), "1:5: invalid character `$` | 1:11: invalid character `?`");
  EXPECT_EQ(lexed.Tokens(), "NAME(x) = ERROR + INT(1) ERROR INT(2) NEWLINE END");
}

TEST(Lexer, RunOfOneInvalidCharacterIsOneError) {
  EXPECT_EQ(Errors("x = $$$"), "1:5: invalid character `$`");
}

TEST(Lexer, NulAndControlBytesAreInvalidCharacters) {
  Lexed lexed(std::string("x = \0\0 + \x01\n", 11));
  EXPECT_EQ(lexed.Errors(),
            "1:5: invalid non-printable character U+0000 | 1:10: invalid non-printable character "
            "U+0001");
  EXPECT_EQ(lexed.Tokens(), "NAME(x) = ERROR + ERROR NEWLINE END");
}

TEST(Lexer, CrlfAndCrLineEndingsWork) {
  std::string expected =
      "if NAME(a) : NEWLINE INDENT NAME(b) = STRING(1\n2) NEWLINE DEDENT NAME(c) NEWLINE END";
  EXPECT_EQ(Tokens("if a:\r\n  b = '''1\r\n2'''\r\n\r\n# c\r\nc\r\n"), expected);
  EXPECT_EQ(Tokens("if a:\r  b = '''1\r2'''\r\r# c\rc\r"), expected);
  EXPECT_EQ(Tokens("x = 1 + \\\r\n  2\r\n"), "NAME(x) = INT(1) + INT(2) NEWLINE END");
  EXPECT_EQ(Errors("x = 1\r\ny = 'a\r\n"), "2:5: unterminated string literal");
}

TEST(Lexer, SkipsAUtf8ByteOrderMark) {
  EXPECT_EQ(Tokens("\xEF\xBB\xBFx = 1\n"), "NAME(x) = INT(1) NEWLINE END");
}

TEST(Lexer, DiagnosticsArePhaseLexErrors) {
  Lexed lexed("x = $\n");
  ASSERT_EQ(lexed.sink.diagnostics().size(), 1u);
  const Diagnostic& diagnostic = lexed.sink.diagnostics()[0];
  EXPECT_EQ(diagnostic.severity, Severity::kError);
  EXPECT_EQ(diagnostic.phase, Phase::kLex);
  EXPECT_EQ(diagnostic.span->begin, 4u);
  EXPECT_EQ(diagnostic.span->end, 5u);
  EXPECT_EQ(lexed.tokens[2].text, "invalid character `$`");
}

TEST(Lexer, TokenizeExpressionTreatsNewlinesAsWhitespace) {
  SourceFile file("t.py", "s = f'''{a +\n  b[1]}'''\n");
  DiagnosticSink sink;
  std::vector<Token> tokens = TokenizeExpression(file, FileId{0}, 9, 19, sink);
  EXPECT_FALSE(sink.HasErrors());
  EXPECT_EQ(Render(tokens), "NAME(a) + NAME(b) [ INT(1) ] END");
  EXPECT_EQ(tokens[0].span.begin, 9u);
  EXPECT_EQ(tokens.back().span.begin, 19u);
}

TEST(Lexer, TokenizeExpressionReportsErrorsAtFileOffsets) {
  SourceFile file("t.py", "s = f'{g(x}'\n");
  DiagnosticSink sink;
  std::vector<Token> tokens = TokenizeExpression(file, FileId{0}, 7, 10, sink);
  EXPECT_EQ(Render(tokens), "NAME(g) ( NAME(x) END");
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_EQ(sink.diagnostics()[0].message, "`(` was never closed");
  EXPECT_EQ(sink.diagnostics()[0].span->begin, 8u);
  // An out-of-range request yields just kEnd.
  EXPECT_EQ(Render(TokenizeExpression(file, FileId{0}, 100, 50, sink)), "END");
}

TEST(DecodeEscapes, DecodesSimpleEscapes) {
  EXPECT_EQ(Decoded("a\\nb\\tc\\\\d\\'\\\""), "a\nb\tc\\d'\"");
  EXPECT_EQ(Decoded("\\a\\b\\f\\v\\r\\0"), std::string("\a\b\f\v\r\0", 6));
}

TEST(DecodeEscapes, DecodesHexOctalAndUnicodeEscapesToUtf8) {
  EXPECT_EQ(Decoded("\\x41\\101\\7"), "AA\x07");
  EXPECT_EQ(Decoded("\\xe9"), "é");
  EXPECT_EQ(Decoded("\\u03c0\\U0001F600"), "π😀");
  EXPECT_EQ(Decoded("\\1234"), "S4");  // octal takes at most three digits
}

TEST(DecodeEscapes, KeepsUnknownEscapesVerbatim) { EXPECT_EQ(Decoded("\\d\\q\\"), "\\d\\q\\"); }

TEST(DecodeEscapes, RemovesBackslashNewline) { EXPECT_EQ(Decoded("a\\\nb\\\r\nc"), "abc"); }

TEST(DecodeLiteral, BytesModeWritesRawBytes) {
  std::string out;
  EXPECT_FALSE(DecodeLiteral("\\x80\\0\\t\\q", EscapeMode::kBytes, out));
  EXPECT_EQ(out, std::string("\x80\0\t\\q", 5));
  EXPECT_FALSE(DecodeLiteral("\\xe9", EscapeMode::kStr, out));
  EXPECT_EQ(out, "\xc3\xa9");  // str mode writes the code point as UTF-8
  std::optional<EscapeError> error = DecodeLiteral("ab\\xg", EscapeMode::kBytes, out);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message, "truncated `\\xXX` escape");
  EXPECT_EQ(error->begin, 2u);
}

TEST(DecodeEscapes, RejectsMalformedEscapes) {
  EXPECT_EQ(DecodeError("\\x4"), "truncated `\\xXX` escape");
  EXPECT_EQ(DecodeError("\\u12g4"), "truncated `\\uXXXX` escape");
  EXPECT_EQ(DecodeError("\\U0011000"), "truncated `\\UXXXXXXXX` escape");
  EXPECT_EQ(DecodeError("\\U00110000"),
            "invalid escape `\\U00110000`; the largest code point is U+10FFFF");
  EXPECT_EQ(DecodeError("\\N{DASH}"),
            "`\\N{...}` escapes are not supported; write the character itself or use `\\u`");
}

TEST(Lexer, ManyOpenBracketsAreOneError) {
  Lexed lexed(std::string(100000, '('));
  ASSERT_EQ(lexed.sink.diagnostics().size(), 1u);
  EXPECT_EQ(lexed.sink.diagnostics()[0].message, "`(` was never closed");
  EXPECT_EQ(lexed.sink.diagnostics()[0].span->begin, 99999u);
  EXPECT_EQ(lexed.tokens.size(), 100002u);
}

TEST(Lexer, DeepNestingOfBlocksIsBalanced) {
  std::string source;
  constexpr int kDepth = 2000;
  for (int i = 0; i < kDepth; ++i) source += std::string(i, ' ') + "if x:\n";
  source += std::string(kDepth, ' ') + "pass\n";
  Lexed lexed(source);
  EXPECT_EQ(lexed.Errors(), "");
  int depth = 0;
  for (const Token& token : lexed.tokens) {
    if (token.kind == TokenKind::kIndent) ++depth;
    if (token.kind == TokenKind::kDedent) --depth;
    EXPECT_GE(depth, 0);
  }
  EXPECT_EQ(depth, 0);
}

// Invariants every token stream keeps: ends with one kEnd, spans in bounds and in order, one
// diagnostic at least per kError token, INDENT/DEDENT balanced.
void ExpectWellFormed(const Lexed& lexed) {
  ASSERT_FALSE(lexed.tokens.empty());
  EXPECT_EQ(lexed.tokens.back().kind, TokenKind::kEnd);
  uint32_t previous = 0;
  int depth = 0;
  size_t errors = 0;
  for (const Token& token : lexed.tokens) {
    EXPECT_LE(token.span.begin, token.span.end);
    EXPECT_LE(token.span.end, lexed.file.text().size());
    EXPECT_GE(token.span.begin, previous);
    previous = token.span.begin;
    if (token.kind == TokenKind::kIndent) ++depth;
    if (token.kind == TokenKind::kDedent) --depth;
    if (token.kind == TokenKind::kError) ++errors;
    EXPECT_GE(depth, 0);
  }
  EXPECT_EQ(depth, 0);
  EXPECT_GE(lexed.sink.diagnostics().size(), errors);
  for (const Diagnostic& diagnostic : lexed.sink.diagnostics()) {
    EXPECT_EQ(diagnostic.phase, Phase::kLex);
    ASSERT_TRUE(diagnostic.span.has_value());
    EXPECT_LE(diagnostic.span->begin, diagnostic.span->end);
    EXPECT_LE(diagnostic.span->end, lexed.file.text().size());
  }
}

TEST(Lexer, SurvivesArbitraryBytes) {
  std::mt19937 random(12345);
  const std::string alphabet = "()[]{}'\"\\#\n\r\t\f 0123456789abcefjxob_.+-*/=!<>:$\xff\x80";
  for (int round = 0; round < 2000; ++round) {
    std::string source(random() % 64, ' ');
    for (char& c : source) {
      c = round % 2 == 0 ? alphabet[random() % alphabet.size()] : static_cast<char>(random());
    }
    Lexed lexed(source);
    ExpectWellFormed(lexed);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "input: " << ::testing::PrintToString(source);
      return;
    }
  }
}

TEST(Lexer, LexesAMegabyteInLinearTime) {
  std::string block =
      "def kernel(x_ref, o_ref):\n"
      "    # add one\n"
      "    o_ref[...] = x_ref[...] + 1.5e-3 * 0x10  # trailing\n"
      "    s = f'{x_ref.shape!r}' + \"\"\"doc\"\"\"\n";
  std::string source;
  while (source.size() < (1u << 20)) source += block;
  auto start = std::chrono::steady_clock::now();
  Lexed lexed(source);
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(lexed.Errors(), "");
  ExpectWellFormed(lexed);
  // Generous for unoptimised and sanitized builds; a quadratic lexer would take minutes.
  EXPECT_LT(elapsed, std::chrono::seconds(5));
}

}  // namespace
}  // namespace pz::lang

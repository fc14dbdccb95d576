// Tokens produced by the lexer (lexer.h) and consumed by the parser (parser.h). One table,
// PZ_TOKENS, lists every kind with its spelling, so the printer, the parser's error messages and
// the keyword lookup all agree.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/source.h"

namespace pz::lang {

// X(Name, "spelling"). Spelling is what error messages show ("expected `)`").
// clang-format off
#define PZ_TOKENS(X)                 \
  X(kEnd, "end of file")             \
  X(kNewline, "newline")             \
  X(kIndent, "indent")               \
  X(kDedent, "dedent")               \
  X(kName, "name")                   \
  X(kInt, "integer")                 \
  X(kFloat, "float")                 \
  X(kString, "string")               \
  X(kError, "invalid token")         \
  /* keywords */                     \
  X(kFalse, "False")                 \
  X(kNone, "None")                   \
  X(kTrue, "True")                   \
  X(kAnd, "and")                     \
  X(kAs, "as")                       \
  X(kAssert, "assert")               \
  X(kAsync, "async")                 \
  X(kAwait, "await")                 \
  X(kBreak, "break")                 \
  X(kClass, "class")                 \
  X(kContinue, "continue")           \
  X(kDef, "def")                     \
  X(kDel, "del")                     \
  X(kElif, "elif")                   \
  X(kElse, "else")                   \
  X(kExcept, "except")               \
  X(kFinally, "finally")             \
  X(kFor, "for")                     \
  X(kFrom, "from")                   \
  X(kGlobal, "global")               \
  X(kIf, "if")                       \
  X(kImport, "import")               \
  X(kIn, "in")                       \
  X(kIs, "is")                       \
  X(kLambda, "lambda")               \
  X(kNonlocal, "nonlocal")           \
  X(kNot, "not")                     \
  X(kOr, "or")                       \
  X(kPass, "pass")                   \
  X(kRaise, "raise")                 \
  X(kReturn, "return")               \
  X(kTry, "try")                     \
  X(kWhile, "while")                 \
  X(kWith, "with")                   \
  X(kYield, "yield")                 \
  /* brackets and punctuation */     \
  X(kLParen, "(")                    \
  X(kRParen, ")")                    \
  X(kLBracket, "[")                  \
  X(kRBracket, "]")                  \
  X(kLBrace, "{")                    \
  X(kRBrace, "}")                    \
  X(kComma, ",")                     \
  X(kColon, ":")                     \
  X(kSemicolon, ";")                 \
  X(kDot, ".")                       \
  X(kEllipsis, "...")                \
  X(kArrow, "->")                    \
  X(kAt, "@")                        \
  X(kAssign, "=")                    \
  X(kWalrus, ":=")                   \
  /* operators */                    \
  X(kPlus, "+")                      \
  X(kMinus, "-")                     \
  X(kStar, "*")                      \
  X(kDoubleStar, "**")               \
  X(kSlash, "/")                     \
  X(kDoubleSlash, "//")              \
  X(kPercent, "%")                   \
  X(kTilde, "~")                     \
  X(kAmp, "&")                       \
  X(kPipe, "|")                      \
  X(kCaret, "^")                     \
  X(kLShift, "<<")                   \
  X(kRShift, ">>")                   \
  X(kLess, "<")                      \
  X(kGreater, ">")                   \
  X(kLessEq, "<=")                   \
  X(kGreaterEq, ">=")                \
  X(kEqEq, "==")                     \
  X(kNotEq, "!=")                    \
  /* augmented assignment */         \
  X(kPlusAssign, "+=")               \
  X(kMinusAssign, "-=")              \
  X(kStarAssign, "*=")               \
  X(kSlashAssign, "/=")              \
  X(kDoubleSlashAssign, "//=")       \
  X(kPercentAssign, "%=")            \
  X(kDoubleStarAssign, "**=")        \
  X(kAtAssign, "@=")                 \
  X(kAmpAssign, "&=")                \
  X(kPipeAssign, "|=")               \
  X(kCaretAssign, "^=")              \
  X(kLShiftAssign, "<<=")            \
  X(kRShiftAssign, ">>=")
// clang-format on

enum class TokenKind : uint8_t {
#define PZ_TOKEN_ENUM(name, spelling) name,
  PZ_TOKENS(PZ_TOKEN_ENUM)
#undef PZ_TOKEN_ENUM
};

// The spelling from PZ_TOKENS ("(", "def", "name", ...).
std::string_view Spelling(TokenKind kind);
// kDef for "def", ..., kName for anything that is not a keyword.
TokenKind KeywordOrName(std::string_view word);

// Flags of a kString token.
struct StringFlags {
  bool raw = false;      // r"..." : backslashes kept
  bool fstring = false;  // f"..." : text holds the raw body; the parser splits fields
  bool bytes = false;    // b"..." : text holds the bytes (any values), not UTF-8
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  // Whole token, including prefix and quotes for strings. INDENT/DEDENT/NEWLINE/END have an
  // empty span at the position where they logically occur.
  SourceSpan span;
  // kName: the identifier. kInt/kFloat: the literal as written. kString: the decoded value
  // (escapes processed) for ordinary strings; for f-strings the raw body between the quotes,
  // undecoded, starting at byte offset `body_begin` of the file. kError: what was wrong.
  std::string text;
  int64_t int_value = 0;   // kInt (the lexer reports literals above 2**63-1 as errors)
  double float_value = 0;  // kFloat
  StringFlags string_flags;
  uint32_t body_begin = 0;  // f-strings: file offset of the first body byte
};

}  // namespace pz::lang

// Lexer: Python source text → tokens, with INDENT/DEDENT, implicit line joining inside brackets,
// backslash continuation, comments, numeric literals (1e-3, 0x10, 0o7, 0b1, 1_000), and string
// literals (single, double, triple-quoted, raw, f-strings, bytes). Errors are reported to the
// sink and lexing continues, so the parser can report further problems.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lang/token.h"
#include "support/diagnostic.h"
#include "support/source.h"

namespace pz::lang {

// Tokenizes a whole file. The result always ends with NEWLINE (if the last logical line had
// tokens), the DEDENTs closing open blocks, and one kEnd. Malformed input yields kError tokens
// plus diagnostics (phase kLex) in `sink`; it never throws.
//
// Where layout tokens sit (all empty spans): NEWLINE at the end of the last token of its logical
// line; INDENT and DEDENT at the first token of the line that changes the level (the final
// DEDENTs at the end of the file); kEnd at the end of the input. INDENT/DEDENT always balance.
// Each kError token (its text is the message) has already been reported to `sink`: the parser
// should not report it again (a bad escape is reported at the escape; its whole string is the
// kError token). Diagnostics with no token: an unclosed bracket (at the innermost opener), a
// dedent to an unknown level, and tabs and spaces mixed inconsistently in indentation.
std::vector<Token> Tokenize(const SourceFile& file, FileId id, DiagnosticSink& sink);

// Tokenizes the expression text in [begin, end) of `file`, as found inside an f-string field.
// No INDENT/DEDENT/NEWLINE tokens are produced (newlines count as whitespace); ends with kEnd.
std::vector<Token> TokenizeExpression(const SourceFile& file, FileId id, uint32_t begin,
                                      uint32_t end, DiagnosticSink& sink);

}  // namespace pz::lang

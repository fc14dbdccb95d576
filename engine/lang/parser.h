// Parser: tokens → AST (ast.h). Recursive descent following Python's grammar and operator
// precedence for the subset the course needs. It recovers at statement boundaries and reports
// several errors per file (phase kParse) with Python-quality messages and hints.
#pragma once

#include <vector>

#include "lang/ast.h"
#include "lang/token.h"
#include "support/diagnostic.h"
#include "support/source.h"

namespace pz::lang {

// Parses a whole file (lexing it first). The returned module holds every statement that parsed;
// when sink.HasErrors() the module must not be executed. Guarantees on an error-free result:
// - the rules CPython's compiler checks are checked here too: assignment/`del` targets,
//   argument and parameter order, `return` only inside `def`, `break`/`continue` only inside a
//   loop (of the same function), `nonlocal` only inside `def`;
// - nesting deeper than 200 (brackets, unary operators, operator chains, blocks, ...) is an
//   error, so the AST is at most a few hundred levels deep and safe to walk recursively;
// - every node's span covers its source text (a parenthesised expression's span includes the
//   parentheses); a compound statement's span is its header up to the `:`.
Module ParseModule(const SourceFile& file, FileId id, DiagnosticSink& sink);

// Parses a single expression from [begin, end) of `file` (used for f-string fields and by tests).
// Returns nullptr (with diagnostics) on failure.
ExprPtr ParseExpression(const SourceFile& file, FileId id, uint32_t begin, uint32_t end,
                        DiagnosticSink& sink);

}  // namespace pz::lang

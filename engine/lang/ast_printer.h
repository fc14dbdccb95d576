// AST printer for `pallas-puzzles run --dump-ast` and parser golden tests: an indented tree,
// one node per line, with line:col of each node, e.g.
//   Module
//     Assign @1:1
//       Name x @1:1
//       BinOp + @1:5
//         IntLit 1 @1:5
//         IntLit 2 @1:9
#pragma once

#include <string>

#include "lang/ast.h"
#include "support/source.h"

namespace pz::lang {

std::string PrintAst(const Module& module, const SourceManager& sources);
std::string PrintExpr(const Expr& expr, const SourceManager& sources);

}  // namespace pz::lang

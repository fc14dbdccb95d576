// The abstract syntax tree of the Python subset: plain structs held in std::variant, visited
// exhaustively (no catch-all branch, so adding a node breaks every visitor that forgets it).
// Every node carries the SourceSpan of the text it came from. Produced by parser.h, printed by
// ast_printer.h, executed by eval/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "support/source.h"

namespace pz::lang {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;  // nullable where documented ("optional")
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

// The node structs below are kept one per line where they fit, for a table-like read.
// clang-format off

// ---------------------------------------------------------------------------------------------
// Operators

enum class UnaryOpKind { kNeg, kPos, kInvert, kNot };
enum class BinOpKind {
  kAdd, kSub, kMul, kMatMul, kDiv, kFloorDiv, kMod, kPow,
  kLShift, kRShift, kBitOr, kBitXor, kBitAnd,
};
enum class BoolOpKind { kAnd, kOr };
enum class CmpOpKind { kEq, kNotEq, kLt, kLtE, kGt, kGtE, kIs, kIsNot, kIn, kNotIn };

// Python's spelling of each operator: "-", "not", "+", "//", "is not", ...
const char* Spelling(UnaryOpKind op);
const char* Spelling(BinOpKind op);
const char* Spelling(BoolOpKind op);
const char* Spelling(CmpOpKind op);

// ---------------------------------------------------------------------------------------------
// Function parameters (def and lambda)

enum class ParamKind {
  kPositionalOnly,  // before a `/`
  kNormal,          // positional or keyword
  kVarArgs,         // *args
  kKeywordOnly,     // after `*` or `*args`
  kVarKwargs,       // **kwargs
};

struct Param {
  std::string name;
  ParamKind kind = ParamKind::kNormal;
  ExprPtr default_value;  // optional; only kPositionalOnly, kNormal, kKeywordOnly
  ExprPtr annotation;     // optional; parsed and ignored by the evaluator
  SourceSpan span;        // the parameter's name
};

// Parameters in source order. The parser guarantees Python's ordering rules (no non-default
// after default among positionals, at most one kVarArgs and one kVarKwargs, kVarKwargs last).
struct Params {
  std::vector<Param> params;
};

// ---------------------------------------------------------------------------------------------
// Expressions

struct Name { std::string id; };
struct NoneLit {};
struct BoolLit { bool value = false; };
struct IntLit { int64_t value = 0; };
struct FloatLit { double value = 0; };
struct StrLit { std::string value; };  // adjacent literals already concatenated
struct BytesLit { std::string value; };  // b'...': the bytes (any values), concatenated likewise
struct EllipsisLit {};

// One piece of an f-string: either literal text (value == nullptr) or a replacement field.
struct FStringPart {
  std::string literal;     // literal text, escapes decoded, {{ and }} collapsed
  ExprPtr value;           // the field's expression; nullptr for a literal piece
  char conversion = 0;     // 0, 'r', 's' or 'a'; `{x=}` without conversion or spec gets 'r'
  ExprPtr format_spec;     // optional; an FString (may itself hold nested fields)
  std::string debug_text;  // for `{x=}`: the text "x=" (plus spacing) printed before the value
};
// An f-string (possibly concatenated with plain strings around it).
struct FString { std::vector<FStringPart> parts; };

struct UnaryOp { UnaryOpKind op; ExprPtr operand; };
struct BinOp { BinOpKind op; ExprPtr left; ExprPtr right; };
struct BoolOp { BoolOpKind op; std::vector<ExprPtr> values; };  // two or more values
// a < b <= c : left = a, ops = {<, <=}, comparators = {b, c}
struct Compare { ExprPtr left; std::vector<CmpOpKind> ops; std::vector<ExprPtr> comparators; };
struct IfExp { ExprPtr test; ExprPtr body; ExprPtr orelse; };  // body if test else orelse
struct Lambda { Params params; ExprPtr body; };

enum class ArgKind { kPositional, kStar, kKeyword, kDoubleStar };
struct Arg {
  ArgKind kind = ArgKind::kPositional;
  std::string name;  // kKeyword only
  ExprPtr value;
  SourceSpan span;   // the whole argument, including `name=` / `*` / `**`
};
struct Call { ExprPtr func; std::vector<Arg> args; };

struct Attribute { ExprPtr value; std::string attr; SourceSpan attr_span; };
// value[index]; a multi-element subscript `x[a, b:c]` has a Tuple index holding Slice nodes.
struct Subscript { ExprPtr value; ExprPtr index; };
// lower:upper:step, each optional. Only valid directly inside a Subscript index (or its Tuple).
struct Slice { ExprPtr lower; ExprPtr upper; ExprPtr step; };
// *value, inside tuple/list/set displays and assignment targets.
struct Starred { ExprPtr value; };

struct Tuple { std::vector<ExprPtr> elts; };
struct List { std::vector<ExprPtr> elts; };
struct Set { std::vector<ExprPtr> elts; };
// key == nullptr means `**value` (dict unpacking).
struct DictItem { ExprPtr key; ExprPtr value; };
struct Dict { std::vector<DictItem> items; };

// for target in iter if cond1 if cond2
struct Comprehension {
  ExprPtr target;
  ExprPtr iter;
  std::vector<ExprPtr> ifs;
};
struct ListComp { ExprPtr elt; std::vector<Comprehension> generators; };
struct SetComp { ExprPtr elt; std::vector<Comprehension> generators; };
struct DictComp { ExprPtr key; ExprPtr value; std::vector<Comprehension> generators; };
struct GeneratorExp { ExprPtr elt; std::vector<Comprehension> generators; };
struct NamedExpr { std::string target; SourceSpan target_span; ExprPtr value; };  // target := value

using ExprNode = std::variant<Name, NoneLit, BoolLit, IntLit, FloatLit, StrLit, BytesLit,
                              EllipsisLit, FString, UnaryOp, BinOp, BoolOp, Compare, IfExp, Lambda,
                              Call, Attribute, Subscript, Slice, Starred, Tuple, List, Set, Dict,
                              ListComp, SetComp, DictComp, GeneratorExp, NamedExpr>;

struct Expr {
  ExprNode node;
  SourceSpan span;
};

// ---------------------------------------------------------------------------------------------
// Statements

struct ExprStmt { ExprPtr value; };
// t1 = t2 = value; targets are Name, Attribute, Subscript, Tuple/List (of targets), Starred.
struct Assign { std::vector<ExprPtr> targets; ExprPtr value; };
struct AugAssign { ExprPtr target; BinOpKind op; ExprPtr value; };
struct AnnAssign { ExprPtr target; ExprPtr annotation; ExprPtr value; };  // value optional
struct Return { ExprPtr value; };  // optional
struct If { ExprPtr test; Block body; Block orelse; };  // elif is a lone If in orelse
struct For { ExprPtr target; ExprPtr iter; Block body; Block orelse; };
struct While { ExprPtr test; Block body; Block orelse; };
struct Break {};
struct Continue {};
struct Pass {};
struct FunctionDef {
  std::string name;
  Params params;
  Block body;
  std::vector<ExprPtr> decorators;  // outermost (first written) first
  ExprPtr returns;                  // optional annotation, ignored by the evaluator
  SourceSpan name_span;
};
// class name(bases, keywords): body. `bases` holds the positional arguments of the header (a
// Starred among them unpacks), `keywords` the named ones (`metaclass=...`).
struct ClassDef {
  std::string name;
  std::vector<ExprPtr> bases;
  std::vector<std::pair<std::string, ExprPtr>> keywords;
  Block body;
  std::vector<ExprPtr> decorators;  // outermost (first written) first
  SourceSpan name_span;
};
// with a as x, b: body. Each item's context expression and optional target.
struct WithItem { ExprPtr context; ExprPtr target; };
struct With { std::vector<WithItem> items; Block body; };
struct Alias {
  std::string name;    // dotted module name for `import`; a plain name or "*" for `from ... import`
  std::string asname;  // empty when no `as`
  SourceSpan span;
};
struct Import { std::vector<Alias> names; };
// from module import names; level counts leading dots (resolved against the package at run time).
struct ImportFrom { std::string module; std::vector<Alias> names; int level = 0; };
struct Assert { ExprPtr test; ExprPtr msg; };  // msg optional
struct Raise { ExprPtr exc; ExprPtr cause; };  // both optional (bare `raise` re-raises)
struct Global { std::vector<std::string> names; };
struct Nonlocal { std::vector<std::string> names; };
struct Delete { std::vector<ExprPtr> targets; };
struct ExceptHandler {
  ExprPtr type;      // optional (bare except); may be a Tuple of types
  std::string name;  // empty when no `as`
  Block body;
  SourceSpan span;   // the `except ...:` header
};
struct Try { Block body; std::vector<ExceptHandler> handlers; Block orelse; Block finalbody; };

using StmtNode = std::variant<ExprStmt, Assign, AugAssign, AnnAssign, Return, If, For, While,
                              Break, Continue, Pass, FunctionDef, Import, ImportFrom, Assert,
                              Raise, Global, Nonlocal, Delete, Try, ClassDef, With>;

struct Stmt {
  StmtNode node;
  SourceSpan span;  // the whole statement; for compound statements, the header line
};

// clang-format on

struct Module {
  Block body;
  FileId file;
};

}  // namespace pz::lang

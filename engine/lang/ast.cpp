// Python's spelling of each AST operator, shared by the AST printer and by error messages of the
// evaluator ("unsupported operand type(s) for +").
#include "lang/ast.h"

#include "support/check.h"

namespace pz::lang {

const char* Spelling(UnaryOpKind op) {
  switch (op) {
    case UnaryOpKind::kNeg:
      return "-";
    case UnaryOpKind::kPos:
      return "+";
    case UnaryOpKind::kInvert:
      return "~";
    case UnaryOpKind::kNot:
      return "not";
  }
  PZ_UNREACHABLE();
}

const char* Spelling(BinOpKind op) {
  switch (op) {
    case BinOpKind::kAdd:
      return "+";
    case BinOpKind::kSub:
      return "-";
    case BinOpKind::kMul:
      return "*";
    case BinOpKind::kMatMul:
      return "@";
    case BinOpKind::kDiv:
      return "/";
    case BinOpKind::kFloorDiv:
      return "//";
    case BinOpKind::kMod:
      return "%";
    case BinOpKind::kPow:
      return "**";
    case BinOpKind::kLShift:
      return "<<";
    case BinOpKind::kRShift:
      return ">>";
    case BinOpKind::kBitOr:
      return "|";
    case BinOpKind::kBitXor:
      return "^";
    case BinOpKind::kBitAnd:
      return "&";
  }
  PZ_UNREACHABLE();
}

const char* Spelling(BoolOpKind op) {
  switch (op) {
    case BoolOpKind::kAnd:
      return "and";
    case BoolOpKind::kOr:
      return "or";
  }
  PZ_UNREACHABLE();
}

const char* Spelling(CmpOpKind op) {
  switch (op) {
    case CmpOpKind::kEq:
      return "==";
    case CmpOpKind::kNotEq:
      return "!=";
    case CmpOpKind::kLt:
      return "<";
    case CmpOpKind::kLtE:
      return "<=";
    case CmpOpKind::kGt:
      return ">";
    case CmpOpKind::kGtE:
      return ">=";
    case CmpOpKind::kIs:
      return "is";
    case CmpOpKind::kIsNot:
      return "is not";
    case CmpOpKind::kIn:
      return "in";
    case CmpOpKind::kNotIn:
      return "not in";
  }
  PZ_UNREACHABLE();
}

}  // namespace pz::lang

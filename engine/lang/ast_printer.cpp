// AST printer (`--dump-ast`, parser tests): one node per line, two spaces of indent per level,
// the node kind and its salient fields, then `@line:col` of the node's span. Children whose role
// is not clear from their position carry a `role: ` prefix; blocks are introduced by a `body:`
// (`orelse:`, `finalbody:`) line.
#include "lang/ast_printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>

namespace pz::lang {
namespace {

// Python-style repr of a string: single quotes, with \\ \' \n \r \t and \xNN for other control
// bytes (and, for the value of a bytes literal, for the bytes from 0x80 on).
std::string Quote(std::string_view text, bool bytes = false) {
  std::string out = "'";
  for (char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f || (bytes && u >= 0x80)) {
          out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "'";
}

class Printer {
 public:
  explicit Printer(const SourceManager& sources) : sources_(sources) {}

  std::string Take() { return std::move(out_); }

  void Line(int depth, std::string_view role, std::string_view text,
            std::optional<SourceSpan> span) {
    out_.append(2 * depth, ' ');
    if (!role.empty()) out_ += fmt::format("{}: ", role);
    out_ += text;
    if (span) out_ += " @" + Location(*span);
    out_ += '\n';
  }

  void PrintExpr(const Expr& expr, int depth, std::string_view role = {});
  void PrintStmt(const Stmt& stmt, int depth);

  void PrintOptional(const ExprPtr& expr, int depth, std::string_view role) {
    if (expr != nullptr) PrintExpr(*expr, depth, role);
  }

  void PrintBlock(const Block& block, int depth, std::string_view label) {
    if (block.empty()) return;
    Line(depth, {}, fmt::format("{}:", label), std::nullopt);
    for (const StmtPtr& stmt : block) PrintStmt(*stmt, depth + 1);
  }

  void PrintParams(const Params& params, int depth) {
    for (const Param& param : params.params) {
      std::string text;
      switch (param.kind) {
        case ParamKind::kPositionalOnly:
          text = fmt::format("Param {} (positional-only)", param.name);
          break;
        case ParamKind::kNormal:
          text = fmt::format("Param {}", param.name);
          break;
        case ParamKind::kVarArgs:
          text = fmt::format("Param *{}", param.name);
          break;
        case ParamKind::kKeywordOnly:
          text = fmt::format("Param {} (keyword-only)", param.name);
          break;
        case ParamKind::kVarKwargs:
          text = fmt::format("Param **{}", param.name);
          break;
      }
      Line(depth, {}, text, param.span);
      PrintOptional(param.annotation, depth + 1, "annotation");
      PrintOptional(param.default_value, depth + 1, "default");
    }
  }

  void PrintGenerators(const std::vector<Comprehension>& generators, int depth) {
    for (const Comprehension& generator : generators) {
      Line(depth, {}, "Comprehension", std::nullopt);
      PrintExpr(*generator.target, depth + 1, "target");
      PrintExpr(*generator.iter, depth + 1, "iter");
      for (const ExprPtr& condition : generator.ifs) PrintExpr(*condition, depth + 1, "if");
    }
  }

 private:
  // line:col like SourceFile::Locate, but linear overall: nodes come mostly in source order, so
  // the column is counted on from the previous node when it is on the same line (a long one-line
  // list would otherwise cost quadratic time).
  std::string Location(SourceSpan span) {
    if (!span.valid()) return "?";
    const SourceFile& file = sources_.Get(span.file);
    const std::string& text = file.text();
    uint32_t offset = std::min<uint32_t>(span.begin, static_cast<uint32_t>(text.size()));
    int low = 1;
    int high = file.line_count();
    while (low < high) {
      int middle = (low + high + 1) / 2;
      if (file.LineStart(middle) <= offset) {
        low = middle;
      } else {
        high = middle - 1;
      }
    }
    bool resume = cache_.file == span.file && cache_.line == low && cache_.offset <= offset;
    uint32_t from = resume ? cache_.offset : file.LineStart(low);
    int col = resume ? cache_.col : 1;
    for (uint32_t i = from; i < offset; ++i) {
      if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++col;  // count code points
    }
    cache_ = Cached{span.file, low, offset, col};
    return fmt::format("{}:{}", low, col);
  }

  struct Cached {
    FileId file;
    int line = 0;
    uint32_t offset = 0;
    int col = 0;
  };

  const SourceManager& sources_;
  std::string out_;
  Cached cache_;
};

// Prints one expression node: its line, then its children one level deeper.
struct ExprPrinter {
  Printer& p;
  const Expr& expr;
  int depth;
  std::string_view role;

  void Head(std::string_view text) const { p.Line(depth, role, text, expr.span); }
  void Child(const Expr& child, std::string_view child_role = {}) const {
    p.PrintExpr(child, depth + 1, child_role);
  }
  void Children(const std::vector<ExprPtr>& children) const {
    for (const ExprPtr& child : children) Child(*child);
  }

  void operator()(const Name& node) const { Head(fmt::format("Name {}", node.id)); }
  void operator()(const NoneLit&) const { Head("NoneLit"); }
  void operator()(const BoolLit& node) const {
    Head(node.value ? "BoolLit True" : "BoolLit False");
  }
  void operator()(const IntLit& node) const { Head(fmt::format("IntLit {}", node.value)); }
  void operator()(const FloatLit& node) const { Head(fmt::format("FloatLit {}", node.value)); }
  void operator()(const StrLit& node) const { Head(fmt::format("StrLit {}", Quote(node.value))); }
  void operator()(const BytesLit& node) const {
    Head(fmt::format("BytesLit b{}", Quote(node.value, /*bytes=*/true)));
  }
  void operator()(const EllipsisLit&) const { Head("EllipsisLit"); }
  void operator()(const FString& node) const {
    Head("FString");
    for (const FStringPart& part : node.parts) {
      if (part.value == nullptr) {
        p.Line(depth + 1, {}, fmt::format("Literal {}", Quote(part.literal)), std::nullopt);
        continue;
      }
      std::string text = "Field";
      if (part.conversion != 0) text += fmt::format(" !{}", part.conversion);
      if (!part.debug_text.empty()) text += fmt::format(" debug {}", Quote(part.debug_text));
      p.Line(depth + 1, {}, text, std::nullopt);
      p.PrintExpr(*part.value, depth + 2);
      p.PrintOptional(part.format_spec, depth + 2, "spec");
    }
  }
  void operator()(const UnaryOp& node) const {
    Head(fmt::format("UnaryOp {}", Spelling(node.op)));
    Child(*node.operand);
  }
  void operator()(const BinOp& node) const {
    Head(fmt::format("BinOp {}", Spelling(node.op)));
    Child(*node.left);
    Child(*node.right);
  }
  void operator()(const BoolOp& node) const {
    Head(fmt::format("BoolOp {}", Spelling(node.op)));
    Children(node.values);
  }
  void operator()(const Compare& node) const {
    std::string ops;
    for (CmpOpKind op : node.ops) ops += fmt::format("{}{}", ops.empty() ? "" : ", ", Spelling(op));
    Head(fmt::format("Compare {}", ops));
    Child(*node.left);
    Children(node.comparators);
  }
  void operator()(const IfExp& node) const {
    Head("IfExp");
    Child(*node.test, "test");
    Child(*node.body, "body");
    Child(*node.orelse, "orelse");
  }
  void operator()(const Lambda& node) const {
    Head("Lambda");
    p.PrintParams(node.params, depth + 1);
    Child(*node.body, "body");
  }
  void operator()(const Call& node) const {
    Head("Call");
    Child(*node.func);
    for (const Arg& arg : node.args) {
      switch (arg.kind) {
        case ArgKind::kPositional:
          Child(*arg.value);
          break;
        case ArgKind::kStar:
          Child(*arg.value, "*");
          break;
        case ArgKind::kKeyword:
          Child(*arg.value, fmt::format("keyword {}", arg.name));
          break;
        case ArgKind::kDoubleStar:
          Child(*arg.value, "**");
          break;
      }
    }
  }
  void operator()(const Attribute& node) const {
    Head(fmt::format("Attribute .{}", node.attr));
    Child(*node.value);
  }
  void operator()(const Subscript& node) const {
    Head("Subscript");
    Child(*node.value);
    Child(*node.index);
  }
  void operator()(const Slice& node) const {
    Head("Slice");
    p.PrintOptional(node.lower, depth + 1, "lower");
    p.PrintOptional(node.upper, depth + 1, "upper");
    p.PrintOptional(node.step, depth + 1, "step");
  }
  void operator()(const Starred& node) const {
    Head("Starred");
    Child(*node.value);
  }
  void operator()(const Tuple& node) const {
    Head("Tuple");
    Children(node.elts);
  }
  void operator()(const List& node) const {
    Head("List");
    Children(node.elts);
  }
  void operator()(const Set& node) const {
    Head("Set");
    Children(node.elts);
  }
  void operator()(const Dict& node) const {
    Head("Dict");
    for (const DictItem& item : node.items) {
      if (item.key == nullptr) {
        Child(*item.value, "**");
      } else {
        Child(*item.key, "key");
        Child(*item.value, "value");
      }
    }
  }
  void operator()(const ListComp& node) const {
    Head("ListComp");
    Child(*node.elt);
    p.PrintGenerators(node.generators, depth + 1);
  }
  void operator()(const SetComp& node) const {
    Head("SetComp");
    Child(*node.elt);
    p.PrintGenerators(node.generators, depth + 1);
  }
  void operator()(const DictComp& node) const {
    Head("DictComp");
    Child(*node.key, "key");
    Child(*node.value, "value");
    p.PrintGenerators(node.generators, depth + 1);
  }
  void operator()(const GeneratorExp& node) const {
    Head("GeneratorExp");
    Child(*node.elt);
    p.PrintGenerators(node.generators, depth + 1);
  }
  void operator()(const NamedExpr& node) const {
    Head(fmt::format("NamedExpr {}", node.target));
    Child(*node.value);
  }
};

// Prints one statement node: its line, then its children and blocks one level deeper.
struct StmtPrinter {
  Printer& p;
  const Stmt& stmt;
  int depth;

  void Head(std::string_view text) const { p.Line(depth, {}, text, stmt.span); }
  void Child(const Expr& child, std::string_view role = {}) const {
    p.PrintExpr(child, depth + 1, role);
  }
  void Block(const lang::Block& block, std::string_view label) const {
    p.PrintBlock(block, depth + 1, label);
  }
  static std::string JoinNames(const std::vector<std::string>& names) {
    return fmt::format("{}", fmt::join(names, ", "));
  }

  void operator()(const ExprStmt& node) const {
    Head("ExprStmt");
    Child(*node.value);
  }
  void operator()(const Assign& node) const {
    Head("Assign");
    for (const ExprPtr& target : node.targets) Child(*target);
    Child(*node.value);
  }
  void operator()(const AugAssign& node) const {
    Head(fmt::format("AugAssign {}=", Spelling(node.op)));
    Child(*node.target);
    Child(*node.value);
  }
  void operator()(const AnnAssign& node) const {
    Head("AnnAssign");
    Child(*node.target);
    Child(*node.annotation, "annotation");
    p.PrintOptional(node.value, depth + 1, {});
  }
  void operator()(const Return& node) const {
    Head("Return");
    p.PrintOptional(node.value, depth + 1, {});
  }
  void operator()(const If& node) const {
    Head("If");
    Child(*node.test);
    Block(node.body, "body");
    Block(node.orelse, "orelse");
  }
  void operator()(const For& node) const {
    Head("For");
    Child(*node.target);
    Child(*node.iter);
    Block(node.body, "body");
    Block(node.orelse, "orelse");
  }
  void operator()(const While& node) const {
    Head("While");
    Child(*node.test);
    Block(node.body, "body");
    Block(node.orelse, "orelse");
  }
  void operator()(const Break&) const { Head("Break"); }
  void operator()(const Continue&) const { Head("Continue"); }
  void operator()(const Pass&) const { Head("Pass"); }
  void operator()(const FunctionDef& node) const {
    Head(fmt::format("FunctionDef {}", node.name));
    for (const ExprPtr& decorator : node.decorators) Child(*decorator, "decorator");
    p.PrintParams(node.params, depth + 1);
    p.PrintOptional(node.returns, depth + 1, "returns");
    Block(node.body, "body");
  }
  void operator()(const Import& node) const {
    Head("Import");
    PrintAliases(node.names);
  }
  void operator()(const ImportFrom& node) const {
    Head(fmt::format("ImportFrom {}{}", std::string(node.level, '.'), node.module));
    PrintAliases(node.names);
  }
  void operator()(const Assert& node) const {
    Head("Assert");
    Child(*node.test);
    p.PrintOptional(node.msg, depth + 1, "msg");
  }
  void operator()(const Raise& node) const {
    Head("Raise");
    p.PrintOptional(node.exc, depth + 1, {});
    p.PrintOptional(node.cause, depth + 1, "from");
  }
  void operator()(const Global& node) const {
    Head(fmt::format("Global {}", JoinNames(node.names)));
  }
  void operator()(const Nonlocal& node) const {
    Head(fmt::format("Nonlocal {}", JoinNames(node.names)));
  }
  void operator()(const Delete& node) const {
    Head("Delete");
    for (const ExprPtr& target : node.targets) Child(*target);
  }
  void operator()(const Try& node) const {
    Head("Try");
    Block(node.body, "body");
    for (const ExceptHandler& handler : node.handlers) {
      std::string text = "ExceptHandler";
      if (!handler.name.empty()) text += fmt::format(" as {}", handler.name);
      p.Line(depth + 1, {}, text, handler.span);
      p.PrintOptional(handler.type, depth + 2, "type");
      p.PrintBlock(handler.body, depth + 2, "body");
    }
    Block(node.orelse, "orelse");
    Block(node.finalbody, "finalbody");
  }

  void operator()(const ClassDef& node) const {
    Head(fmt::format("ClassDef {}", node.name));
    for (const ExprPtr& decorator : node.decorators) Child(*decorator, "decorator");
    for (const ExprPtr& base : node.bases) Child(*base, "base");
    for (const auto& [name, value] : node.keywords) Child(*value, name);
    Block(node.body, "body");
  }
  void operator()(const With& node) const {
    Head("With");
    for (const WithItem& item : node.items) {
      Child(*item.context, "context");
      p.PrintOptional(item.target, depth + 1, "as");
    }
    Block(node.body, "body");
  }

  void PrintAliases(const std::vector<Alias>& aliases) const {
    for (const Alias& alias : aliases) {
      std::string text = fmt::format("Alias {}", alias.name);
      if (!alias.asname.empty()) text += fmt::format(" as {}", alias.asname);
      p.Line(depth + 1, {}, text, alias.span);
    }
  }
};

void Printer::PrintExpr(const Expr& expr, int depth, std::string_view role) {
  std::visit(ExprPrinter{*this, expr, depth, role}, expr.node);
}

void Printer::PrintStmt(const Stmt& stmt, int depth) {
  std::visit(StmtPrinter{*this, stmt, depth}, stmt.node);
}

}  // namespace

std::string PrintAst(const Module& module, const SourceManager& sources) {
  Printer printer(sources);
  printer.Line(0, {}, "Module", std::nullopt);
  for (const StmtPtr& stmt : module.body) printer.PrintStmt(*stmt, 1);
  return printer.Take();
}

std::string PrintExpr(const Expr& expr, const SourceManager& sources) {
  Printer printer(sources);
  printer.PrintExpr(expr, 0);
  return printer.Take();
}

}  // namespace pz::lang

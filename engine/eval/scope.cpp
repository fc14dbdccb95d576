// Scope analysis: which names a def/lambda/comprehension binds locally, per Python's rules
// (assignment anywhere in the body makes a name local unless declared global or nonlocal).
#include "eval/scope.h"

#include <type_traits>
#include <variant>

#include "support/overloaded.h"

namespace pz::eval {
namespace {

// Adds the target of every `name := value` in `expr` to `out`, looking into comprehensions
// (whose walrus targets bind in the enclosing scope) but not into lambdas (their own scope).
class WalrusTargets {
 public:
  explicit WalrusTargets(std::unordered_set<std::string>& out) : out_(out) {}

  void Visit(const lang::Expr& expr) { std::visit(*this, expr.node); }
  void Visit(const lang::ExprPtr& expr) {
    if (expr) Visit(*expr);
  }

  void operator()(const lang::NamedExpr& e) {
    out_.insert(e.target);
    Visit(e.value);
  }
  void operator()(const lang::FString& e) {
    for (const lang::FStringPart& part : e.parts) Visit(part.value);
  }
  void operator()(const lang::UnaryOp& e) { Visit(e.operand); }
  void operator()(const lang::BinOp& e) {
    Visit(e.left);
    Visit(e.right);
  }
  void operator()(const lang::BoolOp& e) { Visits(e.values); }
  void operator()(const lang::Compare& e) {
    Visit(e.left);
    Visits(e.comparators);
  }
  void operator()(const lang::IfExp& e) {
    Visit(e.test);
    Visit(e.body);
    Visit(e.orelse);
  }
  void operator()(const lang::Call& e) {
    Visit(e.func);
    for (const lang::Arg& arg : e.args) Visit(arg.value);
  }
  void operator()(const lang::Attribute& e) { Visit(e.value); }
  void operator()(const lang::Subscript& e) {
    Visit(e.value);
    Visit(e.index);
  }
  void operator()(const lang::Slice& e) {
    Visit(e.lower);
    Visit(e.upper);
    Visit(e.step);
  }
  void operator()(const lang::Starred& e) { Visit(e.value); }
  void operator()(const lang::Tuple& e) { Visits(e.elts); }
  void operator()(const lang::List& e) { Visits(e.elts); }
  void operator()(const lang::Set& e) { Visits(e.elts); }
  void operator()(const lang::Dict& e) {
    for (const lang::DictItem& item : e.items) {
      Visit(item.key);
      Visit(item.value);
    }
  }
  void operator()(const lang::ListComp& e) { Comprehension(e.generators, e.elt); }
  void operator()(const lang::SetComp& e) { Comprehension(e.generators, e.elt); }
  void operator()(const lang::GeneratorExp& e) { Comprehension(e.generators, e.elt); }
  void operator()(const lang::DictComp& e) {
    Comprehension(e.generators, e.key);
    Visit(e.value);
  }
  // Leaves, and lambdas (a walrus in a lambda binds in the lambda).
  template <typename T>
  void operator()(const T&) {}

 private:
  void Visits(const std::vector<lang::ExprPtr>& exprs) {
    for (const lang::ExprPtr& e : exprs) Visit(e);
  }
  void Comprehension(const std::vector<lang::Comprehension>& generators, const lang::ExprPtr& elt) {
    for (const lang::Comprehension& gen : generators) {
      Visit(gen.iter);
      Visits(gen.ifs);
    }
    Visit(elt);
  }

  std::unordered_set<std::string>& out_;
};

// Walks one function body (not nested defs, lambdas or comprehensions, which have their own
// scopes) collecting bound names and declarations.
class Binder {
 public:
  explicit Binder(FunctionCode& code) : code_(code) {}

  void Block(const lang::Block& block) {
    for (const lang::StmtPtr& stmt : block) Stmt(*stmt);
  }

  void Finish() {
    for (const std::string& name : code_.globals) code_.locals.erase(name);
    for (const std::string& name : code_.nonlocals) code_.locals.erase(name);
  }

 private:
  void Target(const lang::Expr& target) { CollectTargetNames(target, code_.locals); }
  void Expr(const lang::ExprPtr& expr) { WalrusTargets(code_.locals).Visit(expr); }

  void Stmt(const lang::Stmt& stmt) {
    std::visit(
        Overloaded{
            [&](const lang::ExprStmt& s) { Expr(s.value); },
            [&](const lang::Assign& s) {
              for (const lang::ExprPtr& t : s.targets) Target(*t);
              Expr(s.value);
            },
            [&](const lang::AugAssign& s) {
              Target(*s.target);
              Expr(s.value);
            },
            [&](const lang::AnnAssign& s) {
              Target(*s.target);
              Expr(s.value);
            },
            [&](const lang::Return& s) { Expr(s.value); },
            [&](const lang::If& s) {
              Expr(s.test);
              Block(s.body);
              Block(s.orelse);
            },
            [&](const lang::For& s) {
              Target(*s.target);
              Expr(s.iter);
              Block(s.body);
              Block(s.orelse);
            },
            [&](const lang::While& s) {
              Expr(s.test);
              Block(s.body);
              Block(s.orelse);
            },
            [](const lang::Break&) {},
            [](const lang::Continue&) {},
            [](const lang::Pass&) {},
            [&](const lang::FunctionDef& s) { code_.locals.insert(s.name); },
            [&](const lang::Import& s) {
              for (const lang::Alias& a : s.names) {
                code_.locals.insert(!a.asname.empty() ? a.asname
                                                      : a.name.substr(0, a.name.find('.')));
              }
            },
            [&](const lang::ImportFrom& s) {
              for (const lang::Alias& a : s.names) {
                code_.locals.insert(a.asname.empty() ? a.name : a.asname);
              }
            },
            [&](const lang::Assert& s) {
              Expr(s.test);
              Expr(s.msg);
            },
            [&](const lang::Raise& s) {
              Expr(s.exc);
              Expr(s.cause);
            },
            [&](const lang::Global& s) { code_.globals.insert(s.names.begin(), s.names.end()); },
            [&](const lang::Nonlocal& s) {
              code_.nonlocals.insert(s.names.begin(), s.names.end());
            },
            [&](const lang::Delete& s) {
              for (const lang::ExprPtr& t : s.targets) Target(*t);
            },
            [&](const lang::Try& s) {
              Block(s.body);
              for (const lang::ExceptHandler& h : s.handlers) {
                if (!h.name.empty()) code_.locals.insert(h.name);
                Block(h.body);
              }
              Block(s.orelse);
              Block(s.finalbody);
            },
            [&](const lang::ClassDef& s) { code_.locals.insert(s.name); },
            [&](const lang::With& s) {
              for (const lang::WithItem& item : s.items) {
                Expr(item.context);
                if (item.target) Target(*item.target);
              }
              Block(s.body);
            },
        },
        stmt.node);
  }

  FunctionCode& code_;
};

void AddParams(const lang::Params& params, FunctionCode& code) {
  for (const lang::Param& p : params.params) code.locals.insert(p.name);
}

}  // namespace

void CollectTargetNames(const lang::Expr& target, std::unordered_set<std::string>& out) {
  if (auto* name = std::get_if<lang::Name>(&target.node)) {
    out.insert(name->id);
  } else if (auto* tuple = std::get_if<lang::Tuple>(&target.node)) {
    for (const lang::ExprPtr& e : tuple->elts) CollectTargetNames(*e, out);
  } else if (auto* list = std::get_if<lang::List>(&target.node)) {
    for (const lang::ExprPtr& e : list->elts) CollectTargetNames(*e, out);
  } else if (auto* starred = std::get_if<lang::Starred>(&target.node)) {
    CollectTargetNames(*starred->value, out);
  }
}

std::shared_ptr<FunctionCode> AnalyzeFunction(const lang::FunctionDef& def,
                                              const std::string& qualname) {
  auto code = std::make_shared<FunctionCode>();
  code->name = def.name;
  code->qualname = qualname;
  code->params = &def.params;
  code->body = &def.body;
  code->span = def.name_span;
  AddParams(def.params, *code);
  Binder binder(*code);
  binder.Block(def.body);
  binder.Finish();
  return code;
}

std::shared_ptr<FunctionCode> AnalyzeLambda(const lang::Lambda& lambda, SourceSpan span,
                                            const std::string& qualname) {
  auto code = std::make_shared<FunctionCode>();
  code->name = "<lambda>";
  code->qualname = qualname;
  code->params = &lambda.params;
  code->lambda_body = lambda.body.get();
  code->span = span;
  AddParams(lambda.params, *code);
  return code;
}

std::shared_ptr<FunctionCode> AnalyzeClass(const lang::ClassDef& def, const std::string& qualname) {
  auto code = std::make_shared<FunctionCode>();
  code->name = def.name;
  code->qualname = qualname;
  code->body = &def.body;
  code->span = def.name_span;
  code->is_class = true;
  Binder binder(*code);
  binder.Block(def.body);
  binder.Finish();
  return code;
}

std::shared_ptr<FunctionCode> AnalyzeComprehension(
    const std::vector<lang::Comprehension>& generators, std::string name, SourceSpan span) {
  auto code = std::make_shared<FunctionCode>();
  code->name = name;
  code->qualname = std::move(name);
  code->span = span;
  code->is_comprehension = true;
  for (const lang::Comprehension& gen : generators) CollectTargetNames(*gen.target, code->locals);
  return code;
}

}  // namespace pz::eval

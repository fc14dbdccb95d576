// Scope analysis: which names a def/lambda/comprehension binds locally, per Python's rules
// (assignment anywhere in the body makes a name local unless declared global or nonlocal).
#include "eval/scope.h"

#include <type_traits>
#include <variant>

#include "support/overloaded.h"

namespace pz::eval {
namespace {

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

  void Stmt(const lang::Stmt& stmt) {
    std::visit(
        Overloaded{
            [](const lang::ExprStmt&) {},
            [&](const lang::Assign& s) {
              for (const lang::ExprPtr& t : s.targets) Target(*t);
            },
            [&](const lang::AugAssign& s) { Target(*s.target); },
            [&](const lang::AnnAssign& s) {
              if (s.value)
                Target(*s.target);
              else
                CollectTargetNames(*s.target, code_.locals);
            },
            [](const lang::Return&) {},
            [&](const lang::If& s) {
              Block(s.body);
              Block(s.orelse);
            },
            [&](const lang::For& s) {
              Target(*s.target);
              Block(s.body);
              Block(s.orelse);
            },
            [&](const lang::While& s) {
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
            [](const lang::Assert&) {},
            [](const lang::Raise&) {},
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

std::shared_ptr<FunctionCode> AnalyzeComprehension(
    const std::vector<lang::Comprehension>& generators, std::string name, SourceSpan span) {
  auto code = std::make_shared<FunctionCode>();
  code->name = name;
  code->qualname = std::move(name);
  code->span = span;
  for (const lang::Comprehension& gen : generators) CollectTargetNames(*gen.target, code->locals);
  return code;
}

}  // namespace pz::eval

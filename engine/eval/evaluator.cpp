// Statement execution: control flow, assignment and unpacking, imports, raise/try, def, and
// name resolution (LEGB with Python's static local analysis from scope.h).
#include "eval/evaluator.h"

#include <fmt/format.h>

#include <algorithm>

#include "eval/classes.h"
#include "support/check.h"
#include "support/overloaded.h"

namespace pz::eval {
namespace {

// Marks a loop as running for the step-limit diagnostic while it is in scope.
class LoopScope {
 public:
  LoopScope(std::vector<SourceSpan>& loops, SourceSpan header) : loops_(loops) {
    loops_.push_back(header);
  }
  ~LoopScope() { loops_.pop_back(); }
  LoopScope(const LoopScope&) = delete;
  LoopScope& operator=(const LoopScope&) = delete;

 private:
  std::vector<SourceSpan>& loops_;
};

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

// The closest candidate to `name`, if close enough to be a plausible typo.
std::optional<std::string> SuggestName(std::string_view name,
                                       const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t best_distance = std::max<size_t>(1, (name.size() + 2) / 3) + 1;
  for (const std::string& candidate : candidates) {
    if (candidate == name || candidate.empty()) continue;
    size_t d = EditDistance(name, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

void Evaluator::ExecModule(const lang::Block& body, Scope& scope) { ExecBlock(body, scope); }

Evaluator::Flow Evaluator::ExecBlock(const lang::Block& block, Scope& scope) {
  for (const lang::StmtPtr& stmt : block) {
    Flow flow = Exec(*stmt, scope);
    if (flow != Flow::kNormal) return flow;
  }
  return Flow::kNormal;
}

Evaluator::Flow Evaluator::Exec(const lang::Stmt& stmt, Scope& scope) {
  interp_.SetSpan(stmt.span);
  interp_.Step();
  return std::visit(
      Overloaded{
          [&](const lang::ExprStmt& s) {
            Eval(*s.value, scope);
            return Flow::kNormal;
          },
          [&](const lang::Assign& s) {
            Value value = Eval(*s.value, scope);
            for (const lang::ExprPtr& target : s.targets) Assign(*target, value, scope);
            return Flow::kNormal;
          },
          [&](const lang::AugAssign& s) {
            AugAssign(s, scope);
            return Flow::kNormal;
          },
          [&](const lang::AnnAssign& s) {
            if (scope.code != nullptr && scope.code->is_class) RecordAnnotation(s, scope);
            if (s.value) Assign(*s.target, Eval(*s.value, scope), scope);
            return Flow::kNormal;
          },
          [&](const lang::Return& s) {
            scope.return_value = s.value ? Eval(*s.value, scope) : Value();
            return Flow::kReturn;
          },
          [&](const lang::If& s) {
            if (interp_.Truthy(Eval(*s.test, scope))) return ExecBlock(s.body, scope);
            return ExecBlock(s.orelse, scope);
          },
          [&](const lang::For& s) {
            Value iterable = Eval(*s.iter, scope);
            interp_.SetSpan(s.iter->span);
            ObjectRef iterator = interp_.GetIter(iterable);
            LoopScope loop(interp_.loops_, stmt.span);
            while (true) {
              interp_.Step();
              std::optional<Value> item = interp_.Next(iterator);
              if (!item) break;
              Assign(*s.target, *item, scope);
              Flow flow = ExecBlock(s.body, scope);
              if (flow == Flow::kBreak) return Flow::kNormal;
              if (flow == Flow::kReturn) return flow;
            }
            return ExecBlock(s.orelse, scope);
          },
          [&](const lang::While& s) {
            LoopScope loop(interp_.loops_, stmt.span);
            while (true) {
              interp_.SetSpan(stmt.span);
              interp_.Step();
              if (!interp_.Truthy(Eval(*s.test, scope))) break;
              Flow flow = ExecBlock(s.body, scope);
              if (flow == Flow::kBreak) return Flow::kNormal;
              if (flow == Flow::kReturn) return flow;
            }
            return ExecBlock(s.orelse, scope);
          },
          [&](const lang::Break&) { return Flow::kBreak; },
          [&](const lang::Continue&) { return Flow::kContinue; },
          [&](const lang::Pass&) { return Flow::kNormal; },
          [&](const lang::FunctionDef& s) {
            DefineFunction(s, stmt, scope);
            return Flow::kNormal;
          },
          [&](const lang::Import& s) {
            ExecImport(s, stmt, scope);
            return Flow::kNormal;
          },
          [&](const lang::ImportFrom& s) {
            ExecImportFrom(s, stmt, scope);
            return Flow::kNormal;
          },
          [&](const lang::Assert& s) {
            if (!interp_.Truthy(Eval(*s.test, scope))) {
              std::vector<Value> args;
              if (s.msg) args.push_back(Eval(*s.msg, scope));
              interp_.SetSpan(stmt.span);
              interp_.Throw(interp_.NewException(interp_.types().assertion_error, args));
            }
            return Flow::kNormal;
          },
          [&](const lang::Raise& s) {
            ExecRaise(s, stmt, scope);
            return Flow::kNormal;
          },
          [&](const lang::Global&) { return Flow::kNormal; },
          [&](const lang::Nonlocal&) { return Flow::kNormal; },
          [&](const lang::Delete& s) {
            for (const lang::ExprPtr& target : s.targets) Delete(*target, scope);
            return Flow::kNormal;
          },
          [&](const lang::Try& s) { return ExecTry(s, scope); },
          [&](const lang::ClassDef& s) {
            DefineClass(s, stmt, scope);
            return Flow::kNormal;
          },
          [&](const lang::With& s) { return ExecWith(s, 0, scope); },
      },
      stmt.node);
}

// ---- try / raise -----------------------------------------------------------------------------

Evaluator::Flow Evaluator::ExecTry(const lang::Try& node, Scope& scope) {
  if (node.finalbody.empty()) return ExecTryBody(node, scope);
  Flow flow = Flow::kNormal;
  std::optional<PyError> pending;
  try {
    flow = ExecTryBody(node, scope);
  } catch (const PyError& error) {
    pending = error;
  }
  Value saved_return = scope.return_value;
  Flow final_flow = ExecBlock(node.finalbody, scope);
  // A `return`/`break`/`continue` in `finally` wins over the pending exception, as in Python.
  if (final_flow != Flow::kNormal) return final_flow;
  if (pending) throw *pending;
  scope.return_value = saved_return;
  return flow;
}

Evaluator::Flow Evaluator::ExecTryBody(const lang::Try& node, Scope& scope) {
  std::shared_ptr<ExceptionObject> caught;
  try {
    Flow flow = ExecBlock(node.body, scope);
    if (flow != Flow::kNormal) return flow;
  } catch (const PyError& error) {
    caught = error.exception;
  }
  if (!caught) return ExecBlock(node.orelse, scope);

  for (const lang::ExceptHandler& handler : node.handlers) {
    bool matches = handler.type == nullptr;
    if (!matches) {
      Value type = Eval(*handler.type, scope);
      auto check = [&](const Value& candidate) {
        auto* t = candidate.as<TypeObject>();
        if (t == nullptr || !t->IsSubtypeOf(interp_.types().base_exception)) {
          interp_.RaiseAt(handler.type->span, interp_.types().type_error,
                          "catching classes that do not inherit from BaseException is not "
                          "allowed");
        }
        return caught->type->IsSubtypeOf(t);
      };
      if (auto* tuple = type.as<TupleObject>()) {
        for (const Value& item : tuple->items) matches = matches || check(item);
      } else {
        matches = check(type);
      }
    }
    if (!matches) continue;
    if (!handler.name.empty()) StoreName(handler.name, Value(caught), scope);
    interp_.handling_.push_back(caught);
    Flow flow;
    try {
      flow = ExecBlock(handler.body, scope);
    } catch (...) {
      interp_.handling_.pop_back();
      throw;
    }
    interp_.handling_.pop_back();
    if (!handler.name.empty()) scope.env->vars.erase(handler.name);
    return flow;
  }
  throw PyError{caught};
}

void Evaluator::ExecRaise(const lang::Raise& node, const lang::Stmt& stmt, Scope& scope) {
  if (!node.exc) {
    if (interp_.handling_.empty()) {
      interp_.RaiseAt(stmt.span, interp_.types().runtime_error, "No active exception to reraise");
    }
    throw PyError{interp_.handling_.back()};
  }
  Value exc = Eval(*node.exc, scope);
  if (node.cause) Eval(*node.cause, scope);
  interp_.SetSpan(stmt.span);
  if (auto* type = exc.as<TypeObject>();
      type && type->IsSubtypeOf(interp_.types().base_exception)) {
    interp_.Throw(interp_.NewException(type, {}));
  }
  if (auto exception =
          std::dynamic_pointer_cast<ExceptionObject>(exc.is_object() ? exc.object() : nullptr)) {
    interp_.Throw(exception);
  }
  interp_.Raise(interp_.types().type_error, "exceptions must derive from BaseException");
}

// ---- def / import ----------------------------------------------------------------------------

void Evaluator::DefineFunction(const lang::FunctionDef& node, const lang::Stmt& stmt,
                               Scope& scope) {
  std::vector<Value> decorators;
  for (const lang::ExprPtr& decorator : node.decorators) {
    decorators.push_back(Eval(*decorator, scope));
  }
  std::string qualname = QualifiedName(node.name, scope);
  auto code = interp_.CodeFor(&node, [&] { return AnalyzeFunction(node, qualname); });
  Value function = MakeFunction(code, node.params, scope);
  for (auto it = decorators.rbegin(); it != decorators.rend(); ++it) {
    interp_.SetSpan(node.decorators[decorators.rend() - it - 1]->span);
    function = interp_.Call(*it, {function});
  }
  StoreName(node.name, function, scope);
}

std::string Evaluator::QualifiedName(const std::string& name, const Scope& scope) const {
  if (scope.code == nullptr) return name;
  if (scope.code->is_class) return scope.code->qualname + "." + name;
  if (scope.code->params != nullptr) return scope.code->qualname + ".<locals>." + name;
  return name;
}

void Evaluator::RecordAnnotation(const lang::AnnAssign& node, Scope& scope) {
  auto* name = std::get_if<lang::Name>(&node.target->node);
  if (name == nullptr) return;
  // Annotations are kept as their source text (as `from __future__ import annotations` does)
  // and never evaluated: they document, the engine does not enforce them.
  Value* existing = scope.env->Find("__annotations__");
  if (existing == nullptr || !existing->is(ObjectKind::kDict)) {
    auto dict = std::make_shared<DictObject>();
    interp_.Track(dict);
    StoreName("__annotations__", Value(dict), scope);
    existing = scope.env->Find("__annotations__");
  }
  std::string text(interp_.sources().Text(node.annotation->span));
  existing->as<DictObject>()->Set(interp_, MakeStr(name->id), MakeStr(std::move(text)));
}

void Evaluator::DefineClass(const lang::ClassDef& node, const lang::Stmt& stmt, Scope& scope) {
  std::vector<Value> decorators;
  for (const lang::ExprPtr& decorator : node.decorators) {
    decorators.push_back(Eval(*decorator, scope));
  }
  std::vector<Value> bases;
  for (const lang::ExprPtr& base : node.bases) {
    if (auto* starred = std::get_if<lang::Starred>(&base->node)) {
      for (const Value& item : interp_.ToVector(Eval(*starred->value, scope))) {
        bases.push_back(item);
      }
    } else {
      bases.push_back(Eval(*base, scope));
    }
  }
  for (const auto& [keyword, value] : node.keywords) {
    Eval(*value, scope);  // metaclass=ABCMeta, total=False, ...: evaluated, then ignored
  }
  std::string qualname = QualifiedName(node.name, scope);
  auto code = interp_.CodeFor(&node, [&] { return AnalyzeClass(node, qualname); });
  // The body runs in its own namespace; functions defined in it skip it when they look up
  // names (see MakeFunction), as in Python.
  std::shared_ptr<Environment> parent;
  if (scope.code != nullptr) parent = scope.code->is_class ? scope.env->parent : scope.env;
  auto env = std::make_shared<Environment>(code.get(), parent);
  Scope body{env, code.get(), scope.globals, Value()};
  std::string module = "__main__";
  if (Value* name = scope.globals->Find("__name__");
      name != nullptr && name->is(ObjectKind::kStr)) {
    module = name->as<StrObject>()->value;
  }
  StoreName("__module__", MakeStr(module), body);
  StoreName("__qualname__", MakeStr(qualname), body);
  ExecBlock(node.body, body);
  interp_.SetSpan(stmt.span);
  Value cls = MakeClass(interp_, node.name, qualname, bases, env->order, env->vars);
  env->Clear();
  for (auto it = decorators.rbegin(); it != decorators.rend(); ++it) {
    interp_.SetSpan(node.decorators[decorators.rend() - it - 1]->span);
    cls = interp_.Call(*it, {cls});
  }
  StoreName(node.name, cls, scope);
}

Evaluator::Flow Evaluator::ExecWith(const lang::With& node, size_t item, Scope& scope) {
  if (item == node.items.size()) return ExecBlock(node.body, scope);
  const lang::WithItem& with = node.items[item];
  Value manager = Eval(*with.context, scope);
  interp_.SetSpan(with.context->span);
  std::optional<Value> enter = interp_.TryGetAttr(manager, "__enter__");
  std::optional<Value> exit = interp_.TryGetAttr(manager, "__exit__");
  if (!enter || !exit) {
    interp_.Raise(interp_.types().type_error,
                  fmt::format("'{}' object does not support the context manager protocol",
                              interp_.TypeName(manager)));
  }
  Value entered = interp_.Call(*enter, std::vector<Value>{});
  if (with.target) Assign(*with.target, entered, scope);
  Flow flow;
  try {
    flow = ExecWith(node, item + 1, scope);
  } catch (const PyError& error) {
    interp_.SetSpan(with.context->span);
    Value suppress = interp_.Call(
        *exit, {Value(error.exception->type->shared_from_this()), Value(error.exception), Value()});
    if (interp_.Truthy(suppress)) return Flow::kNormal;
    throw;
  }
  interp_.SetSpan(with.context->span);
  interp_.Call(*exit, {Value(), Value(), Value()});
  return flow;
}

void Evaluator::ExecImport(const lang::Import& node, const lang::Stmt& stmt, Scope& scope) {
  for (const lang::Alias& alias : node.names) {
    interp_.SetSpan(alias.span);
    std::shared_ptr<ModuleObject> module = interp_.ImportModule(alias.name);
    if (!alias.asname.empty()) {
      StoreName(alias.asname, Value(module), scope);
    } else {
      // `import a.b` binds `a` (already imported on the way to `a.b`).
      std::string top = alias.name.substr(0, alias.name.find('.'));
      StoreName(top, Value(interp_.ImportModule(top)), scope);
    }
  }
}

void Evaluator::ExecImportFrom(const lang::ImportFrom& node, const lang::Stmt& stmt, Scope& scope) {
  interp_.SetSpan(stmt.span);
  std::string name = node.module;
  if (node.level > 0) name = interp_.ResolveRelativeImport(node.module, node.level, *scope.globals);
  std::shared_ptr<ModuleObject> module = interp_.ImportModule(name);
  for (const lang::Alias& alias : node.names) {
    if (alias.name == "*") {
      for (auto& [key, value] : interp_.ImportStar(*module)) StoreName(key, value, scope);
      continue;
    }
    interp_.SetSpan(alias.span);
    Value value = interp_.ImportFrom(*module, alias.name);
    StoreName(alias.asname.empty() ? alias.name : alias.asname, value, scope);
  }
}

// ---- Names -----------------------------------------------------------------------------------

Value Evaluator::LoadName(const std::string& name, SourceSpan span, Scope& scope) {
  if (scope.code != nullptr && !scope.code->globals.contains(name)) {
    // A class body reads its own names first, and falls back to the enclosing scopes even
    // for names it assigns later (no UnboundLocalError there).
    if (scope.code->is_class) {
      if (Value* v = scope.env->Find(name)) return *v;
    } else if (scope.code->locals.contains(name)) {
      if (Value* v = scope.env->Find(name)) return *v;
      // A comprehension's own variable cannot be unbound here; only function locals can.
      interp_.RaiseAt(span, interp_.types().unbound_local_error,
                      fmt::format("cannot access local variable '{}' where it is not associated "
                                  "with a value",
                                  name));
    }
    for (Environment* env = scope.env->parent.get(); env != nullptr; env = env->parent.get()) {
      if (Value* v = env->Find(name)) return *v;
    }
  }
  if (Value* v = scope.globals->Find(name)) return *v;
  auto builtin = interp_.builtins_.find(name);
  if (builtin != interp_.builtins_.end()) return builtin->second;
  RaiseNameError(name, span, scope);
}

void Evaluator::RaiseNameError(const std::string& name, SourceSpan span, Scope& scope) {
  std::vector<std::string> candidates;
  for (Environment* env = scope.env.get(); env != nullptr; env = env->parent.get()) {
    for (const auto& [n, v] : env->vars) candidates.push_back(n);
  }
  for (const auto& [n, v] : scope.globals->vars) candidates.push_back(n);
  for (const auto& [n, v] : interp_.builtins_) candidates.push_back(n);
  std::sort(candidates.begin(), candidates.end());
  std::vector<std::string> notes;
  if (auto suggestion = SuggestName(name, candidates)) {
    notes.push_back(fmt::format("did you mean `{}`?", *suggestion));
  }
  interp_.SetSpan(span);
  interp_.RaiseWithNotes(interp_.types().name_error, fmt::format("name '{}' is not defined", name),
                         std::move(notes));
}

void Evaluator::StoreName(const std::string& name, Value value, Scope& scope) {
  if (scope.code != nullptr) {
    if (scope.code->globals.contains(name)) {
      scope.globals->vars[name] = std::move(value);
      return;
    }
    if (scope.code->nonlocals.contains(name)) {
      for (Environment* env = scope.env->parent.get(); env != nullptr; env = env->parent.get()) {
        if (env->code != nullptr && env->code->locals.contains(name)) {
          env->vars[name] = std::move(value);
          return;
        }
      }
    }
  }
  if (scope.code != nullptr && scope.code->is_class && !scope.env->vars.contains(name)) {
    scope.env->order.push_back(name);
  }
  scope.env->vars[name] = std::move(value);
}

void Evaluator::DeleteName(const std::string& name, SourceSpan span, Scope& scope) {
  Environment* env = scope.env.get();
  if (scope.code != nullptr && scope.code->globals.contains(name)) env = scope.globals;
  if (env->vars.erase(name) == 0) RaiseNameError(name, span, scope);
}

// ---- Assignment ------------------------------------------------------------------------------

void Evaluator::Assign(const lang::Expr& target, const Value& value, Scope& scope) {
  std::visit(Overloaded{
                 [&](const lang::Name& n) { StoreName(n.id, value, scope); },
                 [&](const lang::Tuple& t) { Unpack(t.elts, value, target.span, scope); },
                 [&](const lang::List& l) { Unpack(l.elts, value, target.span, scope); },
                 [&](const lang::Attribute& a) {
                   Value object = Eval(*a.value, scope);
                   interp_.SetSpan(target.span);
                   interp_.SetAttr(object, a.attr, value);
                 },
                 [&](const lang::Subscript& s) {
                   Value object = Eval(*s.value, scope);
                   Value index = EvalSubscriptIndex(*s.index, scope);
                   interp_.SetSpan(target.span);
                   interp_.SetItem(object, index, value);
                 },
                 [&](const lang::Starred&) {
                   interp_.RaiseAt(target.span, interp_.types().type_error,
                                   "starred assignment target must be in a list or tuple");
                 },
                 // The parser rejects every other target; these are unreachable for parsed code.
                 [&](const lang::NoneLit&) { PZ_UNREACHABLE(); },
                 [&](const lang::BoolLit&) { PZ_UNREACHABLE(); },
                 [&](const lang::IntLit&) { PZ_UNREACHABLE(); },
                 [&](const lang::FloatLit&) { PZ_UNREACHABLE(); },
                 [&](const lang::StrLit&) { PZ_UNREACHABLE(); },
                 [&](const lang::BytesLit&) { PZ_UNREACHABLE(); },
                 [&](const lang::EllipsisLit&) { PZ_UNREACHABLE(); },
                 [&](const lang::FString&) { PZ_UNREACHABLE(); },
                 [&](const lang::UnaryOp&) { PZ_UNREACHABLE(); },
                 [&](const lang::BinOp&) { PZ_UNREACHABLE(); },
                 [&](const lang::BoolOp&) { PZ_UNREACHABLE(); },
                 [&](const lang::Compare&) { PZ_UNREACHABLE(); },
                 [&](const lang::IfExp&) { PZ_UNREACHABLE(); },
                 [&](const lang::Lambda&) { PZ_UNREACHABLE(); },
                 [&](const lang::Call&) { PZ_UNREACHABLE(); },
                 [&](const lang::Slice&) { PZ_UNREACHABLE(); },
                 [&](const lang::Set&) { PZ_UNREACHABLE(); },
                 [&](const lang::Dict&) { PZ_UNREACHABLE(); },
                 [&](const lang::ListComp&) { PZ_UNREACHABLE(); },
                 [&](const lang::SetComp&) { PZ_UNREACHABLE(); },
                 [&](const lang::DictComp&) { PZ_UNREACHABLE(); },
                 [&](const lang::GeneratorExp&) { PZ_UNREACHABLE(); },
                 [&](const lang::NamedExpr&) { PZ_UNREACHABLE(); },
             },
             target.node);
}

void Evaluator::Unpack(const std::vector<lang::ExprPtr>& targets, const Value& value,
                       SourceSpan span, Scope& scope) {
  interp_.SetSpan(span);
  if (interp_.TryGetIter(value) == nullptr) {
    interp_.Raise(interp_.types().type_error,
                  fmt::format("cannot unpack non-iterable {} object", interp_.TypeName(value)));
  }
  std::vector<Value> items = interp_.ToVector(value);
  size_t star = targets.size();
  for (size_t i = 0; i < targets.size(); ++i) {
    if (std::holds_alternative<lang::Starred>(targets[i]->node)) star = i;
  }
  interp_.SetSpan(span);
  if (star == targets.size()) {
    if (items.size() > targets.size()) {
      interp_.Raise(interp_.types().value_error,
                    fmt::format("too many values to unpack (expected {})", targets.size()));
    }
    if (items.size() < targets.size()) {
      interp_.Raise(interp_.types().value_error,
                    fmt::format("not enough values to unpack (expected {}, got {})", targets.size(),
                                items.size()));
    }
    for (size_t i = 0; i < targets.size(); ++i) Assign(*targets[i], items[i], scope);
    return;
  }
  size_t fixed = targets.size() - 1;
  if (items.size() < fixed) {
    interp_.Raise(interp_.types().value_error,
                  fmt::format("not enough values to unpack (expected at least {}, got {})", fixed,
                              items.size()));
  }
  size_t after = targets.size() - star - 1;
  for (size_t i = 0; i < star; ++i) Assign(*targets[i], items[i], scope);
  std::vector<Value> rest(items.begin() + static_cast<std::ptrdiff_t>(star),
                          items.end() - static_cast<std::ptrdiff_t>(after));
  auto list = std::make_shared<ListObject>(std::move(rest));
  interp_.Track(list);
  Assign(*std::get<lang::Starred>(targets[star]->node).value, Value(list), scope);
  for (size_t i = 0; i < after; ++i) {
    Assign(*targets[star + 1 + i], items[items.size() - after + i], scope);
  }
}

namespace {

// The in-place method of `op=` that library objects may define, or nullptr.
const char* InplaceMethodName(lang::BinOpKind op) {
  switch (op) {
    case lang::BinOpKind::kAdd:
      return "__iadd__";
    case lang::BinOpKind::kSub:
      return "__isub__";
    case lang::BinOpKind::kMul:
      return "__imul__";
    case lang::BinOpKind::kBitOr:
      return "__ior__";
    case lang::BinOpKind::kBitAnd:
      return "__iand__";
    default:
      return nullptr;
  }
}

}  // namespace

void Evaluator::AugAssign(const lang::AugAssign& node, Scope& scope) {
  const lang::Expr& target = *node.target;
  auto apply = [&](const Value& current) {
    Value rhs = Eval(*node.value, scope);
    interp_.SetSpan(SourceSpan::Cover(target.span, node.value->span));
    // `lst += iterable` extends the list in place, as Python's list.__iadd__ does.
    if (node.op == lang::BinOpKind::kAdd) {
      if (auto* list = current.as<ListObject>()) {
        std::vector<Value> extra = interp_.ToVector(rhs);
        list->items.insert(list->items.end(), extra.begin(), extra.end());
        return current;
      }
    }
    // Library objects that update in place (`queue += items` on a deque, `counts -= other` on a
    // Counter) provide the in-place method; user classes go through `__add__` and the like.
    bool library_object = current.is(ObjectKind::kExtension)
                              ? current.as<InstanceObject>() == nullptr
                              : current.is(ObjectKind::kDict) && current.as<DictObject>()->type;
    if (const char* name = InplaceMethodName(node.op); library_object && name != nullptr) {
      if (std::optional<Value> method = current.object()->GetAttr(interp_, name)) {
        return interp_.Call(*method, std::vector<Value>{rhs});
      }
    }
    return interp_.BinaryOp(node.op, current, rhs, /*inplace=*/true);
  };
  if (auto* name = std::get_if<lang::Name>(&target.node)) {
    Value current = LoadName(name->id, target.span, scope);
    StoreName(name->id, apply(current), scope);
  } else if (auto* sub = std::get_if<lang::Subscript>(&target.node)) {
    Value object = Eval(*sub->value, scope);
    Value index = EvalSubscriptIndex(*sub->index, scope);
    interp_.SetSpan(target.span);
    Value current = interp_.GetItem(object, index);
    Value updated = apply(current);
    interp_.SetSpan(target.span);
    interp_.SetItem(object, index, updated);
  } else if (auto* attr = std::get_if<lang::Attribute>(&target.node)) {
    Value object = Eval(*attr->value, scope);
    interp_.SetSpan(target.span);
    Value current = interp_.GetAttr(object, attr->attr);
    Value updated = apply(current);
    interp_.SetSpan(target.span);
    interp_.SetAttr(object, attr->attr, updated);
  } else {
    interp_.RaiseAt(target.span, interp_.types().type_error,
                    "invalid target for augmented assignment");
  }
}

void Evaluator::Delete(const lang::Expr& target, Scope& scope) {
  if (auto* name = std::get_if<lang::Name>(&target.node)) {
    DeleteName(name->id, target.span, scope);
  } else if (auto* sub = std::get_if<lang::Subscript>(&target.node)) {
    Value object = Eval(*sub->value, scope);
    Value index = EvalSubscriptIndex(*sub->index, scope);
    interp_.SetSpan(target.span);
    interp_.DelItem(object, index);
  } else if (auto* tuple = std::get_if<lang::Tuple>(&target.node)) {
    for (const lang::ExprPtr& e : tuple->elts) Delete(*e, scope);
  } else if (auto* list = std::get_if<lang::List>(&target.node)) {
    for (const lang::ExprPtr& e : list->elts) Delete(*e, scope);
  } else {
    interp_.RaiseAt(target.span, interp_.types().type_error, "cannot delete this expression");
  }
}

}  // namespace pz::eval

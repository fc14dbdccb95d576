// Expression evaluation: literals, operators, calls, subscripts, displays, comprehensions and
// f-strings. Before each operation that can fail, the current span is set to the node, so an
// error points at the exact sub-expression.
#include "eval/evaluator.h"

#include <fmt/format.h>

#include "eval/bytes.h"
#include "support/overloaded.h"

namespace pz::eval {

Value Evaluator::Eval(const lang::Expr& expr, Scope& scope) {
  return std::visit(
      Overloaded{
          [&](const lang::Name& n) { return LoadName(n.id, expr.span, scope); },
          [&](const lang::NoneLit&) { return Value(); },
          [&](const lang::BoolLit& b) { return Value::Bool(b.value); },
          [&](const lang::IntLit& i) { return Value::Int(i.value); },
          [&](const lang::FloatLit& f) { return Value::Float(f.value); },
          [&](const lang::StrLit& s) { return MakeStr(s.value); },
          [&](const lang::BytesLit& b) { return MakeBytes(b.value); },
          [&](const lang::EllipsisLit&) { return interp_.ellipsis(); },
          [&](const lang::FString& f) { return EvalFString(f, scope); },
          [&](const lang::UnaryOp& u) {
            Value operand = Eval(*u.operand, scope);
            interp_.SetSpan(expr.span);
            if (u.op == lang::UnaryOpKind::kNot) return Value::Bool(!interp_.Truthy(operand));
            return interp_.UnaryOp(u.op, operand);
          },
          [&](const lang::BinOp& b) {
            Value left = Eval(*b.left, scope);
            Value right = Eval(*b.right, scope);
            interp_.SetSpan(expr.span);
            return interp_.BinaryOp(b.op, left, right);
          },
          [&](const lang::BoolOp& b) {
            Value result;
            for (const lang::ExprPtr& operand : b.values) {
              result = Eval(*operand, scope);
              interp_.SetSpan(operand->span);
              bool truth = interp_.Truthy(result);
              if (b.op == lang::BoolOpKind::kAnd ? !truth : truth) break;
            }
            return result;
          },
          [&](const lang::Compare& c) { return EvalCompare(c, scope); },
          [&](const lang::IfExp& i) {
            Value test = Eval(*i.test, scope);
            interp_.SetSpan(i.test->span);
            return interp_.Truthy(test) ? Eval(*i.body, scope) : Eval(*i.orelse, scope);
          },
          [&](const lang::Lambda& l) { return EvalLambda(l, expr, scope); },
          [&](const lang::Call& c) { return EvalCall(c, expr, scope); },
          [&](const lang::Attribute& a) {
            Value object = Eval(*a.value, scope);
            interp_.SetSpan(expr.span);
            return interp_.GetAttr(object, a.attr);
          },
          [&](const lang::Subscript& s) {
            Value object = Eval(*s.value, scope);
            Value index = EvalSubscriptIndex(*s.index, scope);
            interp_.SetSpan(expr.span);
            return interp_.GetItem(object, index);
          },
          [&](const lang::Slice&) {
            // Only reachable through EvalSubscriptIndex, which handles slices itself.
            interp_.RaiseAt(expr.span, interp_.types().type_error,
                            "a slice is only valid inside `[...]`");
            return Value();
          },
          [&](const lang::Starred&) {
            interp_.RaiseAt(expr.span, interp_.types().type_error,
                            "can't use starred expression here");
            return Value();
          },
          [&](const lang::Tuple& t) { return MakeTuple(EvalElements(t.elts, scope)); },
          [&](const lang::List& l) {
            auto list = std::make_shared<ListObject>(EvalElements(l.elts, scope));
            interp_.Track(list);
            return Value(list);
          },
          [&](const lang::Set& s) {
            auto set = std::make_shared<SetObject>();
            interp_.Track(set);
            std::vector<Value> items = EvalElements(s.elts, scope);
            interp_.SetSpan(expr.span);
            for (const Value& item : items) set->table.Set(interp_, item, Value());
            return Value(set);
          },
          [&](const lang::Dict& d) {
            auto dict = std::make_shared<DictObject>();
            interp_.Track(dict);
            for (const lang::DictItem& item : d.items) {
              if (item.key == nullptr) {
                Value other = Eval(*item.value, scope);
                auto* source = other.as<DictObject>();
                if (source == nullptr) {
                  interp_.RaiseAt(
                      item.value->span, interp_.types().type_error,
                      fmt::format("'{}' object is not a mapping", interp_.TypeName(other)));
                }
                for (auto& [k, v] : source->Items()) dict->Set(interp_, k, v);
                continue;
              }
              Value key = Eval(*item.key, scope);
              Value value = Eval(*item.value, scope);
              interp_.SetSpan(item.key->span);
              dict->Set(interp_, key, value);
            }
            return Value(dict);
          },
          [&](const lang::ListComp& c) {
            auto list = std::make_shared<ListObject>();
            interp_.Track(list);
            RunComprehension(c.generators, &c, "<listcomp>", expr.span, scope,
                             [&](Scope& inner) { list->items.push_back(Eval(*c.elt, inner)); });
            return Value(list);
          },
          [&](const lang::SetComp& c) {
            auto set = std::make_shared<SetObject>();
            interp_.Track(set);
            RunComprehension(c.generators, &c, "<setcomp>", expr.span, scope, [&](Scope& inner) {
              Value item = Eval(*c.elt, inner);
              interp_.SetSpan(c.elt->span);
              set->table.Set(interp_, item, Value());
            });
            return Value(set);
          },
          [&](const lang::DictComp& c) {
            auto dict = std::make_shared<DictObject>();
            interp_.Track(dict);
            RunComprehension(c.generators, &c, "<dictcomp>", expr.span, scope, [&](Scope& inner) {
              Value key = Eval(*c.key, inner);
              Value value = Eval(*c.value, inner);
              interp_.SetSpan(c.key->span);
              dict->Set(interp_, key, value);
            });
            return Value(dict);
          },
          [&](const lang::GeneratorExp& c) {
            // Generator expressions are evaluated eagerly; the course only consumes them whole
            // (sum, any, all, tuple, ...).
            auto items = std::make_shared<std::vector<Value>>();
            RunComprehension(c.generators, &c, "<genexpr>", expr.span, scope,
                             [&](Scope& inner) { items->push_back(Eval(*c.elt, inner)); });
            auto position = std::make_shared<size_t>(0);
            return Value(std::make_shared<IteratorObject>(
                "generator", [items, position](Interpreter&) -> std::optional<Value> {
                  if (*position >= items->size()) return std::nullopt;
                  return (*items)[(*position)++];
                }));
          },
          [&](const lang::NamedExpr& n) {
            Value value = Eval(*n.value, scope);
            // In a comprehension the name binds in the scope that holds the comprehension.
            Scope* target = &scope;
            Scope outer{nullptr, nullptr, scope.globals, Value()};
            if (scope.code != nullptr && scope.code->is_comprehension) {
              Environment* env = scope.env.get();
              while (env != nullptr && env->code != nullptr && env->code->is_comprehension) {
                env = env->parent.get();
              }
              if (env != nullptr && env->code != nullptr) {
                outer.env = std::shared_ptr<Environment>(scope.env, env);
                outer.code = env->code;
              } else {
                outer.env = std::shared_ptr<Environment>(scope.env, scope.globals);
              }
              target = &outer;
            }
            StoreName(n.target, value, *target);
            return value;
          },
      },
      expr.node);
}

std::vector<Value> Evaluator::EvalElements(const std::vector<lang::ExprPtr>& elts, Scope& scope) {
  std::vector<Value> items;
  items.reserve(elts.size());
  for (const lang::ExprPtr& elt : elts) {
    if (auto* starred = std::get_if<lang::Starred>(&elt->node)) {
      Value iterable = Eval(*starred->value, scope);
      interp_.SetSpan(elt->span);
      interp_.ForEach(iterable, [&](const Value& item) {
        items.push_back(item);
        return true;
      });
    } else {
      items.push_back(Eval(*elt, scope));
    }
  }
  return items;
}

Value Evaluator::EvalSubscriptIndex(const lang::Expr& index, Scope& scope) {
  auto bound = [&](const lang::ExprPtr& e) { return e ? Eval(*e, scope) : Value(); };
  if (auto* slice = std::get_if<lang::Slice>(&index.node)) {
    Value lower = bound(slice->lower);
    Value upper = bound(slice->upper);
    Value step = bound(slice->step);
    return Value(std::make_shared<SliceObject>(lower, upper, step));
  }
  if (auto* tuple = std::get_if<lang::Tuple>(&index.node)) {
    std::vector<Value> items;
    for (const lang::ExprPtr& elt : tuple->elts) {
      if (std::holds_alternative<lang::Starred>(elt->node)) {
        return MakeTuple(EvalElements(tuple->elts, scope));
      }
      items.push_back(EvalSubscriptIndex(*elt, scope));
    }
    return MakeTuple(std::move(items));
  }
  return Eval(index, scope);
}

Value Evaluator::EvalCompare(const lang::Compare& node, Scope& scope) {
  Value left = Eval(*node.left, scope);
  Value result;
  for (size_t i = 0; i < node.ops.size(); ++i) {
    Value right = Eval(*node.comparators[i], scope);
    interp_.SetSpan(SourceSpan::Cover(node.left->span, node.comparators[i]->span));
    result = interp_.Compare(node.ops[i], left, right);
    if (i + 1 < node.ops.size() && !interp_.Truthy(result)) return result;
    left = std::move(right);
  }
  return result;
}

Value Evaluator::EvalCall(const lang::Call& node, const lang::Expr& expr, Scope& scope) {
  Value callee = Eval(*node.func, scope);
  CallArgs args;
  args.span = expr.span;
  for (const lang::Arg& arg : node.args) {
    switch (arg.kind) {
      case lang::ArgKind::kPositional:
        args.positional.push_back(Eval(*arg.value, scope));
        break;
      case lang::ArgKind::kStar: {
        Value iterable = Eval(*arg.value, scope);
        interp_.SetSpan(arg.span);
        if (interp_.TryGetIter(iterable) == nullptr) {
          interp_.Raise(interp_.types().type_error,
                        fmt::format("argument after * must be an iterable, not {}",
                                    interp_.TypeName(iterable)));
        }
        for (Value& item : interp_.ToVector(iterable)) args.positional.push_back(item);
        break;
      }
      case lang::ArgKind::kKeyword: {
        Value value = Eval(*arg.value, scope);
        for (const auto& [name, v] : args.keywords) {
          if (name == arg.name) {
            interp_.RaiseAt(arg.span, interp_.types().type_error,
                            fmt::format("keyword argument repeated: {}", arg.name));
          }
        }
        args.keywords.emplace_back(arg.name, std::move(value));
        break;
      }
      case lang::ArgKind::kDoubleStar: {
        Value mapping = Eval(*arg.value, scope);
        auto* dict = mapping.as<DictObject>();
        interp_.SetSpan(arg.span);
        if (dict == nullptr) {
          interp_.Raise(interp_.types().type_error,
                        fmt::format("argument after ** must be a mapping, not {}",
                                    interp_.TypeName(mapping)));
        }
        for (auto& [key, value] : dict->Items()) {
          auto* name = key.as<StrObject>();
          if (name == nullptr)
            interp_.Raise(interp_.types().type_error, "keywords must be strings");
          for (const auto& [existing, v] : args.keywords) {
            if (existing == name->value) {
              interp_.Raise(
                  interp_.types().type_error,
                  fmt::format("got multiple values for keyword argument '{}'", name->value));
            }
          }
          args.keywords.emplace_back(name->value, value);
        }
        break;
      }
    }
  }
  interp_.SetSpan(expr.span);
  return interp_.Call(callee, std::move(args));
}

Value Evaluator::EvalLambda(const lang::Lambda& node, const lang::Expr& expr, Scope& scope) {
  std::string qualname = "<lambda>";
  if (scope.code != nullptr && scope.code->params != nullptr) {
    qualname = scope.code->qualname + ".<locals>.<lambda>";
  }
  auto code = interp_.CodeFor(&node, [&] { return AnalyzeLambda(node, expr.span, qualname); });
  return MakeFunction(code, node.params, scope);
}

void Evaluator::RunComprehension(const std::vector<lang::Comprehension>& generators,
                                 const void* node, const char* name, SourceSpan span, Scope& scope,
                                 const std::function<void(Scope&)>& emit) {
  auto code = interp_.CodeFor(node, [&] { return AnalyzeComprehension(generators, name, span); });
  auto env = std::make_shared<Environment>(code.get(), scope.code != nullptr ? scope.env : nullptr);
  Scope inner{env, code.get(), scope.globals, Value()};
  RunGenerators(generators, 0, inner, scope, emit);
}

void Evaluator::RunGenerators(const std::vector<lang::Comprehension>& generators, size_t index,
                              Scope& inner, Scope& outer, const std::function<void(Scope&)>& emit) {
  if (index == generators.size()) {
    emit(inner);
    return;
  }
  const lang::Comprehension& gen = generators[index];
  // The first iterable is evaluated in the enclosing scope, as in Python.
  Value iterable = Eval(*gen.iter, index == 0 ? outer : inner);
  interp_.SetSpan(gen.iter->span);
  ObjectRef iterator = interp_.GetIter(iterable);
  while (true) {
    interp_.Step();
    std::optional<Value> item = interp_.Next(iterator);
    if (!item) break;
    Assign(*gen.target, *item, inner);
    bool keep = true;
    for (const lang::ExprPtr& condition : gen.ifs) {
      Value test = Eval(*condition, inner);
      interp_.SetSpan(condition->span);
      if (!interp_.Truthy(test)) {
        keep = false;
        break;
      }
    }
    if (keep) RunGenerators(generators, index + 1, inner, outer, emit);
  }
}

Value Evaluator::EvalFString(const lang::FString& node, Scope& scope) {
  std::string out;
  for (const lang::FStringPart& part : node.parts) {
    if (part.value == nullptr) {
      out += part.literal;
      continue;
    }
    Value value = Eval(*part.value, scope);
    out += part.debug_text;
    std::string spec;
    if (part.format_spec != nullptr) {
      Value spec_value = Eval(*part.format_spec, scope);
      spec = spec_value.as<StrObject>()->value;
    }
    interp_.SetSpan(part.value->span);
    char conversion = part.conversion;
    // `{x=}` shows the repr unless a conversion or spec says otherwise.
    if (conversion == 0 && !part.debug_text.empty() && part.format_spec == nullptr) {
      conversion = 'r';
    }
    if (conversion == 'r' || conversion == 'a') value = MakeStr(interp_.Repr(value));
    if (conversion == 's') value = MakeStr(interp_.Str(value));
    out += interp_.Format(value, spec);
  }
  return MakeStr(std::move(out));
}

}  // namespace pz::eval

// Static scope analysis and runtime environments. Python decides at compile time which names
// of a function are local (assigned anywhere in its body), global or nonlocal; FunctionCode
// records that per def, lambda and comprehension. An Environment is one live scope.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "eval/value.h"
#include "lang/ast.h"

namespace pz::eval {

// The static part of a function (or lambda, or comprehension scope).
struct FunctionCode {
  std::string name;                      // "f", "<lambda>", "<listcomp>"
  std::string qualname;                  // "outer.<locals>.f", as used in CPython's error messages
  const lang::Params* params = nullptr;  // nullptr for comprehensions
  const lang::Block* body = nullptr;     // def
  const lang::Expr* lambda_body = nullptr;    // lambda
  std::unordered_set<std::string> locals;     // assigned here, minus global/nonlocal names
  std::unordered_set<std::string> globals;    // declared `global`
  std::unordered_set<std::string> nonlocals;  // declared `nonlocal`
  SourceSpan span;
  bool is_class = false;          // a class body: its names become the class's attributes
  bool is_comprehension = false;  // `x := v` inside binds in the enclosing scope
};

std::shared_ptr<FunctionCode> AnalyzeFunction(const lang::FunctionDef& def,
                                              const std::string& qualname);
std::shared_ptr<FunctionCode> AnalyzeLambda(const lang::Lambda& lambda, SourceSpan span,
                                            const std::string& qualname);
// A class body's scope: names it binds are the class's attributes.
std::shared_ptr<FunctionCode> AnalyzeClass(const lang::ClassDef& def, const std::string& qualname);
// A comprehension's own scope: its `for` targets are local to it.
std::shared_ptr<FunctionCode> AnalyzeComprehension(
    const std::vector<lang::Comprehension>& generators, std::string name, SourceSpan span);

// Binds every Name in an assignment target (a, (b, *c), but not x[i] or x.y) into `out`.
void CollectTargetNames(const lang::Expr& target, std::unordered_set<std::string>& out);

// One live scope: the locals of a call, the module globals, or a comprehension's variables.
// Always owned by a shared_ptr (a function defined in a module keeps that module's globals).
class Environment : public std::enable_shared_from_this<Environment> {
 public:
  Environment(const FunctionCode* code, std::shared_ptr<Environment> parent)
      : code(code), parent(std::move(parent)) {}

  Value* Find(const std::string& name) {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : &it->second;
  }
  void Clear() {
    vars.clear();
    parent.reset();
  }

  const FunctionCode* code;             // nullptr for module globals
  std::shared_ptr<Environment> parent;  // lexically enclosing function scope, or nullptr
  std::unordered_map<std::string, Value> vars;
  std::vector<std::string> order;  // a class body's names in first-binding order
};

}  // namespace pz::eval

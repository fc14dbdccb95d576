// The tree walker (internal to eval/): executes statements (evaluator.cpp), evaluates
// expressions (expressions.cpp) and calls user functions (calls.cpp). It holds no state of its
// own beyond a reference to the Interpreter, so one can be made wherever code must run.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/interpreter.h"
#include "eval/scope.h"
#include "lang/ast.h"

namespace pz::eval {

// The closest of `candidates` to `name` if close enough to be a plausible typo (evaluator.cpp).
std::optional<std::string> SuggestName(std::string_view name,
                                       const std::vector<std::string>& candidates);

// The scope a piece of code runs in.
struct Scope {
  std::shared_ptr<Environment> env;  // locals; the module globals at top level
  const FunctionCode* code;          // nullptr at module level
  Environment* globals;
  Value return_value;  // set by `return`
};

class Evaluator {
 public:
  explicit Evaluator(Interpreter& interp) : interp_(interp) {}

  enum class Flow { kNormal, kBreak, kContinue, kReturn };

  void ExecModule(const lang::Block& body, Scope& scope);
  Flow ExecBlock(const lang::Block& block, Scope& scope);
  Value Eval(const lang::Expr& expr, Scope& scope);
  // Calls a user function with bound arguments (calls.cpp).
  Value CallFunction(FunctionObject& function, CallArgs& args);

 private:
  Flow Exec(const lang::Stmt& stmt, Scope& scope);
  Flow ExecTry(const lang::Try& node, Scope& scope);
  Flow ExecTryBody(const lang::Try& node, Scope& scope);
  void ExecImport(const lang::Import& node, const lang::Stmt& stmt, Scope& scope);
  void ExecImportFrom(const lang::ImportFrom& node, const lang::Stmt& stmt, Scope& scope);
  void ExecRaise(const lang::Raise& node, const lang::Stmt& stmt, Scope& scope);
  void DefineFunction(const lang::FunctionDef& node, const lang::Stmt& stmt, Scope& scope);
  void DefineClass(const lang::ClassDef& node, const lang::Stmt& stmt, Scope& scope);
  // Runs the body of `with` under its items from `item` on (each one's __enter__/__exit__).
  Flow ExecWith(const lang::With& node, size_t item, Scope& scope);
  // `x: T` in a class body: records the annotation's text in `__annotations__`.
  void RecordAnnotation(const lang::AnnAssign& node, Scope& scope);
  // The __qualname__ of a def or class named `name` defined in `scope`.
  std::string QualifiedName(const std::string& name, const Scope& scope) const;

  // Names.
  Value LoadName(const std::string& name, SourceSpan span, Scope& scope);
  void StoreName(const std::string& name, Value value, Scope& scope);
  void DeleteName(const std::string& name, SourceSpan span, Scope& scope);
  [[noreturn]] void RaiseNameError(const std::string& name, SourceSpan span, Scope& scope);

  // Assignment to a target expression (Name, Tuple/List with one Starred, Attribute, Subscript).
  void Assign(const lang::Expr& target, const Value& value, Scope& scope);
  void Unpack(const std::vector<lang::ExprPtr>& targets, const Value& value, SourceSpan span,
              Scope& scope);
  void AugAssign(const lang::AugAssign& node, Scope& scope);
  void Delete(const lang::Expr& target, Scope& scope);

  // Expressions (expressions.cpp).
  Value EvalCall(const lang::Call& node, const lang::Expr& expr, Scope& scope);
  Value EvalSubscriptIndex(const lang::Expr& index, Scope& scope);
  Value EvalFString(const lang::FString& node, Scope& scope);
  Value EvalCompare(const lang::Compare& node, Scope& scope);
  Value EvalLambda(const lang::Lambda& node, const lang::Expr& expr, Scope& scope);
  std::vector<Value> EvalElements(const std::vector<lang::ExprPtr>& elts, Scope& scope);
  // Runs a comprehension, calling `emit` for each innermost iteration in the comprehension's own
  // scope.
  void RunComprehension(const std::vector<lang::Comprehension>& generators, const void* node,
                        const char* name, SourceSpan span, Scope& scope,
                        const std::function<void(Scope&)>& emit);
  void RunGenerators(const std::vector<lang::Comprehension>& generators, size_t index, Scope& inner,
                     Scope& outer, const std::function<void(Scope&)>& emit);

  // Function definition helpers (calls.cpp).
  Value MakeFunction(std::shared_ptr<const FunctionCode> code, const lang::Params& params,
                     Scope& scope);
  void BindArguments(FunctionObject& function, CallArgs& args, Environment& env);

  Interpreter& interp_;
};

}  // namespace pz::eval

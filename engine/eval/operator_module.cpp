// The `operator` module: the operators as functions, each going through the interpreter's own
// BinaryOp/UnaryOp/Compare/GetItem (so they work on arrays and user classes exactly as the
// operator does), and the itemgetter, attrgetter (dotted names) and methodcaller objects.
#include <fmt/format.h>

#include "eval/builtin_support.h"

namespace pz::eval {
namespace {

using lang::BinOpKind;
using lang::CmpOpKind;
using lang::UnaryOpKind;

// ---- itemgetter, attrgetter, methodcaller -------------------------------------------------------

// Calls a callable object with exactly one argument, as CPython checks: "itemgetter expected 1
// argument, got 2".
const Value& OnlyArgument(Interpreter& interp, const char* name, const CallArgs& args) {
  CheckNoKeywords(interp, name, args);
  if (args.positional.size() != 1) {
    interp.Raise(interp.types().type_error,
                 fmt::format("{} expected 1 argument, got {}", name, args.positional.size()));
  }
  return args.positional[0];
}

std::string JoinReprs(Interpreter& interp, const std::vector<Value>& items) {
  std::string out;
  for (const Value& item : items) out += (out.empty() ? "" : ", ") + interp.Repr(item);
  return out;
}

class ItemGetterObject final : public Object {
 public:
  explicit ItemGetterObject(std::vector<Value> items)
      : Object(ObjectKind::kExtension), items(std::move(items)) {}
  std::string_view type_name() const override { return "operator.itemgetter"; }
  std::string Repr(Interpreter& interp) const override {
    return fmt::format("operator.itemgetter({})", JoinReprs(interp, items));
  }
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override {
    const Value& object = OnlyArgument(interp, "itemgetter", args);
    if (items.size() == 1) return interp.GetItem(object, items[0]);
    std::vector<Value> out;
    for (const Value& item : items) out.push_back(interp.GetItem(object, item));
    return MakeTuple(std::move(out));
  }
  void ClearReferences() override { items.clear(); }
  std::vector<Value> items;
};

class AttrGetterObject final : public Object {
 public:
  explicit AttrGetterObject(std::vector<std::string> names)
      : Object(ObjectKind::kExtension), names(std::move(names)) {}
  std::string_view type_name() const override { return "operator.attrgetter"; }
  std::string Repr(Interpreter& interp) const override {
    std::vector<Value> strs;
    for (const std::string& name : names) strs.push_back(MakeStr(name));
    return fmt::format("operator.attrgetter({})", JoinReprs(interp, strs));
  }
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override {
    const Value& object = OnlyArgument(interp, "attrgetter", args);
    auto get = [&](const std::string& dotted) {
      Value value = object;
      for (size_t start = 0;;) {
        size_t dot = dotted.find('.', start);
        value = interp.GetAttr(value, dotted.substr(start, dot - start));
        if (dot == std::string::npos) return value;
        start = dot + 1;
      }
    };
    if (names.size() == 1) return get(names[0]);
    std::vector<Value> out;
    for (const std::string& name : names) out.push_back(get(name));
    return MakeTuple(std::move(out));
  }
  std::vector<std::string> names;
};

class MethodCallerObject final : public Object {
 public:
  MethodCallerObject(std::string name, CallArgs call)
      : Object(ObjectKind::kExtension), name(std::move(name)), call(std::move(call)) {}
  std::string_view type_name() const override { return "operator.methodcaller"; }
  std::string Repr(Interpreter& interp) const override {
    std::string out = "operator.methodcaller(" + interp.Repr(MakeStr(name));
    for (const Value& arg : call.positional) out += ", " + interp.Repr(arg);
    for (const auto& [key, value] : call.keywords) out += ", " + key + "=" + interp.Repr(value);
    return out + ")";
  }
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override {
    const Value& object = OnlyArgument(interp, "methodcaller", args);
    CallArgs forwarded = call;
    forwarded.span = args.span;
    return interp.Call(interp.GetAttr(object, name), std::move(forwarded));
  }
  void ClearReferences() override {
    call.positional.clear();
    call.keywords.clear();
  }
  std::string name;
  CallArgs call;
};

Value ItemGetter(Interpreter& interp, CallArgs& args) {
  CheckNoKeywords(interp, "itemgetter", args);
  if (args.positional.empty()) {
    interp.Raise(interp.types().type_error, "itemgetter expected 1 argument, got 0");
  }
  return Value(std::make_shared<ItemGetterObject>(args.positional));
}

Value AttrGetter(Interpreter& interp, CallArgs& args) {
  CheckNoKeywords(interp, "attrgetter", args);
  if (args.positional.empty()) {
    interp.Raise(interp.types().type_error, "attrgetter expected 1 argument, got 0");
  }
  std::vector<std::string> names;
  for (const Value& name : args.positional) {
    names.push_back(ToStr(interp, name, "attribute name must be a string"));
  }
  return Value(std::make_shared<AttrGetterObject>(std::move(names)));
}

Value MethodCaller(Interpreter& interp, CallArgs& args) {
  if (args.positional.empty()) {
    interp.Raise(interp.types().type_error,
                 "methodcaller needs at least one argument, the method name");
  }
  std::string name = ToStr(interp, args.positional[0], "method name must be a string");
  CallArgs call;
  call.positional.assign(args.positional.begin() + 1, args.positional.end());
  call.keywords = args.keywords;
  auto caller = std::make_shared<MethodCallerObject>(std::move(name), std::move(call));
  interp.Track(caller);
  return Value(caller);
}

// ---- The operators as functions ---------------------------------------------------------------

bool IsSequence(const Value& v) {
  return v.is(ObjectKind::kStr) || v.is(ObjectKind::kList) || v.is(ObjectKind::kTuple) ||
         v.is(ObjectKind::kExtension);
}

const std::pair<const char*, BuiltinFunctionObject::Fn> kFunctions[] = {
    {"not_", [](Interpreter& in,
                CallArgs& args) { return Value::Bool(!in.Truthy(OneArg(in, "not_", args))); }},
    {"truth", [](Interpreter& in,
                 CallArgs& args) { return Value::Bool(in.Truthy(OneArg(in, "truth", args))); }},
    {"abs",
     [](Interpreter& in, CallArgs& args) {
       OneArg(in, "abs", args);
       return in.Call(in.builtins().at("abs"), args);
     }},
    {"index", [](Interpreter& in,
                 CallArgs& args) { return Value::Int(ToIndex(in, OneArg(in, "index", args))); }},
    {"is_",
     [](Interpreter& in, CallArgs& args) {
       CheckArgCount(in, "is_", args, 2, 2);
       return Value::Bool(args.positional[0].Identical(args.positional[1]));
     }},
    {"is_not",
     [](Interpreter& in, CallArgs& args) {
       CheckArgCount(in, "is_not", args, 2, 2);
       return Value::Bool(!args.positional[0].Identical(args.positional[1]));
     }},
    {"getitem",
     [](Interpreter& in, CallArgs& args) {
       CheckArgCount(in, "getitem", args, 2, 2);
       return in.GetItem(args.positional[0], args.positional[1]);
     }},
    {"setitem",
     [](Interpreter& in, CallArgs& args) {
       CheckArgCount(in, "setitem", args, 3, 3);
       in.SetItem(args.positional[0], args.positional[1], args.positional[2]);
       return Value();
     }},
    {"delitem",
     [](Interpreter& in, CallArgs& args) {
       CheckArgCount(in, "delitem", args, 2, 2);
       in.DelItem(args.positional[0], args.positional[1]);
       return Value();
     }},
    {"contains",
     [](Interpreter& in, CallArgs& args) {
       CheckArgCount(in, "contains", args, 2, 2);
       return Value::Bool(in.Contains(args.positional[0], args.positional[1]));
     }},
    {"concat",
     [](Interpreter& in, CallArgs& args) {
       CheckArgCount(in, "concat", args, 2, 2);
       if (!IsSequence(args.positional[0])) {
         in.Raise(in.types().type_error, fmt::format("'{}' object can't be concatenated",
                                                     in.TypeName(args.positional[0])));
       }
       return in.BinaryOp(BinOpKind::kAdd, args.positional[0], args.positional[1]);
     }},
    {"countOf",
     [](Interpreter& in, CallArgs& args) {
       CheckArgCount(in, "countOf", args, 2, 2);
       int64_t count = 0;
       in.ForEach(args.positional[0], [&](const Value& item) {
         count += item.Identical(args.positional[1]) || in.Equals(item, args.positional[1]);
         return true;
       });
       return Value::Int(count);
     }},
    {"indexOf",
     [](Interpreter& in, CallArgs& args) {
       CheckArgCount(in, "indexOf", args, 2, 2);
       int64_t index = 0, found = -1;
       in.ForEach(args.positional[0], [&](const Value& item) {
         if (item.Identical(args.positional[1]) || in.Equals(item, args.positional[1])) {
           found = index;
           return false;
         }
         ++index;
         return true;
       });
       if (found < 0) in.Raise(in.types().value_error, "sequence.index(x): x not in sequence");
       return Value::Int(found);
     }},
    {"itemgetter", ItemGetter},
    {"attrgetter", AttrGetter},
    {"methodcaller", MethodCaller},
};

}  // namespace

std::shared_ptr<ModuleObject> MakeOperatorModule(Interpreter& interp) {
  auto module = std::make_shared<ModuleObject>("operator");
  const std::pair<const char*, BinOpKind> binary[] = {
      {"add", BinOpKind::kAdd},       {"sub", BinOpKind::kSub},
      {"mul", BinOpKind::kMul},       {"matmul", BinOpKind::kMatMul},
      {"truediv", BinOpKind::kDiv},   {"floordiv", BinOpKind::kFloorDiv},
      {"mod", BinOpKind::kMod},       {"pow", BinOpKind::kPow},
      {"lshift", BinOpKind::kLShift}, {"rshift", BinOpKind::kRShift},
      {"or_", BinOpKind::kBitOr},     {"xor", BinOpKind::kBitXor},
      {"and_", BinOpKind::kBitAnd},
  };
  for (const auto& [name, op] : binary) {
    std::string n = name;
    BinOpKind o = op;
    module->Set(name, interp.MakeBuiltin(name, [n, o](Interpreter& in, CallArgs& args) {
      CheckArgCount(in, n, args, 2, 2);
      return in.BinaryOp(o, args.positional[0], args.positional[1]);
    }));
  }
  const std::pair<const char*, CmpOpKind> comparisons[] = {
      {"eq", CmpOpKind::kEq},  {"ne", CmpOpKind::kNotEq}, {"lt", CmpOpKind::kLt},
      {"le", CmpOpKind::kLtE}, {"gt", CmpOpKind::kGt},    {"ge", CmpOpKind::kGtE},
  };
  for (const auto& [name, op] : comparisons) {
    std::string n = name;
    CmpOpKind o = op;
    module->Set(name, interp.MakeBuiltin(name, [n, o](Interpreter& in, CallArgs& args) {
      CheckArgCount(in, n, args, 2, 2);
      return in.Compare(o, args.positional[0], args.positional[1]);
    }));
  }
  const std::pair<const char*, UnaryOpKind> unary[] = {
      {"neg", UnaryOpKind::kNeg},
      {"pos", UnaryOpKind::kPos},
      {"invert", UnaryOpKind::kInvert},
      {"inv", UnaryOpKind::kInvert},
  };
  for (const auto& [name, op] : unary) {
    std::string n = name;
    UnaryOpKind o = op;
    module->Set(name, interp.MakeBuiltin(name, [n, o](Interpreter& in, CallArgs& args) {
      return in.UnaryOp(o, OneArg(in, n, args));
    }));
  }
  for (const auto& [name, fn] : kFunctions) module->Set(name, interp.MakeBuiltin(name, fn));
  return module;
}

}  // namespace pz::eval

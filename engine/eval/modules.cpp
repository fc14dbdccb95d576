// The importable builtin modules: the standard ones written in C++ (`math`, `re`, `itertools`,
// `operator`, `time`, `timeit`, `json`, each in its <name>_module.cpp), `functools`, and the
// empty JAX and NumPy modules that later layers (array, kernel, tpu) fill in. One table lists
// them all; each module is also set as an attribute of its parent, so `jax.numpy` is reachable
// from `jax`. The class-based modules (dataclasses, typing, enum, abc, collections) come from
// class_modules.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "eval/interpreter.h"

namespace pz::eval {

namespace {

Value Partial(Interpreter& interp, CallArgs& args) {
  if (args.positional.empty()) {
    interp.Raise(interp.types().type_error, "type 'partial' takes at least one argument");
  }
  Value func = args.positional[0];
  if (!IsCallable(interp, func)) {
    interp.Raise(interp.types().type_error, "the first argument must be callable");
  }
  std::vector<Value> positional(args.positional.begin() + 1, args.positional.end());
  std::vector<std::pair<std::string, Value>> keywords = args.keywords;
  // partial(partial(f, a), b) flattens to partial(f, a, b), as in CPython.
  if (auto* inner = func.as<PartialObject>()) {
    positional.insert(positional.begin(), inner->args.begin(), inner->args.end());
    std::vector<std::pair<std::string, Value>> merged = inner->keywords;
    for (auto& keyword : keywords) {
      const std::string& name = keyword.first;
      auto same = [&](const auto& entry) { return entry.first == name; };
      if (auto it = std::find_if(merged.begin(), merged.end(), same); it != merged.end()) {
        it->second = keyword.second;
      } else {
        merged.push_back(keyword);
      }
    }
    keywords = std::move(merged);
    func = inner->func;
  }
  auto partial = std::make_shared<PartialObject>(func, std::move(positional), std::move(keywords));
  interp.Track(partial);
  return partial;
}

Value Reduce(Interpreter& interp, CallArgs& args) {
  CheckArgCount(interp, "reduce", args, 2, 3);
  const Value& function = args.positional[0];
  std::optional<Value> accumulator;
  if (args.positional.size() == 3) accumulator = args.positional[2];
  if (!interp.TryGetIter(args.positional[1])) {
    interp.Raise(interp.types().type_error, "reduce() arg 2 must support iteration");
  }
  interp.ForEach(args.positional[1], [&](const Value& item) {
    accumulator =
        accumulator ? interp.Call(function, std::vector<Value>{*accumulator, item}) : item;
    return true;
  });
  if (!accumulator) {
    interp.Raise(interp.types().type_error, "reduce() of empty iterable with no initial value");
  }
  return *accumulator;
}

std::shared_ptr<ModuleObject> MakeFunctools(Interpreter& interp) {
  auto functools = std::make_shared<ModuleObject>("functools");
  functools->Set("partial", interp.MakeBuiltin("partial", Partial));
  functools->Set("reduce", interp.MakeBuiltin("reduce", Reduce));
  return functools;
}

struct ModuleEntry {
  const char* name;
  // Builds the module; nullptr for an empty placeholder filled by a later layer.
  std::shared_ptr<ModuleObject> (*make)(Interpreter&);
};

// Parents come before their children.
const ModuleEntry kModules[] = {
    {"math", MakeMathModule},
    {"functools", MakeFunctools},
    {"re", MakeReModule},
    {"itertools", MakeItertoolsModule},
    {"operator", MakeOperatorModule},
    {"time", MakeTimeModule},
    {"timeit", MakeTimeitModule},
    {"json", MakeJsonModule},
    {"numpy", nullptr},
    {"jax", nullptr},
    {"jax.numpy", nullptr},
    {"jax.numpy.linalg", nullptr},
    {"jax.lax", nullptr},
    {"jax.nn", nullptr},
    {"jax.random", nullptr},
    {"jax.scipy", nullptr},
    {"jax.scipy.special", nullptr},
    {"jax.experimental", nullptr},
    {"jax.experimental.pallas", nullptr},
    {"jax.experimental.pallas.tpu", nullptr},
    {"numpy.testing", nullptr},
    {"numpy.linalg", nullptr},
};

}  // namespace

void InstallModules(Interpreter& interp) {
  std::unordered_map<std::string, std::shared_ptr<ModuleObject>> installed;
  for (const ModuleEntry& entry : kModules) {
    std::string name = entry.name;
    auto module = entry.make ? entry.make(interp) : std::make_shared<ModuleObject>(name);
    if (size_t dot = name.rfind('.'); dot != std::string::npos) {
      installed.at(name.substr(0, dot))->Set(name.substr(dot + 1), module);
    }
    installed[name] = module;
    interp.RegisterModule(name, module);
  }
  InstallArrayModules(interp);
}

}  // namespace pz::eval

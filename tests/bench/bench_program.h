// What the benchmarks run: a Pallas program in the engine, in-process. Its module code prepares
// operands and calls `bench.register(fn)`; Program::Run() calls `fn()`, which is what is timed.
// SharedProgram() builds one from tests/bench/programs.py (the programs jax_comparable.py also
// runs under real JAX).
#pragma once

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "eval/interpreter.h"
#include "lang/parser.h"
#include "tpu/pallas_call.h"

namespace pz::bench {

inline constexpr std::string_view kPrelude =
    "import functools\n"
    "import jax\n"
    "import jax.numpy as jnp\n"
    "from jax import lax\n"
    "from jax.experimental import pallas as pl\n"
    "from jax.experimental.pallas import tpu as pltpu\n"
    "import bench\n";

// A program whose module code prepares operands and calls `bench.register(fn)`; Run() calls
// `fn()`, which is what is timed.
class Program {
 public:
  explicit Program(std::string_view source, tpu::EmulatorOptions options = {}) {
    FileId id = sources_.Add("bench.py", std::string(kPrelude) + std::string(source));
    DiagnosticSink sink;
    lang::Module module = lang::ParseModule(sources_.Get(id), id, sink);
    if (sink.HasErrors()) {
      for (const Diagnostic& d : sink.diagnostics()) error_ += Render(d, sources_);
      return;
    }
    interp_ = std::make_unique<eval::Interpreter>(
        sources_, eval::InterpreterOptions{.max_steps = 0, .output = [this](std::string_view text) {
                                             output_ += text;
                                           }});
    tpu::InstallPallas(*interp_, options);
    auto module_object = std::make_shared<eval::ModuleObject>("bench");
    module_object->Set("register", interp_->MakeBuiltin("register", [this](eval::Interpreter&,
                                                                           eval::CallArgs& args) {
      fn_ = args.positional.at(0);
      return eval::Value();
    }));
    interp_->RegisterModule("bench", module_object);
    if (std::optional<Diagnostic> d = interp_->RunModule(std::move(module))) {
      error_ = Render(*d, sources_);
    } else if (fn_.is_none()) {
      error_ = "the program did not call bench.register(fn)";
    }
  }

  const std::string& error() const { return error_; }
  const std::string& output() const { return output_; }

  // Calls the registered function; false (with error() set) when it raised.
  bool Run() {
    try {
      result_ = interp_->Call(fn_, std::vector<eval::Value>{});
      return true;
    } catch (const eval::PyError& e) {
      error_ = Render(interp_->ToDiagnostic(e), sources_);
    } catch (const eval::LimitExceeded& e) {
      error_ = Render(interp_->ToDiagnostic(e), sources_);
    }
    return false;
  }

 private:
  SourceManager sources_;
  std::unique_ptr<eval::Interpreter> interp_;
  eval::Value fn_;
  eval::Value result_;
  std::string output_;
  std::string error_;
};

// A program of tests/bench/programs.py (the file both this benchmark and jax_comparable.py run):
// `maker` is a call of one of its makers, whose pallas_call on its operands is what is timed.
inline std::string SharedProgram(const std::string& maker) {
  static const std::string source = [] {
    // PZ_BENCH_DIR overrides the source tree's folder, for a benchmark copied to another machine.
    const char* dir = std::getenv("PZ_BENCH_DIR");
    std::ifstream in(std::string(dir != nullptr && *dir != '\0' ? dir : PZ_BENCH_DIR) +
                     "/programs.py");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }();
  return source + "\n\ncall, operands = " + maker + "\nbench.register(lambda: call(*operands))\n";
}

}  // namespace pz::bench

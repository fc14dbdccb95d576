// One program's world while it runs: the sources it reads, an interpreter with the emulator
// (tpu::InstallPallas) and the check harness (InstallHarness) installed, and typed access to the
// state of each. RunFile runs every program in a Session of its own.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "course/harness.h"
#include "eval/interpreter.h"
#include "support/source.h"
#include "tpu/pallas_call.h"

namespace pz::course {

struct RunOptions;

class Session {
 public:
  // `output` receives everything the program prints; `options` configures the interpreter's
  // limits, the emulator and how checks are rendered.
  Session(std::shared_ptr<SourceManager> sources, const RunOptions& options,
          std::function<void(std::string_view)> output);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  SourceManager& sources() { return *sources_; }
  eval::Interpreter& interpreter() { return *interpreter_; }
  tpu::EmulatorSession& emulator() { return *emulator_; }
  HarnessState& harness() { return *harness_; }

 private:
  std::shared_ptr<SourceManager> sources_;
  std::unique_ptr<eval::Interpreter> interpreter_;
  tpu::EmulatorSession* emulator_ = nullptr;  // owned by the interpreter
  HarnessState* harness_ = nullptr;           // owned by the interpreter
};

}  // namespace pz::course

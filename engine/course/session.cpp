#include "course/session.h"

#include "course/runner.h"

namespace pz::course {

Session::Session(std::shared_ptr<SourceManager> sources, const RunOptions& options,
                 std::function<void(std::string_view)> output)
    : sources_(std::move(sources)) {
  eval::InterpreterOptions limits = options.interpreter;
  limits.output = std::move(output);
  interpreter_ = std::make_unique<eval::Interpreter>(*sources_, limits);
  emulator_ = &tpu::InstallPallas(*interpreter_, options.emulator);
  harness_ = &InstallHarness(*interpreter_);
  harness_->color = options.color;
}

}  // namespace pz::course

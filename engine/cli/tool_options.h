// What `roofline` and `tune` share: the options of the roofline model (--tpu, --cores,
// --step-us, --workspace) and the program a FILE|PUZZLE argument names.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "course/roofline.h"
#include "tpu/options.h"

namespace pz::cli {

struct ModelOptions {
  std::string chip = "v5e";                    // --tpu VERSION
  bool every_chip = false;                     // --tpu all (where allowed)
  int cores = 1;                               // --cores 1|2
  double step_seconds = course::kStepSeconds;  // --step-us
  bool workspace = false;  // --workspace: the learner's file of a PUZZLE, not its solution

  // The roofline target and the emulator options these stand for.
  course::RooflineTarget Target() const;
  void Apply(tpu::EmulatorOptions& emulator) const;
};

// When args[i] is one of ModelOptions' options, consumes it (and its value) and returns true;
// `error` is then set when it is malformed. `allow_all`: `--tpu all` is accepted.
bool ParseModelOption(const std::vector<std::string>& args, size_t& i, bool allow_all,
                      ModelOptions& out, std::string& error);
// What the options say together that one alone does not (`--cores 2` needs a megacore chip).
std::optional<std::string> CheckModelOptions(const ModelOptions& options);

// The program `target` names: a file, or a puzzle's solution (its workspace file with
// `workspace`). Prints why not and returns an exit code when there is none.
std::optional<int> ProgramOf(const std::string& command, const std::string& target, bool workspace,
                             std::filesystem::path& file);

}  // namespace pz::cli

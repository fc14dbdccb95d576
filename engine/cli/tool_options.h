// What `roofline` and `tune` share: the `--tpu` option and the program a FILE|PUZZLE argument
// names.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "tpu/options.h"

namespace pz::cli {

// Sets `emulator.chip` to `value`; prints the known versions and returns kExitUsage when it
// names none.
std::optional<int> ParseChipOption(const std::string& command, const std::string& value,
                                   tpu::EmulatorOptions& emulator);

// The program `target` names: a file, or a puzzle's solution (its workspace file with
// `workspace`). Prints why not and returns an exit code when there is none.
std::optional<int> ProgramOf(const std::string& command, const std::string& target, bool workspace,
                             std::filesystem::path& file);

}  // namespace pz::cli

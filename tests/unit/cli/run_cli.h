// What the CLI tests share: running a shell command line (the `pallas-puzzles` binary with
// arguments, redirections and an environment) and reading files back.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace pz::testing {

struct Result {
  int exit_code = -1;
  std::string output;  // what the command printed (stdout, and stderr where it redirects it)
};

// Runs `command` with /bin/sh; its output and exit status (-1 when it did not exit).
inline Result RunShell(const std::string& command) {
  Result result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    result.output.append(buffer.data(), n);
  }
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

inline std::string Read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace pz::testing

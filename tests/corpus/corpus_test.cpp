// Corpus runner: registers three gtests per tests/corpus/programs/NAME.py: corpus.NAME runs
// `pallas-puzzles run` on it (fork/exec, 120 s limit, cwd programs/), corpus_cuda.NAME and
// corpus_cuda_sm80.NAME the same with `--backend cuda` on the host device; each compares its stdout
// with expected/NAME.out (real JAX's output, written by gen_expected.py) token by token: numbers
// within a tolerance, everything else exactly (README.md beside this file). A program listed in
// pending.txt (for the CUDA runs, pending_cuda.txt) must still fail to match (a strict expected
// failure): once it passes, the test fails and says to remove its entry.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace pz::corpus {
namespace {

namespace fs = std::filesystem;

// The slowest program takes a few seconds; one still running after this is a hang.
constexpr auto kTimeout = std::chrono::seconds(120);
// Numeric tolerance: |actual - expected| <= kAtol + kRtol * |expected| (README.md says why).
constexpr double kRtol = 1e-4;
constexpr double kAtol = 1e-5;
#ifdef PZ_CLI_PATH
constexpr std::string_view kCliPath = PZ_CLI_PATH;
#else
constexpr std::string_view kCliPath;  // no pallas-puzzles target in this build: every test skips
#endif

// The CLI to run: PZ_CORPUS_CLI where set (a bundle on another machine), else this build's.
std::string CliPath() {
  const char* path = std::getenv("PZ_CORPUS_CLI");
  return path != nullptr ? std::string(path) : std::string(kCliPath);
}

// The corpus directory: PZ_CORPUS_ROOT where set, else this checkout's.
fs::path CorpusRoot() {
  const char* root = std::getenv("PZ_CORPUS_ROOT");
  return root != nullptr ? fs::path(root) : fs::path(PZ_CORPUS_DIR);
}

struct RunResult {
  std::string out;
  std::string err;
  int exit_code = -1;  // -1 when the child did not exit normally
  bool timed_out = false;
};

// Runs argv[0] in `dir` with stdin from /dev/null, NO_COLOR and `env` (NAME=VALUE) set and a
// time limit; no shell.
RunResult RunCommand(const std::vector<std::string>& argv, const std::string& dir,
                     std::vector<std::string> extra_env) {
  RunResult result;
  int out_pipe[2];
  int err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) {
    result.err = "pipe() failed";
    return result;
  }
  // Built before fork: the child only calls async-signal-safe functions.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::string no_color = "NO_COLOR=1";
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
  env.push_back(no_color.data());
  for (std::string& e : extra_env) env.push_back(e.data());
  env.push_back(nullptr);

  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);  // its own process group, so a timeout kills anything it started too
    int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    for (int fd : {null_fd, out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    if (chdir(dir.c_str()) != 0) _exit(126);
    execve(args[0], args.data(), env.data());
    constexpr char kMessage[] = "corpus_test: cannot exec the CLI\n";
    (void)!write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid < 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    result.err = "fork() failed";
    return result;
  }

  auto deadline = std::chrono::steady_clock::now() + kTimeout;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_count = 2;
  while (open_count > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    int ready = poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2 && ready > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
  for (const pollfd& p : fds) {
    if (p.fd >= 0) close(p.fd);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

std::optional<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// One token of program output with the line it is on (1-based).
struct Token {
  std::string text;
  int line = 0;
};

// Splits output into tokens: runs of whitespace separate tokens and are otherwise ignored, and
// each of the punctuation characters below is a token of its own, so `[1.5,` is `[`, `1.5`, `,`.
std::vector<Token> Tokenize(const std::string& text) {
  static constexpr std::string_view kPunctuation = "[](){},:;=|<>'\"";
  std::vector<Token> tokens;
  int line = 1;
  std::string current;
  int current_line = 1;
  auto flush = [&] {
    if (!current.empty()) tokens.push_back({current, current_line});
    current.clear();
  };
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      flush();
      if (c == '\n') ++line;
    } else if (kPunctuation.find(c) != std::string_view::npos) {
      flush();
      tokens.push_back({std::string(1, c), line});
    } else {
      if (current.empty()) current_line = line;
      current += c;
    }
  }
  flush();
  return tokens;
}

// The token as a number (ints, floats with exponents, nan, inf, with a sign), if it is one.
std::optional<double> AsNumber(const std::string& token) {
  std::string_view t = token;
  std::string_view body = t;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) body.remove_prefix(1);
  if (body == "nan" || body == "inf") {
    double v = body == "nan" ? std::nan("") : HUGE_VAL;
    return t[0] == '-' ? -v : v;
  }
  if (body.empty() || !(std::isdigit(static_cast<unsigned char>(body[0])) || body[0] == '.'))
    return std::nullopt;
  char* end = nullptr;
  std::string copy(t);
  double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return value;
}

bool IsInteger(const std::string& token) {
  size_t start = (!token.empty() && (token[0] == '-' || token[0] == '+')) ? 1 : 0;
  return start < token.size() && std::all_of(token.begin() + static_cast<long>(start), token.end(),
                                             [](char c) { return c >= '0' && c <= '9'; });
}

// Whether two tokens match: two integers exactly, numbers within the tolerance (nan matches nan,
// infinities match by sign), anything else as text.
bool TokensMatch(const std::string& want, const std::string& got) {
  if (want == got) return true;
  std::optional<double> w = AsNumber(want);
  std::optional<double> g = AsNumber(got);
  if (!w || !g) return false;
  if (IsInteger(want) && IsInteger(got)) return false;  // equal text was handled above
  if (std::isnan(*w) || std::isnan(*g)) return std::isnan(*w) && std::isnan(*g);
  if (std::isinf(*w) || std::isinf(*g)) return *w == *g;
  return std::fabs(*g - *w) <= kAtol + kRtol * std::fabs(*w);
}

std::string LineOf(const std::string& text, int line) {
  std::istringstream in(text);
  std::string s;
  for (int i = 1; std::getline(in, s); ++i) {
    if (i == line) return s;
  }
  return "(end)";
}

// Empty when stdout matches the expected output; else where and how it first differs.
std::string CompareOutput(const std::string& expected, const std::string& actual) {
  std::vector<Token> want = Tokenize(expected);
  std::vector<Token> got = Tokenize(actual);
  size_t n = std::min(want.size(), got.size());
  for (size_t i = 0; i < n; ++i) {
    if (!TokensMatch(want[i].text, got[i].text)) {
      return fmt::format(
          "stdout differs at token {}: expected `{}` (expected line {}), got `{}` (line {})\n"
          "  expected line {}: {}\n  actual line {}:   {}\n",
          i + 1, want[i].text, want[i].line, got[i].text, got[i].line, want[i].line,
          LineOf(expected, want[i].line), got[i].line, LineOf(actual, got[i].line));
    }
  }
  if (want.size() != got.size()) {
    return fmt::format("stdout has {} tokens, expected {}; the first {} match\n", got.size(),
                       want.size(), n);
  }
  return "";
}

// The first line of stderr that says `error`, or its first line.
std::string FirstError(const std::string& err) {
  std::istringstream in(err);
  std::string first;
  for (std::string line; std::getline(in, line);) {
    if (first.empty()) first = line;
    if (line.find("error") != std::string::npos) return line;
  }
  return first.empty() ? "(no stderr)" : first;
}

// Every way the run disagrees with the expected output; empty when it passes.
std::vector<std::string> Problems(const std::string& expected, const RunResult& run) {
  std::vector<std::string> problems;
  if (run.timed_out) {
    problems.push_back(fmt::format("still running after {} s (killed)", kTimeout.count()));
    return problems;
  }
  if (run.exit_code != 0) {
    problems.push_back(
        fmt::format("exit code {}, expected 0: {}", run.exit_code, FirstError(run.err)));
  }
  if (std::string diff = CompareOutput(expected, run.out); !diff.empty()) {
    problems.push_back(diff);
  }
  for (std::string_view bad :
       {"internal error", "AddressSanitizer", "LeakSanitizer", "runtime error:"}) {
    if (run.err.find(bad) != std::string::npos) {
      problems.push_back(fmt::format("stderr contains `{}`", bad));
    }
  }
  return problems;
}

// pending.txt: `NAME: first error line` per line; `#` comments and blank lines are skipped.
std::map<std::string, std::string> ReadPending(const fs::path& path) {
  std::map<std::string, std::string> pending;
  std::istringstream in(ReadFile(path).value_or(""));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    size_t colon = line.find(':');
    std::string name = line.substr(0, colon);
    std::string why = colon == std::string::npos ? "" : line.substr(colon + 1);
    pending[name] = why;
  }
  return pending;
}

// How a program runs: on the emulated TPU (corpus.NAME), or on the CUDA backend with the host
// device, the generated CUDA compiled for the CPU (corpus_cuda.NAME), also running the forms of
// sm_80 GPUs (tensor cores, asynchronous copies) lane by lane (corpus_cuda_sm80.NAME), or on a
// GPU (corpus_gpu.NAME, label gpu; skipped without one).
struct Backend {
  const char* suite;
  const char* pending_file;  // in the corpus directory
  std::vector<std::string> flags;
  std::vector<std::string> env;
  bool gpu = false;  // skipped where the CUDA backend finds no GPU
};

const std::vector<Backend>& Backends() {
  static const std::vector<Backend> backends = {
      {.suite = "corpus", .pending_file = "pending.txt"},
      {.suite = "corpus_cuda",
       .pending_file = "pending_cuda.txt",
       .flags = {"--backend", "cuda"},
       .env = {"PZ_CUDA_DEVICE=host"}},
      {.suite = "corpus_cuda_sm80",
       .pending_file = "pending_cuda.txt",
       .flags = {"--backend", "cuda"},
       .env = {"PZ_CUDA_DEVICE=host-sm80"}},
      {.suite = "corpus_gpu",
       .pending_file = "pending_cuda.txt",
       .flags = {"--backend", "cuda"},
       .env = {"PZ_CUDA_DEVICE=gpu"},
       .gpu = true},
  };
  return backends;
}

class CorpusTest : public testing::Test {
 public:
  CorpusTest(const Backend& backend, fs::path program, fs::path expected,
             std::optional<std::string> pending)
      : backend_(backend),
        program_(std::move(program)),
        expected_(std::move(expected)),
        pending_(std::move(pending)) {}

  void TestBody() override {
    std::string cli = CliPath();
    if (cli.empty()) GTEST_SKIP() << "the pallas-puzzles target is not part of this build";
    std::optional<std::string> expected = ReadFile(expected_);
    ASSERT_TRUE(expected) << "cannot read " << expected_
                          << " (run python3 tests/corpus/gen_expected.py)";
    std::vector<std::string> argv = {cli, "run"};
    argv.insert(argv.end(), backend_.flags.begin(), backend_.flags.end());
    argv.push_back(program_.filename().string());
    RunResult run = RunCommand(argv, program_.parent_path().string(), backend_.env);
    if (backend_.gpu && run.exit_code == 70 &&
        run.err.find("the CUDA backend needs an NVIDIA GPU") != std::string::npos) {
      GTEST_SKIP() << FirstError(run.err);
    }
    std::vector<std::string> problems = Problems(*expected, run);
    std::string report;
    for (const std::string& problem : problems) report += problem + "\n";
    if (pending_) {
      if (problems.empty()) {
        ADD_FAILURE_AT(program_.c_str(), 1)
            << program_.stem().string()
            << " now matches real JAX: remove its entry from tests/corpus/"
            << backend_.pending_file;
      } else {
        std::cout << "pending (still fails, as " << backend_.pending_file
                  << " expects): " << FirstLine(report) << std::endl;
      }
      return;
    }
    if (problems.empty()) return;
    ADD_FAILURE_AT(program_.c_str(), 1)
        << report << "--- stderr (exit code " << run.exit_code << ") ---\n"
        << (run.err.empty() ? "(empty)\n" : run.err);
  }

 private:
  static std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

  const Backend& backend_;
  fs::path program_;
  fs::path expected_;
  std::optional<std::string> pending_;
};

// Registers a test of every backend for every PZ_CORPUS_DIR/programs/NAME.py. Only lists
// files: `--gtest_list_tests` (CTest discovery) runs nothing.
void RegisterCorpusTests() {
  fs::path root = CorpusRoot();
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(root / "programs")) {
    if (entry.is_regular_file() && entry.path().extension() == ".py") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const Backend& backend : Backends()) {
    std::map<std::string, std::string> pending = ReadPending(root / backend.pending_file);
    for (const fs::path& path : files) {
      std::string name = path.stem().string();
      fs::path expected = root / "expected" / (name + ".out");
      std::optional<std::string> why;
      if (auto it = pending.find(name); it != pending.end()) why = it->second;
      const Backend* b = &backend;
      testing::RegisterTest(backend.suite, name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [b, path, expected, why]() -> testing::Test* {
                              return new CorpusTest(*b, path, expected, why);
                            });
    }
  }
}

}  // namespace
}  // namespace pz::corpus

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  pz::corpus::RegisterCorpusTests();
  return RUN_ALL_TESTS();
}

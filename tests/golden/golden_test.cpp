// Golden-file runner: registers one gtest per tests/golden/**/*.py, runs `pallas-puzzles run` on
// it (fork/exec, 30 s limit) and compares stdout and the `path:line:col: error: message` and
// `path:line:col: warning: message` lines of stderr with the file's inline `# expect:` /
// `# error:` / `# warning:` comments (format: README.md beside this file). With
// PZ_UPDATE_GOLDEN=1 it rewrites those comments from the actual run instead.
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
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace pz::golden {
namespace {

namespace fs = std::filesystem;

// Far above what any golden program needs; a program still running then is a hang.
constexpr auto kTimeout = std::chrono::seconds(30);
constexpr std::string_view kExpectMarker = "# expect:";
constexpr std::string_view kErrorMarker = "# error:";
constexpr std::string_view kWarningMarker = "# warning:";
constexpr std::string_view kArgsMarker = "# args:";
#ifdef PZ_CLI_PATH
constexpr std::string_view kCliPath = PZ_CLI_PATH;
#else
constexpr std::string_view kCliPath;  // no pallas-puzzles target in this build: every test skips
#endif

// One `# expect:`, `# error:` or `# warning:` comment of a golden file.
struct Marker {
  int line = 0;             // 1-based line number
  size_t column = 0;        // byte offset of the '#' in that line
  bool standalone = false;  // only whitespace precedes the comment
  std::string text;         // after the marker and its one optional space
};

struct GoldenFile {
  std::vector<std::string> lines;  // without their '\n'
  std::vector<std::string> args;   // from a first line `# args: ...`
  std::vector<Marker> expects;
  std::vector<Marker> errors;
  std::vector<Marker> warnings;

  std::string ExpectedStdout() const {
    std::string out;
    for (const Marker& m : expects) out += m.text + "\n";
    return out;
  }
};

// An error or warning diagnostic found in the CLI's stderr; line 0 when it carries no location.
struct ReportedDiagnostic {
  int line = 0;
  std::string message;
};

// The diagnostics of one run, by severity (notes are ignored).
struct Reported {
  std::vector<ReportedDiagnostic> errors;
  std::vector<ReportedDiagnostic> warnings;
};

struct RunResult {
  std::string out;
  std::string err;
  int exit_code = -1;  // -1 when the child did not exit normally
  bool timed_out = false;
};

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// Parses the comments of a golden file. A line holds at most one marker: whichever comes first.
GoldenFile ParseGolden(const std::string& text) {
  GoldenFile file;
  file.lines = SplitLines(text);
  for (size_t i = 0; i < file.lines.size(); ++i) {
    const std::string& line = file.lines[i];
    if (i == 0 && line.rfind(kArgsMarker, 0) == 0) {
      std::istringstream words(line.substr(kArgsMarker.size()));
      for (std::string word; words >> word;) file.args.push_back(word);
      continue;
    }
    struct Kind {
      std::string_view marker;
      std::vector<Marker>* into;
    };
    const Kind kinds[] = {{kExpectMarker, &file.expects},
                          {kErrorMarker, &file.errors},
                          {kWarningMarker, &file.warnings}};
    const Kind* first = nullptr;
    size_t first_at = std::string::npos;
    for (const Kind& kind : kinds) {
      size_t at = line.find(kind.marker);
      if (at < first_at) {
        first_at = at;
        first = &kind;
      }
    }
    if (first == nullptr) continue;
    Marker m{.line = static_cast<int>(i + 1), .column = first_at};
    m.standalone = line.find_first_not_of(" \t") == m.column;
    m.text = line.substr(m.column + first->marker.size());
    if (!m.text.empty() && m.text[0] == ' ') m.text.erase(0, 1);
    first->into->push_back(std::move(m));
  }
  return file;
}

// Runs argv[0] with stdin from /dev/null, NO_COLOR set and a time limit; no shell.
RunResult RunCommand(const std::vector<std::string>& argv) {
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
  env.push_back(nullptr);

  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);  // its own process group, so a timeout kills anything it started too
    int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    for (int fd : {null_fd, out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    execve(args[0], args.data(), env.data());
    constexpr char kMessage[] = "golden_test: cannot exec the CLI\n";
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

// Error and warning lines of the CLI's stderr: `path:line:col: error: message` or
// `path:line:col: warning: message`, or the same without the location.
Reported ParseDiagnostics(const std::string& err) {
  static const std::regex kLocated(R"(^[^\s:][^:]*:(\d+):(\d+): (error|warning): (.*)$)");
  static const std::regex kUnlocated(R"(^(error|warning): (.*)$)");
  Reported reported;
  for (const std::string& line : SplitLines(err)) {
    std::smatch m;
    if (std::regex_match(line, m, kLocated)) {
      (m[3].str() == "error" ? reported.errors : reported.warnings)
          .push_back({std::stoi(m[1].str()), m[4].str()});
    } else if (std::regex_match(line, m, kUnlocated)) {
      (m[1].str() == "error" ? reported.errors : reported.warnings).push_back({0, m[2].str()});
    }
  }
  return reported;
}

const ReportedDiagnostic* FirstAt(const std::vector<ReportedDiagnostic>& diagnostics, int line) {
  for (const ReportedDiagnostic& d : diagnostics) {
    if (d.line == line) return &d;
  }
  return nullptr;
}

bool UpdateMode() {
  const char* value = std::getenv("PZ_UPDATE_GOLDEN");
  return value != nullptr && std::string_view(value) == "1";
}

std::string WithText(std::string_view marker, const std::string& text) {
  return text.empty() ? std::string(marker) : fmt::format("{} {}", marker, text);
}

// The file's text with its `# error:` / `# warning:` texts and `# expect:` comments taken from an
// actual run: expect texts are replaced in place when the line counts agree, else all expect
// comments are removed and the output is appended as standalone `# expect:` lines.
std::string Rewrite(const GoldenFile& file, const std::vector<std::string>& out_lines,
                    const Reported& reported) {
  std::vector<std::string> lines = file.lines;
  auto fill = [&lines](const std::vector<Marker>& markers, std::string_view marker,
                       const std::vector<ReportedDiagnostic>& diagnostics) {
    for (const Marker& m : markers) {
      if (const ReportedDiagnostic* d = FirstAt(diagnostics, m.line)) {
        lines[m.line - 1] = lines[m.line - 1].substr(0, m.column) + WithText(marker, d->message);
      }
    }
  };
  fill(file.errors, kErrorMarker, reported.errors);
  fill(file.warnings, kWarningMarker, reported.warnings);
  bool in_place = out_lines.size() == file.expects.size();
  std::vector<bool> drop(lines.size(), false);
  for (size_t i = 0; i < file.expects.size(); ++i) {
    const Marker& m = file.expects[i];
    std::string& line = lines[m.line - 1];
    if (in_place) {
      line = line.substr(0, m.column) + WithText(kExpectMarker, out_lines[i]);
    } else if (m.standalone) {
      drop[m.line - 1] = true;
    } else {
      line.erase(m.column);
      line.erase(line.find_last_not_of(" \t") + 1);
    }
  }
  std::string text;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!drop[i]) text += lines[i] + "\n";
  }
  if (!in_place) {
    for (const std::string& out : out_lines) text += WithText(kExpectMarker, out) + "\n";
  }
  return text;
}

std::string Numbered(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += fmt::format("  {:>4} | {}\n", i + 1, lines[i]);
  return out.empty() ? "  (nothing)\n" : out;
}

std::string StdoutDiff(const std::string& expected, const std::string& actual) {
  std::vector<std::string> want = SplitLines(expected);
  std::vector<std::string> got = SplitLines(actual);
  size_t first = 0;
  while (first < want.size() && first < got.size() && want[first] == got[first]) ++first;
  std::string out =
      fmt::format("stdout differs from the `# expect:` lines at output line {}:\n", first + 1);
  out += fmt::format("  expected: {}\n", first < want.size() ? "`" + want[first] + "`" : "(end)");
  out += fmt::format("  actual:   {}\n", first < got.size() ? "`" + got[first] + "`" : "(end)");
  if (!actual.empty() && actual.back() != '\n') out += "  (actual stdout lacks a final newline)\n";
  out += "--- expected stdout ---\n" + Numbered(want) + "--- actual stdout ---\n" + Numbered(got);
  return out;
}

// Compares the `# error:` (or `# warning:`) markers with the diagnostics of that severity (`kind`:
// "error" or "warning"): each marker needs one on its line containing its text, and each
// diagnostic needs a marker on its line.
void CheckDiagnostics(const std::vector<Marker>& markers,
                      const std::vector<ReportedDiagnostic>& diagnostics, std::string_view kind,
                      std::vector<std::string>& problems) {
  std::string a_kind = fmt::format("{} {}", kind == "error" ? "an" : "a", kind);
  for (const Marker& m : markers) {
    std::vector<std::string> here;
    for (const ReportedDiagnostic& d : diagnostics) {
      if (d.line == m.line) here.push_back(d.message);
    }
    bool found = std::any_of(here.begin(), here.end(), [&](const std::string& message) {
      return message.find(m.text) != std::string::npos;
    });
    std::string wanted =
        m.text.empty() ? a_kind : fmt::format("{} containing `{}`", a_kind, m.text);
    if (here.empty()) {
      problems.push_back(fmt::format("line {}: expected {}, none reported", m.line, wanted));
    } else if (!found) {
      problems.push_back(
          fmt::format("line {}: expected {}, got `{}`", m.line, wanted, here.front()));
    }
  }
  for (const ReportedDiagnostic& d : diagnostics) {
    bool marked = std::any_of(markers.begin(), markers.end(),
                              [&](const Marker& m) { return m.line == d.line; });
    if (!marked)
      problems.push_back(fmt::format("line {}: unexpected {} `{}`", d.line, kind, d.message));
  }
}

// Every way the run disagrees with the golden file, one message each. `fail_name` / `warn_name`:
// the file name starts with `fail_` / `warn_`.
std::vector<std::string> Check(const GoldenFile& golden, const RunResult& run,
                               const Reported& reported, bool fail_name, bool warn_name) {
  std::vector<std::string> problems;
  if (fail_name != !golden.errors.empty()) {
    problems.push_back("the file name starts with `fail_` iff it has `# error:` comments");
  }
  if (warn_name != (golden.errors.empty() && !golden.warnings.empty())) {
    problems.push_back(
        "the file name starts with `warn_` iff it has `# warning:` but no `# error:` comments");
  }
  if (run.out != golden.ExpectedStdout()) {
    problems.push_back(StdoutDiff(golden.ExpectedStdout(), run.out));
  }
  CheckDiagnostics(golden.errors, reported.errors, "error", problems);
  CheckDiagnostics(golden.warnings, reported.warnings, "warning", problems);
  bool exit_ok =
      golden.errors.empty() ? run.exit_code == 0 : run.exit_code == 65 || run.exit_code == 70;
  if (!exit_ok) {
    problems.push_back(fmt::format(
        "exit code {}, expected {}",
        run.exit_code < 0 ? std::string("(killed by a signal)") : std::to_string(run.exit_code),
        golden.errors.empty() ? "0" : "65 or 70"));
  }
  for (std::string_view bad :
       {"internal error", "AddressSanitizer", "LeakSanitizer", "runtime error:"}) {
    if (run.err.find(bad) != std::string::npos) {
      problems.push_back(fmt::format("stderr contains `{}`", bad));
    }
  }
  return problems;
}

// One golden file run through the CLI.
class GoldenTest : public testing::Test {
 public:
  explicit GoldenTest(fs::path path) : path_(std::move(path)) {}

  void TestBody() override {
    if (kCliPath.empty()) GTEST_SKIP() << "the pallas-puzzles target is not part of this build";
    std::ifstream in(path_);
    std::stringstream text;
    text << in.rdbuf();
    ASSERT_TRUE(in) << "cannot read " << path_;
    GoldenFile golden = ParseGolden(text.str());

    std::vector<std::string> argv = {std::string(kCliPath), "run"};
    argv.insert(argv.end(), golden.args.begin(), golden.args.end());
    argv.push_back(path_.string());
    RunResult run = RunCommand(argv);
    ASSERT_FALSE(run.timed_out) << path_.string() << ": still running after " << kTimeout.count()
                                << " s (killed); stderr:\n"
                                << run.err;
    Reported reported = ParseDiagnostics(run.err);

    if (UpdateMode()) {
      std::string updated = Rewrite(golden, SplitLines(run.out), reported);
      if (updated != text.str()) {
        std::ofstream(path_) << updated;
        std::cout << "updated " << path_.string() << std::endl;
      }
      golden = ParseGolden(updated);
    }

    std::string file_name = path_.filename().string();
    bool fail_name = file_name.rfind("fail_", 0) == 0;
    bool warn_name = file_name.rfind("warn_", 0) == 0;
    std::vector<std::string> problems = Check(golden, run, reported, fail_name, warn_name);
    if (problems.empty()) return;
    std::string report;
    for (const std::string& problem : problems) report += problem + "\n";
    ADD_FAILURE_AT(path_.c_str(), 1)
        << report << "--- stderr (exit code " << run.exit_code << ") ---\n"
        << (run.err.empty() ? "(empty)\n" : run.err);
  }

 private:
  fs::path path_;
};

// True for the modules golden programs import: a file or folder whose name starts with `_`
// (`_helper.py`, `_pkg/__init__.py`) is not a program of its own.
bool IsImportedModule(const fs::path& relative) {
  return std::any_of(relative.begin(), relative.end(),
                     [](const fs::path& part) { return part.string().rfind('_', 0) == 0; });
}

// Registers test `golden.<dir>/<name>` for every PZ_GOLDEN_DIR/<dir>/<name>.py except imported
// modules. Only lists files: `--gtest_list_tests` (CTest discovery) runs nothing.
void RegisterGoldenTests() {
  fs::path root = PZ_GOLDEN_DIR;
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().extension() == ".py" &&
        !IsImportedModule(fs::relative(entry.path(), root))) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& path : files) {
    std::string name = fs::relative(path, root).replace_extension().generic_string();
    // gtest owns the fixture it gets from the factory.
    testing::RegisterTest("golden", name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [path]() -> testing::Test* { return new GoldenTest(path); });
  }
}

}  // namespace
}  // namespace pz::golden

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  pz::golden::RegisterGoldenTests();
  return RUN_ALL_TESTS();
}

// The course subcommands for scripts and CI: init, list, show, check, hint, hints, solution,
// progress, reset, watch, verify (see the command table in commands.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/commands.h"
#include "cli/course_context.h"
#include "cli/terminal.h"
#include "cli/watch.h"
#include "course/verify.h"

namespace pz::cli {
namespace fs = std::filesystem;

namespace {

struct Parsed {
  std::vector<std::string> positional;
  bool json = false;
  bool yes = false;
  bool cuda = false;     // check --backend cuda
  int cores = 1;         // check --cores 1|2
  bool restore = false;  // reset --restore
  int jobs = 0;          // verify --jobs N (0: one per CPU, at most 8)
  std::string only;
};

// Flags shared by the course subcommands; returns an exit code on a usage error.
std::optional<int> Parse(const std::string& command, const std::vector<std::string>& args,
                         size_t max_positional, Parsed& parsed) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") {
      parsed.json = true;
    } else if (a == "--yes" || a == "-y") {
      parsed.yes = true;
    } else if (command == "check" && (a == "--backend" || a.rfind("--backend=", 0) == 0)) {
      std::string value = a == "--backend" ? (i + 1 < args.size() ? args[++i] : "") : a.substr(10);
      if (value != "tpu" && value != "cuda") {
        std::fprintf(stderr,
                     "pallas-puzzles check: `--backend` is `tpu` (the emulated TPU, the default) "
                     "or `cuda` (an NVIDIA GPU)\n");
        return kExitUsage;
      }
      parsed.cuda = value == "cuda";
    } else if (command == "check" && (a == "--cores" || a.rfind("--cores=", 0) == 0)) {
      std::string value = a == "--cores" ? (i + 1 < args.size() ? args[++i] : "") : a.substr(8);
      std::optional<int> cores = ParseCores(command, value);
      if (!cores) return kExitUsage;
      parsed.cores = *cores;
    } else if (command == "reset" && a == "--restore") {
      parsed.restore = true;
    } else if (command == "verify" && (a == "--jobs" || a == "-j") && i + 1 < args.size()) {
      const std::string& value = args[++i];
      char* end = nullptr;
      long jobs = std::strtol(value.c_str(), &end, 10);
      if (end == value.c_str() || *end != '\0' || jobs < 1 || jobs > 64) {
        std::fprintf(stderr, "pallas-puzzles verify: `--jobs` takes a number from 1 to 64\n");
        return kExitUsage;
      }
      parsed.jobs = static_cast<int>(jobs);
    } else if (a == "--only" && i + 1 < args.size()) {
      parsed.only = args[++i];
    } else if (a == "--help" || a == "-h") {
      for (const Command& c : Commands()) {
        if (c.name == command) std::printf("usage: pallas-puzzles %s\n", c.usage.data());
      }
      return kExitOk;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "pallas-puzzles %s: unknown option `%s`\n", command.c_str(), a.c_str());
      return kExitUsage;
    } else {
      parsed.positional.push_back(a);
    }
  }
  if (parsed.positional.size() > max_positional) {
    std::fprintf(stderr, "pallas-puzzles %s: too many arguments\n", command.c_str());
    return kExitUsage;
  }
  if (parsed.cuda && parsed.cores != 1) {
    std::fprintf(stderr,
                 "pallas-puzzles %s: `--cores` is the emulated TPU's; `--backend cuda` spreads "
                 "the grid over the GPU itself\n",
                 command.c_str());
    return kExitUsage;
  }
  return std::nullopt;
}

// Loads the context and resolves the optional puzzle argument, then runs `action`.
int WithPuzzle(const std::string& command, const std::vector<std::string>& args,
               bool need_workspace, int (*action)(CourseContext&, const course::PuzzleEntry&)) {
  Parsed parsed;
  if (auto exit = Parse(command, args, 1, parsed)) return *exit;
  CourseContext ctx{.color = UseColor(stdout),
                    .json = parsed.json,
                    .confirmed = parsed.yes,
                    .cuda = parsed.cuda,
                    .cores = parsed.cores,
                    .restore = parsed.restore};
  if (auto exit = ctx.Load(need_workspace)) return *exit;
  const course::PuzzleEntry* p = ctx.Resolve(parsed.positional.empty() ? "" : parsed.positional[0]);
  if (!p) return kExitUsage;
  return action(ctx, *p);
}

}  // namespace

int InitCommand(const std::vector<std::string>& args) {
  Parsed parsed;
  if (auto exit = Parse("init", args, 1, parsed)) return *exit;
  CourseContext ctx{.color = UseColor(stdout)};
  if (auto exit = ctx.Load(false)) return *exit;
  fs::path dir = parsed.positional.empty() ? fs::path("workspace") : fs::path(parsed.positional[0]);
  course::InitReport report = course::InitWorkspace(ctx.course, dir);
  if (report.error) {
    std::fprintf(stderr, "pallas-puzzles init: %s\n", report.error->c_str());
    return kExitIo;
  }
  std::printf("workspace %s: %zu files created, %d of yours kept\n", dir.string().c_str(),
              report.created.size(), report.kept);
  std::printf("start the course with `cd %s && pallas-puzzles`\n", dir.string().c_str());
  return kExitOk;
}

int ListCommand(const std::vector<std::string>& args) {
  Parsed parsed;
  if (auto exit = Parse("list", args, 0, parsed)) return *exit;
  CourseContext ctx{.color = UseColor(stdout), .json = parsed.json};
  if (auto exit = ctx.Load(false)) return *exit;
  return ListAction(ctx);
}

int ShowCommand(const std::vector<std::string>& args) {
  return WithPuzzle("show", args, false, ShowAction);
}
int CheckCommand(const std::vector<std::string>& args) {
  return WithPuzzle("check", args, false, CheckAction);
}
int HintCommand(const std::vector<std::string>& args) {
  return WithPuzzle("hint", args, true, HintAction);
}
int HintsCommand(const std::vector<std::string>& args) {
  return WithPuzzle("hints", args, true, HintsShownAction);
}
int SolutionCommand(const std::vector<std::string>& args) {
  return WithPuzzle("solution", args, true, SolutionAction);
}
int ResetCommand(const std::vector<std::string>& args) {
  return WithPuzzle("reset", args, true, ResetAction);
}
int WatchCommand(const std::vector<std::string>& args) {
  return WithPuzzle("watch", args, true, WatchAction);
}

int ProgressCommand(const std::vector<std::string>& args) {
  Parsed parsed;
  if (auto exit = Parse("progress", args, 0, parsed)) return *exit;
  CourseContext ctx{.color = UseColor(stdout), .json = parsed.json};
  if (auto exit = ctx.Load(true)) return *exit;
  return ProgressAction(ctx);
}

int VerifyCommand(const std::vector<std::string>& args) {
  Parsed parsed;
  if (auto exit = Parse("verify", args, 1, parsed)) return *exit;
  fs::path root = parsed.positional.empty() ? course::FindCourseRoot(fs::current_path())
                                            : fs::path(parsed.positional[0]);
  if (root.empty()) {
    std::fputs("pallas-puzzles verify: cannot find the course (puzzles/course.json)\n", stderr);
    return kExitIo;
  }
  course::CourseLoad load = course::LoadCourse(root);
  bool color = UseColor(stdout);
  CourseContext style{.color = color};
  course::VerifyOptions options{.run = CourseRunOptions(false), .only = parsed.only};
  // The runs of the files spread over worker processes (the rows keep the course's order).
  options.jobs = parsed.jobs > 0
                     ? parsed.jobs
                     : static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
  if (!parsed.json) {
    options.on_row = [&](const course::VerifyRow& row) {
      std::string line =
          fmt::format("{}  {:<40}", row.ok() ? style.Green("ok  ") : style.Red("FAIL"), row.puzzle);
      for (const course::VerifyItem& item : row.items) {
        line += " " + (item.ok ? item.name : style.Red(item.name + "✗"));
      }
      std::puts(line.c_str());
      for (const course::VerifyItem& item : row.items) {
        if (!item.ok) std::printf("      %s: %s\n", item.name.c_str(), item.detail.c_str());
      }
      std::fflush(stdout);
    };
  }
  course::VerifyReport report = course::Verify(load, options);
  if (parsed.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const course::VerifyRow& row : report.rows) {
      nlohmann::json items = nlohmann::json::array();
      for (const course::VerifyItem& item : row.items) {
        items.push_back({{"name", item.name}, {"ok", item.ok}, {"detail", item.detail}});
      }
      rows.push_back({{"puzzle", row.puzzle}, {"ok", row.ok()}, {"items", items}});
    }
    nlohmann::json out = {{"passed", report.passed()},
                          {"failed", report.failed()},
                          {"course_problems", report.course_problems},
                          {"puzzles", rows}};
    std::puts(out.dump(2).c_str());
  } else {
    for (const std::string& problem : report.course_problems) {
      std::printf("%s  %s\n", style.Red("FAIL").c_str(), problem.c_str());
    }
    std::printf("%d passed, %d failed\n", report.passed(), report.failed());
  }
  return report.failed() == 0 ? kExitOk : kExitCheckFailed;
}

}  // namespace pz::cli

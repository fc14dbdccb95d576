#include "course/verify.h"

#include <fmt/format.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <set>

#include "course/puzzle_file.h"
#include "support/source.h"
#include "tpu/call_report.h"

namespace pz::course {
namespace fs = std::filesystem;

bool VerifyRow::ok() const {
  return std::all_of(items.begin(), items.end(), [](const VerifyItem& i) { return i.ok; });
}

int VerifyReport::passed() const {
  return static_cast<int>(
      std::count_if(rows.begin(), rows.end(), [](const VerifyRow& r) { return r.ok(); }));
}

int VerifyReport::failed() const {
  return static_cast<int>(rows.size()) - passed() + (course_problems.empty() ? 0 : 1);
}

namespace {

// Why a run did not pass, in one line: its error, or its first failed check's report.
std::string FirstProblem(const PuzzleRun& run) {
  if (!run.error.empty()) return run.error;
  for (const CheckReport& check : run.checks) {
    if (!check.passed()) {
      return fmt::format("{} {}: {}", StatusWord(check.status), check.name, check.summary);
    }
  }
  if (run.status == RunStatus::kNoChecks) return "it never calls check(...)";
  return std::string(StatusName(run.status));
}

VerifyItem CheckSolution(const Course& course, const PuzzleEntry& p, const RunOptions& options) {
  fs::path file = course.SolutionPath(p);
  PuzzleRun run = RunFile(file, options);
  if (run.passed()) {
    return {"solution", true, fmt::format("{} checks pass", run.checks.size())};
  }
  return {"solution", false, "the solution does not pass: " + FirstProblem(run)};
}

VerifyItem CheckStarter(const Course& course, const PuzzleEntry& p, const RunOptions& options) {
  PuzzleRun run = RunFile(course.StarterPath(p), options);
  if (run.passed()) return {"starter", false, "the starter passes its checks unsolved"};
  if (run.status == RunStatus::kIoError) return {"starter", false, run.error};
  std::string everything = run.output + run.Diagnostics();
  if (!p.starter_fails_with.empty() && everything.find(p.starter_fails_with) == std::string::npos) {
    return {"starter", false,
            fmt::format("the starter fails ({}) but never says `{}`", FirstProblem(run),
                        p.starter_fails_with)};
  }
  if (everything.find("internal error") != std::string::npos) {
    return {"starter", false, "the starter hits an internal error: " + FirstProblem(run)};
  }
  return {"starter", true, FirstProblem(run)};
}

VerifyItem CheckRegions(const std::optional<std::string>& starter,
                        const std::optional<std::string>& solution) {
  if (!starter || !solution) return {"regions", false, "starter or solution missing"};
  RegionScan scan = FindRegions(*starter);
  if (!scan.errors.empty()) return {"regions", false, "starter " + scan.errors[0]};
  if (scan.regions.empty()) return {"regions", false, "the starter has no `# YOUR CODE BEGIN`"};
  if (auto difference = CompareOutsideRegions(*starter, *solution)) {
    return {"regions", false, *difference};
  }
  return {"regions", true, fmt::format("{} editable", scan.regions.size())};
}

VerifyItem CheckHints(const Course& course, const PuzzleEntry& p) {
  std::optional<std::string> text = ReadFile(course.HintsPath(p));
  if (!text) return {"hints", false, fmt::format("missing hints/{}/{}.md", p.chapter, p.id)};
  std::vector<Hint> hints = ParseHints(*text);
  if (hints.size() < 2) {
    return {"hints", false, fmt::format("{} hint level(s); at least 2 are needed", hints.size())};
  }
  for (const Hint& h : hints) {
    if (h.body.empty()) return {"hints", false, fmt::format("hint `{}` is empty", h.title)};
  }
  return {"hints", true, fmt::format("{} levels", hints.size())};
}

VerifyItem CheckImages(const Course& course, const PuzzleEntry& p,
                       const std::optional<std::string>& starter) {
  std::vector<std::string> used = starter ? ImageReferences(*starter) : std::vector<std::string>{};
  for (const std::string& image : used) {
    std::error_code ec;
    if (!fs::is_regular_file(course.ImagePath(image), ec)) {
      return {"images", false, fmt::format("images/{} does not exist", image)};
    }
    if (std::find(p.images.begin(), p.images.end(), image) == p.images.end()) {
      return {"images", false,
              fmt::format("images/{} is referenced but not listed in the manifest", image)};
    }
  }
  for (const std::string& image : p.images) {
    if (std::find(used.begin(), used.end(), image) == used.end()) {
      return {"images", false,
              fmt::format("the manifest lists images/{} but the puzzle never shows it", image)};
    }
  }
  return {"images", true, fmt::format("{} images", used.size())};
}

// A puzzle's text may quote what `pallas-puzzles run --stats --timeline` prints for its
// solution: lines of a code block such as `# (0,): start x_hbm[0:72] -> buf[0] ... @113`. Each
// quoted line must still be what the emulator prints, so a text cannot drift from the solution
// (its line numbers, byte counts or schedule). Puzzles that quote nothing get no item.
std::vector<std::string> QuotedTimeline(const std::optional<std::string>& starter) {
  if (!starter) return {};
  // A quoted line may be wrapped: its continuation lines are indented further.
  std::vector<std::string> quoted;
  bool in_block = false, continues = false;
  for (std::string_view line : SplitLines(*starter)) {
    if (line.rfind("# ```", 0) == 0) {
      in_block = !in_block;
      continues = false;
      continue;
    }
    if (!in_block) continue;
    if (continues && line.rfind("#  ", 0) == 0) {
      quoted.back() += " " + std::string(line.substr(line.find_first_not_of("# ")));
      continue;
    }
    continues = false;
    if (line.rfind("# (", 0) != 0) continue;
    std::string_view body = line.substr(2);
    bool event = body.find("): start ") != std::string_view::npos ||
                 body.find("): wait ") != std::string_view::npos ||
                 body.find("): signal ") != std::string_view::npos;
    if (event && body.find(" @") != std::string_view::npos) {
      quoted.emplace_back(body);
      continues = true;
    }
  }
  return quoted;
}

VerifyItem CheckQuotedTimeline(const Course& course, const PuzzleEntry& p,
                               const std::vector<std::string>& quoted, const RunOptions& options) {
  RunOptions traced = options;
  traced.emulator.stats = true;
  traced.emulator.timeline = true;
  PuzzleRun run = RunFile(course.SolutionPath(p), traced);
  std::string printed;
  for (const tpu::CallStats& call : run.stats) {
    printed += tpu::FormatCallStats(call, *run.sources, true);
  }
  for (const std::string& line : quoted) {
    if (printed.find("  " + line + "\n") == std::string::npos) {
      return VerifyItem{"timeline", false,
                        fmt::format("the text quotes `{}`, which `run --stats --timeline` of the "
                                    "solution no longer prints",
                                    line)};
    }
  }
  return VerifyItem{"timeline", true, fmt::format("{} quoted lines as printed", quoted.size())};
}

// Puzzle files on disk that the manifest does not list, and chapter texts that are missing.
void CheckFiles(const Course& course, const std::string& only, std::vector<std::string>& problems) {
  for (const ChapterEntry& chapter : course.chapters) {
    if (!only.empty() && chapter.id.rfind(only.substr(0, only.find('/')), 0) != 0) continue;
    for (const fs::path& file : {course.IntroPath(chapter), course.SummaryPath(chapter)}) {
      std::error_code ec;
      if (!fs::is_regular_file(file, ec)) {
        problems.push_back(fmt::format("{}: missing", fs::relative(file, course.root).string()));
      }
    }
    for (const DiagramEntry& d : chapter.diagrams) {
      std::error_code ec;
      if (!course.FindDiagramPuzzle(chapter, d)) {
        problems.push_back(
            fmt::format("puzzles/{}/chapter.json: diagram {} draws `{}`, which is "
                        "not a puzzle",
                        chapter.id, d.image, d.puzzle));
      }
      if (!fs::is_regular_file(course.ImagePath(d.image), ec)) {
        problems.push_back(
            fmt::format("images/{}: declared as a generated diagram but missing; "
                        "run ./update_notebooks.sh",
                        d.image));
      }
    }
    std::set<std::string> listed;
    for (const PuzzleEntry& p : chapter.puzzles) listed.insert(p.id);
    for (const char* folder : {"puzzles", "solutions", "hints"}) {
      std::error_code ec;
      fs::path dir = course.root / folder / chapter.id;
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(dir, ec)) files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      for (const fs::path& f : files) {
        std::string ext = f.extension().string();
        if ((ext != ".py" && ext != ".md") || f.filename() == "pallas_check.py" ||
            f.filename() == "intro.md" || f.filename() == "summary.md") {
          continue;
        }
        if (!listed.count(f.stem().string())) {
          problems.push_back(fmt::format("{}/{}/{}: not in the manifest", folder, chapter.id,
                                         f.filename().string()));
        }
      }
    }
  }
}

// What a puzzle's row is made of. The runs of its files (the slow part) are parts that may each
// run in a process of their own; the rest of the row is read from files.
enum class Part { kSolution, kStarter, kTimeline };

// The name of the row's item a part gives.
const char* PartName(Part part) {
  switch (part) {
    case Part::kSolution:
      return "solution";
    case Part::kStarter:
      return "starter";
    case Part::kTimeline:
      break;
  }
  return "timeline";
}

struct PuzzleWork {
  const PuzzleEntry* puzzle = nullptr;
  std::optional<std::string> starter, solution;
  std::vector<std::string> quoted;  // timeline lines the text quotes
  std::vector<Part> parts;
};

PuzzleWork Prepare(const Course& course, const PuzzleEntry& p) {
  PuzzleWork work{.puzzle = &p,
                  .starter = ReadFile(course.StarterPath(p)),
                  .solution = ReadFile(course.SolutionPath(p))};
  work.quoted = QuotedTimeline(work.starter);
  if (work.solution) work.parts.push_back(Part::kSolution);
  if (work.starter) work.parts.push_back(Part::kStarter);
  if (!work.quoted.empty()) work.parts.push_back(Part::kTimeline);
  return work;
}

VerifyItem RunPart(const Course& course, const PuzzleWork& work, Part part,
                   const RunOptions& options) {
  switch (part) {
    case Part::kSolution:
      return CheckSolution(course, *work.puzzle, options);
    case Part::kStarter:
      return CheckStarter(course, *work.puzzle, options);
    case Part::kTimeline:
      break;
  }
  return CheckQuotedTimeline(course, *work.puzzle, work.quoted, options);
}

// The row, given the item of each of work.parts (in that order).
VerifyRow Assemble(const Course& course, const PuzzleWork& work, std::vector<VerifyItem> ran) {
  const PuzzleEntry& p = *work.puzzle;
  VerifyRow row{.puzzle = p.name()};
  if (!work.starter) {
    row.items.push_back(
        {"starter", false, fmt::format("missing puzzles/{}/{}.py", p.chapter, p.id)});
  }
  if (!work.solution) {
    row.items.push_back(
        {"solution", false, fmt::format("missing solutions/{}/{}.py", p.chapter, p.id)});
  }
  auto item_of = [&](Part part) -> std::optional<VerifyItem> {
    auto at = std::find(work.parts.begin(), work.parts.end(), part);
    if (at == work.parts.end()) return std::nullopt;
    return std::move(ran[static_cast<size_t>(at - work.parts.begin())]);
  };
  if (auto item = item_of(Part::kSolution)) row.items.push_back(std::move(*item));
  if (auto item = item_of(Part::kStarter)) row.items.push_back(std::move(*item));
  row.items.push_back(CheckRegions(work.starter, work.solution));
  row.items.push_back(CheckHints(course, p));
  row.items.push_back(CheckImages(course, p, work.starter));
  if (auto item = item_of(Part::kTimeline)) row.items.push_back(std::move(*item));
  return row;
}

// One puzzle's row, its runs one after another in this process.
VerifyRow VerifyPuzzle(const Course& course, const PuzzleEntry& p, const VerifyOptions& options) {
  PuzzleWork work = Prepare(course, p);
  std::vector<VerifyItem> ran;
  for (Part part : work.parts) ran.push_back(RunPart(course, work, part, options.run));
  return Assemble(course, work, std::move(ran));
}

// Items as lines of `name \t ok \t detail`, with backslashes, tabs and newlines escaped;
// and back.
std::string Escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Unescape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    char c = text[++i];
    out += c == 't' ? '\t' : c == 'n' ? '\n' : c;
  }
  return out;
}

std::string Serialize(const std::vector<VerifyItem>& items) {
  std::string out;
  for (const VerifyItem& item : items) {
    out += Escape(item.name) + "\t" + (item.ok ? "1" : "0") + "\t" + Escape(item.detail) + "\n";
  }
  return out;
}

std::vector<VerifyItem> Deserialize(std::string_view text) {
  std::vector<VerifyItem> items;
  for (std::string_view line : SplitLines(text)) {
    size_t a = line.find('\t');
    size_t b = a == std::string_view::npos ? a : line.find('\t', a + 1);
    if (b == std::string_view::npos) continue;
    items.push_back({Unescape(line.substr(0, a)), line.substr(a + 1, b - a - 1) == "1",
                     Unescape(line.substr(b + 1))});
  }
  return items;
}

// Writes all of `text` to `fd`; false if the reader is gone.
bool WriteAll(int fd, std::string_view text) {
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<size_t>(n);
  }
  return true;
}

// The rows of `puzzles`, each run of a file (smaller pieces of work than whole puzzles keep every
// process busy to the end) handed to one of `jobs` worker processes as it comes free; each row
// handed to `on_row` in order as soon as all its runs are done. A worker runs its runs one after
// another, as `--jobs 1` runs all of them, so its heap serves the next run: a process per run
// spent a third of verify's time on fresh pages and process start-up. A worker that dies fails
// the run it had (with its signal or exit status) and another takes its place.
std::vector<VerifyRow> VerifyForked(const Course& course,
                                    const std::vector<const PuzzleEntry*>& puzzles,
                                    const VerifyOptions& options) {
  struct Task {
    size_t row = 0, part = 0;
  };
  struct Worker {
    pid_t pid = -1;
    int commands = -1;  // task numbers to the worker, 8 bytes each
    int results = -1;   // one serialized item per line from the worker
    std::string out;
    std::optional<size_t> task;  // the run it has now
  };
  std::vector<PuzzleWork> work;
  std::vector<Task> tasks;
  for (size_t r = 0; r < puzzles.size(); ++r) {
    work.push_back(Prepare(course, *puzzles[r]));
    for (size_t k = 0; k < work.back().parts.size(); ++k) tasks.push_back({r, k});
  }
  std::vector<std::vector<VerifyItem>> ran(puzzles.size());
  std::vector<size_t> waiting(puzzles.size());
  for (size_t r = 0; r < puzzles.size(); ++r) {
    ran[r].resize(work[r].parts.size());
    waiting[r] = work[r].parts.size();
  }
  auto run = [&](size_t t) {
    const PuzzleWork& w = work[tasks[t].row];
    return RunPart(course, w, w.parts[tasks[t].part], options.run);
  };
  std::vector<VerifyRow> rows(puzzles.size());
  std::vector<Worker> workers;
  size_t next = 0, reported = 0;
  // A worker that died leaves its command pipe without a reader: writing to it must fail, not
  // end this process.
  struct sigaction ignore {
  }, previous{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  auto finish = [&](size_t t, VerifyItem item) {
    ran[tasks[t].row][tasks[t].part] = std::move(item);
    --waiting[tasks[t].row];
  };
  auto spawn = [&]() -> bool {
    std::fflush(nullptr);  // rows reported so far are not written again by the new worker
    int commands[2], results[2];
    if (pipe(commands) != 0) return false;
    if (pipe(results) != 0) {
      close(commands[0]);
      close(commands[1]);
      return false;
    }
    pid_t pid = fork();
    if (pid == 0) {
      close(commands[1]);
      close(results[0]);
      for (const Worker& other : workers) {  // the parent's ends of the other workers' pipes
        close(other.commands);
        close(other.results);
      }
      uint64_t t = 0;
      while (true) {
        size_t got = 0;
        while (got < sizeof t) {
          ssize_t n = read(commands[0], reinterpret_cast<char*>(&t) + got, sizeof t - got);
          if (n < 0 && errno == EINTR) continue;
          if (n <= 0) _exit(0);  // no more work
          got += static_cast<size_t>(n);
        }
        if (!WriteAll(results[1], Serialize(std::vector<VerifyItem>{run(t)}))) _exit(0);
      }
    }
    close(commands[0]);
    close(results[1]);
    if (pid < 0) {
      close(commands[1]);
      close(results[0]);
      return false;
    }
    workers.push_back(Worker{.pid = pid, .commands = commands[1], .results = results[0]});
    return true;
  };
  // Gives `worker` the next run, or lets it go (closing its commands ends it) when none is left.
  auto assign = [&](Worker& worker) {
    if (next >= tasks.size()) {
      if (worker.commands >= 0) close(worker.commands);
      worker.commands = -1;
      return;
    }
    uint64_t t = next++;
    worker.task = t;
    if (!WriteAll(worker.commands, std::string_view(reinterpret_cast<const char*>(&t), sizeof t))) {
      // Gone already: its end of the results pipe reports how.
      close(worker.commands);
      worker.commands = -1;
    }
  };
  auto report_done = [&] {
    while (reported < puzzles.size() && waiting[reported] == 0) {
      rows[reported] = Assemble(course, work[reported], std::move(ran[reported]));
      if (options.on_row) options.on_row(rows[reported]);
      ++reported;
    }
  };
  // Workers for the runs not handed out yet (at the start, and in place of workers that died),
  // up to `jobs`; when not one can be started, the runs are done here.
  size_t wanted = std::min(static_cast<size_t>(options.jobs), tasks.size());
  auto staff = [&] {
    while (next < tasks.size() && workers.size() < wanted && spawn()) assign(workers.back());
    if (!workers.empty()) return;
    while (next < tasks.size()) {
      size_t t = next++;
      finish(t, run(t));
    }
  };
  report_done();  // rows with nothing to run
  staff();
  while (!workers.empty()) {
    std::vector<pollfd> polls;
    for (const Worker& w : workers) polls.push_back({w.results, POLLIN, 0});
    if (poll(polls.data(), polls.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    std::vector<size_t> ended;
    for (size_t i = 0; i < polls.size(); ++i) {
      if ((polls[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      Worker& worker = workers[i];
      char buffer[4096];
      ssize_t n = read(worker.results, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        worker.out.append(buffer, static_cast<size_t>(n));
        // One line per finished run.
        for (size_t eol; (eol = worker.out.find('\n')) != std::string::npos;) {
          std::vector<VerifyItem> items = Deserialize(worker.out.substr(0, eol + 1));
          worker.out.erase(0, eol + 1);
          if (!worker.task || items.size() != 1) continue;
          finish(*worker.task, std::move(items[0]));
          worker.task.reset();
          assign(worker);
        }
        continue;
      }
      // The worker's end: after its last run, or in the middle of one.
      close(worker.results);
      if (worker.commands >= 0) close(worker.commands);
      int status = 0;
      waitpid(worker.pid, &status, 0);
      if (worker.task) {
        size_t t = *worker.task;
        finish(t, {PartName(work[tasks[t].row].parts[tasks[t].part]), false,
                   WIFSIGNALED(status)
                       ? fmt::format("verifying it crashed (signal {})", WTERMSIG(status))
                       : fmt::format("verifying it exited with {} and no result",
                                     WIFEXITED(status) ? WEXITSTATUS(status) : -1)});
      }
      ended.push_back(i);
    }
    for (size_t i = ended.size(); i-- > 0;) {
      workers.erase(workers.begin() + static_cast<std::ptrdiff_t>(ended[i]));
    }
    staff();
    report_done();
  }
  report_done();
  sigaction(SIGPIPE, &previous, nullptr);
  return rows;
}

}  // namespace

VerifyReport Verify(const CourseLoad& load, const VerifyOptions& options) {
  VerifyReport report;
  report.course_problems = load.errors;
  const Course& course = load.course;
  if (course.chapters.empty() && load.errors.empty()) {
    report.course_problems.push_back("the course has no chapters");
  }
  CheckFiles(course, options.only, report.course_problems);
  std::vector<const PuzzleEntry*> puzzles;
  for (const PuzzleEntry* p : course.Puzzles()) {
    if (options.only.empty() || p->name().rfind(options.only, 0) == 0) puzzles.push_back(p);
  }
  if (options.jobs > 1 && puzzles.size() > 1) {
    report.rows = VerifyForked(course, puzzles, options);
    return report;
  }
  for (const PuzzleEntry* p : puzzles) {
    VerifyRow row = VerifyPuzzle(course, *p, options);
    if (options.on_row) options.on_row(row);
    report.rows.push_back(std::move(row));
  }
  return report;
}

}  // namespace pz::course

// `pallas-puzzles tune FILE --param NAME=V1,V2,... [--shapes ...]`: block-size tuning
// (course/tune.h). Progress goes to stderr, one line per configuration; the ranking to stdout;
// the tuned table (a Python module), CSV and JSON to PREFIX.py/.csv/.json with --out, or the
// module to stdout without it.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli/commands.h"
#include "cli/course_context.h"
#include "cli/terminal.h"
#include "cli/tool_options.h"
#include "course/tune.h"

namespace pz::cli {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kTuneUsage =
    "tune FILE|PUZZLE --param NAME=V1,V2,... [--param ...] [--shapes 'NAME=V,...;NAME=V,...'] "
    "[--tpu VERSION] [--cores 1|2] [--step-us US] [--out PREFIX] [--workspace]";

int TuneUsage(const std::string& message) {
  std::fprintf(stderr, "pallas-puzzles tune: %s\nusage: pallas-puzzles %s\n", message.c_str(),
               std::string(kTuneUsage).c_str());
  return kExitUsage;
}

std::vector<std::string> TuneSplit(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return parts;
}

std::string TuneTrim(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

bool TuneIsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// "NAME=V1,V2" -> (NAME, [V1, V2]); nullopt with a message when malformed.
std::optional<std::pair<std::string, std::vector<std::string>>> TuneParseParam(
    const std::string& text, std::string& error) {
  size_t eq = text.find('=');
  std::string name = TuneTrim(text.substr(0, eq));
  if (eq == std::string::npos || !TuneIsIdentifier(name)) {
    error =
        fmt::format("`--param {}`: expected NAME=V1,V2,... (NAME a module-level variable)", text);
    return std::nullopt;
  }
  std::vector<std::string> values;
  for (const std::string& v : TuneSplit(text.substr(eq + 1), ',')) {
    if (TuneTrim(v).empty()) {
      error = fmt::format("`--param {}`: an empty value", text);
      return std::nullopt;
    }
    values.push_back(TuneTrim(v));
  }
  return std::pair(name, values);
}

}  // namespace

int TuneCommand(const std::vector<std::string>& args) {
  std::string target, out_prefix;
  course::TuneSpec spec;
  ModelOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    std::string error;
    if (ParseModelOption(args, i, /*allow_all=*/false, options, error)) {
      if (!error.empty()) return TuneUsage(error);
    } else if (a == "--param") {
      std::optional<std::string> v = value();
      if (!v) return TuneUsage("`--param` needs NAME=V1,V2,...");
      std::string error;
      auto param = TuneParseParam(*v, error);
      if (!param) return TuneUsage(error);
      for (const auto& p : spec.params) {
        if (p.first == param->first) return TuneUsage(fmt::format("`{}` is given twice", p.first));
      }
      spec.params.push_back(std::move(*param));
    } else if (a == "--shapes") {
      std::optional<std::string> v = value();
      if (!v) return TuneUsage("`--shapes` needs points like 'T=256,V=4096;T=1024,V=32768'");
      for (const std::string& point_text : TuneSplit(*v, ';')) {
        if (TuneTrim(point_text).empty()) continue;
        std::vector<course::Binding> point;
        for (const std::string& item : TuneSplit(point_text, ',')) {
          size_t eq = item.find('=');
          std::string name = TuneTrim(item.substr(0, eq));
          std::string val = eq == std::string::npos ? "" : TuneTrim(item.substr(eq + 1));
          if (eq == std::string::npos || !TuneIsIdentifier(name) || val.empty()) {
            return TuneUsage(fmt::format("`--shapes`: `{}` is not NAME=VALUE", TuneTrim(item)));
          }
          if (name != "dtype" && (val.find_first_not_of("0123456789") != std::string::npos)) {
            return TuneUsage(fmt::format(
                "`--shapes`: `{}={}`: shape values are integers (and `dtype=jnp.bfloat16` "
                "names the dtype)",
                name, val));
          }
          point.emplace_back(name, val);
        }
        spec.shapes.push_back(std::move(point));
      }
    } else if (a == "--out") {
      std::optional<std::string> v = value();
      if (!v) return TuneUsage("`--out` needs a path prefix (PREFIX.py, .csv and .json)");
      out_prefix = *v;
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: pallas-puzzles %s\n", std::string(kTuneUsage).c_str());
      return kExitOk;
    } else if (!a.empty() && a[0] == '-') {
      return TuneUsage(fmt::format("unknown option `{}`", a));
    } else if (target.empty()) {
      target = a;
    } else {
      return TuneUsage("expected one FILE or PUZZLE");
    }
  }
  if (target.empty()) return TuneUsage("missing FILE or PUZZLE");
  if (spec.params.empty()) return TuneUsage("give at least one `--param NAME=V1,V2,...`");
  if (std::optional<std::string> error = CheckModelOptions(options)) return TuneUsage(*error);
  spec.target = options.Target();
  // Every shape point names the same things, none of them a param.
  for (const std::vector<course::Binding>& point : spec.shapes) {
    std::vector<std::string> names, first;
    for (const auto& b : point) names.push_back(b.first);
    for (const auto& b : spec.shapes[0]) first.push_back(b.first);
    std::sort(names.begin(), names.end());
    std::sort(first.begin(), first.end());
    if (names != first) return TuneUsage("every `--shapes` point must set the same names");
    for (const auto& [name, values] : spec.params) {
      if (std::find(names.begin(), names.end(), name) != names.end()) {
        return TuneUsage(fmt::format("`{}` is both a --param and a shape", name));
      }
    }
  }

  fs::path file;
  if (auto exit = ProgramOf("tune", target, options.workspace, file)) return *exit;
  std::vector<std::string> names;
  for (const auto& [name, values] : spec.params) names.push_back(name);
  if (!spec.shapes.empty()) {
    for (const auto& [name, value] : spec.shapes[0]) names.push_back(name);
  }
  course::ProgramTemplate program;
  if (std::optional<std::string> error = course::LoadTemplate(file, names, program)) {
    std::fprintf(stderr, "pallas-puzzles tune: %s\n", error->c_str());
    return error->rfind("cannot read", 0) == 0 ? kExitIo : kExitUsage;
  }
  spec.run = CourseRunOptions(false);
  options.Apply(spec.run.emulator);

  std::vector<course::TuneResult> results =
      course::RunTune(spec, program, [](size_t done, size_t total, const course::TuneResult& r) {
        std::string what;
        for (const auto& [name, value] : r.shape) what += fmt::format("{}={} ", name, value);
        for (const auto& [name, value] : r.params) what += fmt::format("{}={} ", name, value);
        std::fprintf(stderr, "[%zu/%zu] %s: %s\n", done, total, what.c_str(),
                     r.ok ? fmt::format("time >= {}s", course::SiNumber(r.bound_s)).c_str()
                          : ("rejected, " + r.reason).c_str());
      });

  std::string command = "pallas-puzzles tune " + file.string();
  for (const auto& [name, values] : spec.params) {
    std::string joined;
    for (const std::string& v : values) joined += (joined.empty() ? "" : ",") + v;
    command += fmt::format(" --param {}={}", name, joined);
  }
  if (!spec.shapes.empty()) {
    std::string points;
    for (const auto& point : spec.shapes) {
      std::string p;
      for (const auto& [name, value] : point)
        p += fmt::format("{}{}={}", p.empty() ? "" : ",", name, value);
      points += (points.empty() ? "" : ";") + p;
    }
    command += fmt::format(" --shapes '{}'", points);
  }
  command += fmt::format(" --tpu {}", spec.target.chip->version);
  if (options.cores > 1) command += " --cores 2";
  if (options.step_seconds != course::kStepSeconds) {
    command += fmt::format(" --step-us {}", options.step_seconds * 1e6);
  }

  Out(course::TuneSummary(spec, results));
  std::string module = course::TunedTableModule(spec, program, results, command);
  bool any =
      std::any_of(results.begin(), results.end(), [](const course::TuneResult& r) { return r.ok; });
  if (out_prefix.empty()) {
    Out("\n" + module);
  } else {
    for (const auto& [suffix, text] : {std::pair<std::string, std::string>{".py", module},
                                       {".csv", course::TuneCsv(spec, results)},
                                       {".json", course::TuneJson(spec, program, results)}}) {
      fs::path path = out_prefix + suffix;
      std::ofstream out(path, std::ios::binary);
      out << text;
      if (!out) {
        std::fprintf(stderr, "pallas-puzzles tune: cannot write %s\n", path.string().c_str());
        return kExitIo;
      }
      Out(fmt::format("wrote {}\n", path.string()));
    }
  }
  if (!any) {
    std::fputs("pallas-puzzles tune: no configuration passed; the table holds only the defaults\n",
               stderr);
    return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace pz::cli

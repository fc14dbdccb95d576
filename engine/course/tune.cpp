// Block-size tuning (tune.h).
#include "course/tune.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>

#include "lang/parser.h"
#include "support/diagnostic.h"

namespace pz::course {
namespace {

// The value of a shape binding as an integer, when it is one.
std::optional<int64_t> TuneInt(const std::string& text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// "jnp.bfloat16" -> "bfloat16"; quotes dropped.
std::string TuneDTypeName(std::string text) {
  size_t dot = text.rfind('.');
  if (dot != std::string::npos) text = text.substr(dot + 1);
  text.erase(std::remove(text.begin(), text.end(), '"'), text.end());
  text.erase(std::remove(text.begin(), text.end(), '\''), text.end());
  return text;
}

std::string TuneBindings(const std::vector<Binding>& bindings) {
  std::string s;
  for (const auto& [name, value] : bindings)
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", name, value);
  return s;
}

// The first line of a diagnostic text, without the "path:line:col: " prefix.
std::string TuneFirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  size_t at = line.find(": error: ");
  if (at != std::string::npos) return line.substr(at + 9);
  at = line.find(": warning: ");
  if (at != std::string::npos) return line.substr(at + 11);
  return line;
}

std::string TuneCsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// A Python string literal.
std::string TunePyString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The bucket of a shape point: each integer binding but `dtype`, rounded up to a power of two,
// sorted by name.
std::vector<std::pair<std::string, int64_t>> TuneBucket(const std::vector<Binding>& shape) {
  std::vector<std::pair<std::string, int64_t>> bucket;
  for (const auto& [name, value] : shape) {
    if (name == "dtype") continue;
    bucket.emplace_back(name, BucketOf(TuneInt(value).value_or(0)));
  }
  std::sort(bucket.begin(), bucket.end());
  return bucket;
}

std::string TuneBucketPy(const std::vector<std::pair<std::string, int64_t>>& bucket) {
  std::string s = "(";
  for (const auto& [name, value] : bucket)
    s += fmt::format("({}, {}), ", TunePyString(name), value);
  if (!bucket.empty()) s.resize(s.size() - 2);
  return s + (bucket.size() == 1 ? ",)" : ")");
}

// Every combination of the params' values, the first param varying slowest.
std::vector<std::vector<Binding>> TuneCombinations(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& params) {
  std::vector<std::vector<Binding>> out = {{}};
  for (const auto& [name, values] : params) {
    std::vector<std::vector<Binding>> next;
    for (const std::vector<Binding>& prefix : out) {
      for (const std::string& v : values) {
        next.push_back(prefix);
        next.back().emplace_back(name, v);
      }
    }
    out = std::move(next);
  }
  return out;
}

}  // namespace

int64_t BucketOf(int64_t n) {
  int64_t b = 1;
  while (b < n) b *= 2;
  return b;
}

std::optional<std::string> LoadTemplate(const std::filesystem::path& file,
                                        const std::vector<std::string>& names,
                                        ProgramTemplate& out) {
  SourceManager sources;
  std::optional<FileId> id = sources.Load(file.string());
  if (!id) return fmt::format("cannot read {}", file.string());
  DiagnosticSink sink;
  lang::Module module = lang::ParseModule(sources.Get(*id), *id, sink);
  if (sink.HasErrors()) {
    for (const Diagnostic& d : sink.diagnostics()) {
      if (d.severity == Severity::kError) {
        return fmt::format("{}: {}", FormatLocation(*d.span, sources), d.message);
      }
    }
  }
  out.file = file;
  out.text = std::string(sources.Get(*id).text());
  out.slots.clear();
  for (const std::string& name : names) {
    const lang::Assign* found = nullptr;
    for (const lang::StmtPtr& stmt : module.body) {
      const auto* assign = std::get_if<lang::Assign>(&stmt->node);
      if (assign == nullptr || assign->targets.size() != 1) continue;
      const auto* target = std::get_if<lang::Name>(&assign->targets[0]->node);
      if (target == nullptr || target->id != name) continue;
      if (found != nullptr) {
        return fmt::format(
            "{} assigns `{}` more than once at module level; tune replaces one `{} = ...`",
            file.string(), name, name);
      }
      found = assign;
    }
    if (found == nullptr) {
      return fmt::format(
          "{} has no module-level assignment `{} = ...`; tune sets the block sizes and shapes "
          "it names by replacing such assignments",
          file.string(), name);
    }
    SourceSpan value = found->value->span;
    out.slots.push_back({.name = name,
                         .begin = value.begin,
                         .end = value.end,
                         .original = out.text.substr(value.begin, value.end - value.begin)});
  }
  return std::nullopt;
}

std::string Instantiate(const ProgramTemplate& program, const std::vector<Binding>& bindings) {
  std::vector<std::pair<const ProgramTemplate::Slot*, const std::string*>> edits;
  for (const auto& [name, value] : bindings) {
    for (const ProgramTemplate::Slot& slot : program.slots) {
      if (slot.name == name) edits.emplace_back(&slot, &value);
    }
  }
  std::sort(edits.begin(), edits.end(),
            [](const auto& a, const auto& b) { return a.first->begin > b.first->begin; });
  std::string text = program.text;
  for (const auto& [slot, value] : edits) {
    text.replace(slot->begin, slot->end - slot->begin, *value);
  }
  return text;
}

std::vector<TuneResult> RunTune(
    const TuneSpec& spec, const ProgramTemplate& program,
    const std::function<void(size_t done, size_t total, const TuneResult&)>& progress) {
  std::vector<std::vector<Binding>> combinations = TuneCombinations(spec.params);
  std::vector<std::vector<Binding>> shapes = spec.shapes;
  if (shapes.empty()) shapes.emplace_back();
  size_t total = shapes.size() * combinations.size();
  std::vector<TuneResult> results;
  for (const std::vector<Binding>& shape : shapes) {
    size_t first = results.size();
    for (const std::vector<Binding>& params : combinations) {
      TuneResult r{.shape = shape, .params = params};
      std::vector<Binding> all = shape;
      all.insert(all.end(), params.begin(), params.end());
      RunOptions options = spec.run;
      options.source = Instantiate(program, all);
      options.emulator.stats = true;
      options.stats_in_diagnostics = false;
      PuzzleRun run = RunFile(program.file, options);
      const SourceManager& sources = *run.sources;
      for (const auto& [name, value] : shape) {
        if (name == "dtype") r.dtype = TuneDTypeName(value);
      }
      if (r.dtype.empty() && !run.stats.empty()) r.dtype = run.stats[0].input_dtype;
      std::vector<CallRoofline> calls = Roofline(run.stats, sources, spec.target);
      for (const CallRoofline& c : calls) {
        r.grid_steps += c.grid_steps * c.count;
        r.flops += c.flops * c.count;
        r.hbm_bytes += c.hbm_bytes() * c.count;
        r.vmem_bytes = std::max(r.vmem_bytes, c.vmem_bytes);
      }
      r.bound_s = TotalBound(calls);
      if (run.status == RunStatus::kFailed) {
        std::string failed;
        for (const CheckReport& c : run.checks) {
          if (!c.passed()) {
            failed = c.name;
            break;
          }
        }
        r.reason = fmt::format("check `{}` failed", failed);
      } else if (run.status != RunStatus::kPassed && run.status != RunStatus::kNoChecks) {
        r.reason = run.error.empty() ? TuneFirstLine(run.Diagnostics()) : run.error;
      } else if (!run.lint.empty()) {
        r.reason = "a TPU would reject it: " + run.lint.front().message;
      } else if (calls.empty()) {
        r.reason = "no pallas_call ran";
      } else if (r.vmem_bytes > spec.target.chip->vmem_bytes) {
        r.reason = fmt::format("needs {} bytes of VMEM; a TPU {} TensorCore has {}", r.vmem_bytes,
                               spec.target.chip->version, spec.target.chip->vmem_bytes);
      } else {
        r.ok = true;
      }
      results.push_back(std::move(r));
      if (progress) progress(results.size(), total, results.back());
    }
    // Rank the point's accepted combinations, fastest first (ties keep the order given).
    std::vector<TuneResult*> ok;
    for (size_t i = first; i < results.size(); ++i) {
      if (results[i].ok) ok.push_back(&results[i]);
    }
    std::stable_sort(ok.begin(), ok.end(), [](const TuneResult* a, const TuneResult* b) {
      return a->bound_s < b->bound_s;
    });
    for (size_t i = 0; i < ok.size(); ++i) ok[i]->rank = static_cast<int>(i + 1);
  }
  return results;
}

std::string TunedTableModule(const TuneSpec& spec, const ProgramTemplate& program,
                             const std::vector<TuneResult>& results, const std::string& command) {
  size_t accepted =
      std::count_if(results.begin(), results.end(), [](const TuneResult& r) { return r.ok; });
  std::string out = fmt::format(
      "\"\"\"Tuned block sizes for {}.\n\n"
      "Written by `{}`.\n"
      "{} of {} configurations ran, passed their checks and fit a TPU {}; each entry is the one\n"
      "with the lowest roofline bound (FLOPs at the bf16 peak, HBM bytes at the HBM bandwidth,\n"
      "{:.2f} us per grid step). Review it before checking it in: the bound is a model, not a\n"
      "measurement.\n\n"
      "Keys are (TPU version, dtype name, shape bucket); a bucket holds each shape name with its\n"
      "value rounded up to a power of two, sorted by name.\n\"\"\"\n\n",
      program.file.filename().string(), command, accepted, results.size(),
      spec.target.chip->version, spec.target.step_seconds * 1e6);
  out += "TUNED_BLOCK_SIZES = {\n";
  std::vector<std::string> keys;
  for (const TuneResult& r : results) {
    if (r.rank != 1) continue;
    std::string key = fmt::format("({}, {}, {})", TunePyString(spec.target.chip->version),
                                  TunePyString(r.dtype), TuneBucketPy(TuneBucket(r.shape)));
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
      out += fmt::format("    # {} falls in the bucket of an earlier shape; that entry stays\n",
                         TuneBindings(r.shape));
      continue;
    }
    keys.push_back(key);
    std::string values;
    for (const auto& [name, value] : r.params) {
      values += fmt::format("{}{}: {}", values.empty() ? "" : ", ", TunePyString(name), value);
    }
    out += fmt::format("    {}: {{{}}},  # time >= {:.3g} us\n", key, values, r.bound_s * 1e6);
  }
  out += "}\n\n";
  std::string defaults;
  for (const auto& [name, values] : spec.params) {
    for (const ProgramTemplate::Slot& slot : program.slots) {
      if (slot.name == name) {
        defaults += fmt::format("{}{}: {}", defaults.empty() ? "" : ", ", TunePyString(name),
                                slot.original);
      }
    }
  }
  out += fmt::format("# The values {} assigns: the fallback for shapes the table does not hold.\n",
                     program.file.filename().string());
  out += fmt::format("DEFAULT_BLOCK_SIZES = {{{}}}\n\n\n", defaults);
  out +=
      "def _bucket(n):\n"
      "    \"\"\"n rounded up to a power of two (1 for n <= 1).\"\"\"\n"
      "    b = 1\n"
      "    while b < n:\n"
      "        b *= 2\n"
      "    return b\n\n\n"
      "def infer_block_sizes(tpu_version, dtype, **shape):\n"
      "    \"\"\"The tuned block sizes for a TPU version (\"v5e\"), a dtype name (\"float32\") "
      "and\n"
      "    the shape (T=..., V=...); DEFAULT_BLOCK_SIZES when the table has no entry.\"\"\"\n"
      "    bucket = tuple(sorted((name, _bucket(value)) for name, value in shape.items()))\n"
      "    return dict(TUNED_BLOCK_SIZES.get((tpu_version, dtype, bucket), DEFAULT_BLOCK_SIZES))\n";
  return out;
}

std::string TuneCsv(const TuneSpec& spec, const std::vector<TuneResult>& results) {
  std::vector<std::string> shape_names;
  for (const TuneResult& r : results) {
    for (const auto& [name, value] : r.shape) {
      if (std::find(shape_names.begin(), shape_names.end(), name) == shape_names.end()) {
        shape_names.push_back(name);
      }
    }
  }
  std::string out = "tpu,dtype";
  for (const std::string& n : shape_names) out += "," + TuneCsvField(n);
  for (const auto& [name, values] : spec.params) out += "," + TuneCsvField(name);
  out += ",status,rank,bound_seconds,grid_steps,flops,hbm_bytes,vmem_bytes,reason\n";
  for (const TuneResult& r : results) {
    out += fmt::format("{},{}", spec.target.chip->version, TuneCsvField(r.dtype));
    for (const std::string& n : shape_names) {
      std::string v;
      for (const auto& [name, value] : r.shape) {
        if (name == n) v = value;
      }
      out += "," + TuneCsvField(v);
    }
    for (const auto& [name, value] : r.params) out += "," + TuneCsvField(value);
    out += fmt::format(",{},{},{},{},{},{},{},{}\n", r.ok ? "ok" : "rejected", r.rank,
                       r.ok ? fmt::format("{:.6g}", r.bound_s) : "", r.grid_steps, r.flops,
                       r.hbm_bytes, r.vmem_bytes, TuneCsvField(r.reason));
  }
  return out;
}

std::string TuneJson(const TuneSpec& spec, const ProgramTemplate& program,
                     const std::vector<TuneResult>& results) {
  auto object = [](const std::vector<Binding>& bindings) {
    nlohmann::json o = nlohmann::json::object();
    for (const auto& [name, value] : bindings) o[name] = value;
    return o;
  };
  nlohmann::json list = nlohmann::json::array();
  for (const TuneResult& r : results) {
    list.push_back({{"shape", object(r.shape)},
                    {"params", object(r.params)},
                    {"dtype", r.dtype},
                    {"ok", r.ok},
                    {"rank", r.rank},
                    {"bound_seconds", r.ok ? nlohmann::json(r.bound_s) : nlohmann::json()},
                    {"grid_steps", r.grid_steps},
                    {"flops", r.flops},
                    {"hbm_bytes", r.hbm_bytes},
                    {"vmem_bytes", r.vmem_bytes},
                    {"reason", r.reason}});
  }
  nlohmann::json out = {{"file", program.file.string()},
                        {"tpu", spec.target.chip->version},
                        {"step_seconds", spec.target.step_seconds},
                        {"results", std::move(list)}};
  return out.dump(1) + "\n";
}

std::string TuneSummary(const TuneSpec& spec, const std::vector<TuneResult>& results) {
  std::string out;
  std::vector<std::vector<Binding>> shapes;
  for (const TuneResult& r : results) {
    if (std::find(shapes.begin(), shapes.end(), r.shape) == shapes.end()) shapes.push_back(r.shape);
  }
  for (const std::vector<Binding>& shape : shapes) {
    out +=
        fmt::format("{} on TPU {}:\n", shape.empty() ? "the program's shapes" : TuneBindings(shape),
                    spec.target.chip->version);
    std::vector<const TuneResult*> rows;
    for (const TuneResult& r : results) {
      if (r.shape == shape) rows.push_back(&r);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const TuneResult* a, const TuneResult* b) {
      if (a->ok != b->ok) return a->ok;
      return a->rank < b->rank;
    });
    for (const TuneResult* r : rows) {
      out += r->ok
                 ? fmt::format("  {:>3}. {:<28} time >= {}s, {} grid steps, {}B of HBM\n", r->rank,
                               TuneBindings(r->params), SiNumber(r->bound_s), r->grid_steps,
                               SiNumber(static_cast<double>(r->hbm_bytes)))
                 : fmt::format("   --  {:<28} rejected: {}\n", TuneBindings(r->params), r->reason);
    }
  }
  return out;
}

}  // namespace pz::course

// The roofline model and its renderings (roofline.h).
#include "course/roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "course/diagram.h"
#include "support/diagnostic.h"

namespace pz::course {
namespace {

using tpu::Counters;

std::string RoofSeconds(double s) { return SiNumber(s) + "s"; }

std::string RoofBytes(double b) {
  if (b < 1024) return fmt::format("{} B", static_cast<int64_t>(b));
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  int u = -1;
  while (b >= 1024 && u < 3) {
    b /= 1024;
    ++u;
  }
  return fmt::format("{:.3g} {}", b, units[u]);
}

// The chip's figures as the report's first line names them.
std::string RoofChipLine(const RooflineTarget& t) {
  const tpu::ChipInfo& chip = *t.chip;
  return fmt::format(
      "TPU {}, per TensorCore: {}FLOP/s (bf16), {}B/s HBM, ridge point {:.0f} flop/B, {} VMEM; "
      "{:.3g} µs per grid step",
      chip.version, SiNumber(t.core_flops()), SiNumber(t.core_bandwidth()), t.ridge(),
      RoofBytes(static_cast<double>(chip.vmem_bytes)), t.step_seconds * 1e6);
}

// The mark of call `i` on the text plot: 1-9, then a-z.
char RoofMark(size_t i) {
  if (i < 9) return static_cast<char>('1' + i);
  if (i < 35) return static_cast<char>('a' + (i - 9));
  return '+';
}

// The decades a plot spans.
struct RoofAxes {
  int x_lo, x_hi, y_lo, y_hi;  // log10 bounds
};

RoofAxes RoofAxesFor(const std::vector<CallRoofline>& calls, const RooflineTarget& t) {
  double ridge = t.ridge(), peak = t.core_flops();
  double x_min = ridge / 1000, x_max = ridge * 10, y_min = peak / 1e4, y_max = peak;
  for (const CallRoofline& c : calls) {
    if (c.intensity <= 0 || c.attainable() <= 0) continue;
    x_min = std::min(x_min, c.intensity);
    x_max = std::max(x_max, c.intensity);
    y_min = std::min(y_min, c.attainable());
    y_max = std::max(y_max, c.peak_flops);
  }
  return {static_cast<int>(std::floor(std::log10(x_min))),
          static_cast<int>(std::ceil(std::log10(x_max))),
          static_cast<int>(std::floor(std::log10(y_min))),
          static_cast<int>(std::ceil(std::log10(y_max)))};
}

}  // namespace

double RooflineTarget::core_flops() const { return chip->bf16_ops / chip->physical_cores; }
double RooflineTarget::core_bandwidth() const { return chip->hbm_bandwidth / chip->physical_cores; }

std::string_view BoundName(Bound bound) {
  switch (bound) {
    case Bound::kCompute:
      return "compute";
    case Bound::kMemory:
      return "memory";
    case Bound::kStepOverhead:
      return "per-step overhead";
  }
  return "";
}

std::string SiCount(double value) {
  std::string s = std::fabs(value) < 1000 && value == std::floor(value)
                      ? fmt::format("{}", static_cast<int64_t>(value))
                      : SiNumber(value);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string SiNumber(double value) {
  if (value == 0) return "0 ";
  struct Prefix {
    double scale;
    const char* name;
  };
  static constexpr Prefix kPrefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"},
                                         {1e6, "M"},  {1e3, "k"},  {1, ""},
                                         {1e-3, "m"}, {1e-6, "µ"}, {1e-9, "n"}};
  double magnitude = std::fabs(value);
  for (const Prefix& p : kPrefixes) {
    // Round first, so 999.96 k prints as 1 M rather than 1e+03 k.
    double scaled = magnitude / p.scale;
    if (std::stod(fmt::format("{:.3g}", scaled)) >= 1 || &p == &kPrefixes[8]) {
      return fmt::format("{:.3g} {}", value / p.scale, p.name);
    }
  }
  return fmt::format("{:.3g} ", value);
}

std::vector<CallRoofline> Roofline(const std::vector<tpu::CallStats>& stats,
                                   const SourceManager& sources, const RooflineTarget& target) {
  std::vector<CallRoofline> calls;
  for (const tpu::CallStats& s : stats) {
    if (!s.backend_summary.empty()) continue;  // another backend ran it: nothing counted
    const Counters& c = s.counters;
    CallRoofline r;
    r.name = s.name;
    r.location = ShortLocation(s.span, sources);
    r.grid = s.grid;
    r.cores = std::max<int>(1, static_cast<int>(s.core_counters.size()));
    r.grid_steps = c.grid_steps;
    r.busiest_steps = c.grid_steps;
    if (!s.core_counters.empty()) {
      r.busiest_steps = 0;
      for (const Counters& core : s.core_counters) {
        r.busiest_steps = std::max(r.busiest_steps, core.grid_steps);
      }
    }
    r.flops = c.flops;
    r.mxu_flops = c.mxu_flops;
    r.vpu_flops = c.flops - c.mxu_flops;
    r.transcendentals = c.transcendentals;
    r.hbm_read = c.hbm_bytes_read;  // the pipeline's and the kernel's DMAs to and from HBM
    r.hbm_written = c.hbm_bytes_written;
    r.vmem_bytes = c.vmem_high_water;

    auto same = std::find_if(calls.begin(), calls.end(), [&](const CallRoofline& o) {
      return o.location == r.location && o.name == r.name && o.grid == r.grid &&
             o.cores == r.cores && o.flops == r.flops && o.mxu_flops == r.mxu_flops &&
             o.transcendentals == r.transcendentals && o.hbm_read == r.hbm_read &&
             o.hbm_written == r.hbm_written && o.grid_steps == r.grid_steps &&
             o.vmem_bytes == r.vmem_bytes;
    });
    if (same != calls.end()) {
      ++same->count;
      continue;
    }
    r.peak_flops = target.core_flops() * r.cores;
    r.bandwidth = target.core_bandwidth() * r.cores;
    r.intensity = r.hbm_bytes() > 0 ? static_cast<double>(r.flops) / r.hbm_bytes() : 0;
    r.compute_s = static_cast<double>(r.flops) / r.peak_flops;
    r.memory_s = static_cast<double>(r.hbm_bytes()) / r.bandwidth;
    // The cores split the steps and each pays for its own: the busier core's steps bound it.
    r.overhead_s = static_cast<double>(r.busiest_steps) * target.step_seconds;
    double work = std::max(r.compute_s, r.memory_s);
    r.bound_s = work + r.overhead_s;
    r.bound = r.overhead_s > work         ? Bound::kStepOverhead
              : r.compute_s >= r.memory_s ? Bound::kCompute
                                          : Bound::kMemory;
    r.vmem_over = r.vmem_bytes > target.chip->vmem_bytes;
    calls.push_back(std::move(r));
  }
  return calls;
}

double TotalBound(const std::vector<CallRoofline>& calls) {
  double total = 0;
  for (const CallRoofline& c : calls) total += c.bound_s * c.count;
  return total;
}

std::string RooflineText(const std::vector<CallRoofline>& calls, const RooflineTarget& target) {
  std::string out = "roofline on " + RoofChipLine(target) + "\n";
  if (calls.empty()) return out + "no pallas_call ran on the emulated TPU\n";
  for (size_t i = 0; i < calls.size(); ++i) {
    const CallRoofline& c = calls[i];
    out += fmt::format("\n[{}] {} at {}{}: grid {}, {} grid steps{}\n", RoofMark(i), c.name,
                       c.location, c.count > 1 ? fmt::format(" (run {} times)", c.count) : "",
                       tpu::TupleString(c.grid), c.grid_steps,
                       c.cores > 1 ? fmt::format(" on {} TensorCores", c.cores) : "");
    out += fmt::format(
        "    FLOPs        {} (MXU {}, VPU {}), transcendentals {}\n",
        SiCount(static_cast<double>(c.flops)), SiCount(static_cast<double>(c.mxu_flops)),
        SiCount(static_cast<double>(c.vpu_flops)), SiCount(static_cast<double>(c.transcendentals)));
    out += fmt::format("    HBM          {}B read, {}B written\n",
                       SiNumber(static_cast<double>(c.hbm_read)),
                       SiNumber(static_cast<double>(c.hbm_written)));
    out += c.hbm_bytes() > 0
               ? fmt::format("    intensity    {:.3g} flop/B ({} the ridge point, {:.0f})\n",
                             c.intensity, c.intensity < target.ridge() ? "below" : "above",
                             target.ridge())
               : "    intensity    no HBM traffic\n";
    out += fmt::format("    time         >= {} = max(compute {}, memory {}) + {} steps x {}\n",
                       RoofSeconds(c.bound_s), RoofSeconds(c.compute_s), RoofSeconds(c.memory_s),
                       c.cores > 1 ? fmt::format("{} (the busier TensorCore's)", c.busiest_steps)
                                   : std::to_string(c.grid_steps),
                       RoofSeconds(target.step_seconds));
    out += fmt::format("    bound by     {}{}\n", BoundName(c.bound),
                       c.bound == Bound::kStepOverhead
                           ? ": the grid steps cost more than their work; larger blocks mean "
                             "fewer steps"
                       : c.bound == Bound::kMemory
                           ? ": larger blocks reuse what they load (fewer re-reads of HBM)"
                           : "");
    out += fmt::format("    VMEM         {} of {} ({:.1f}%){}\n",
                       RoofBytes(static_cast<double>(c.vmem_bytes)),
                       RoofBytes(static_cast<double>(target.chip->vmem_bytes)),
                       100.0 * static_cast<double>(c.vmem_bytes) / target.chip->vmem_bytes,
                       c.vmem_over ? ": more than a TensorCore has; smaller blocks" : "");
  }
  if (calls.size() > 1 || calls[0].count > 1) {
    out += fmt::format("\nall calls: time >= {}\n", RoofSeconds(TotalBound(calls)));
  }
  return out;
}

std::string ChipTableText() {
  std::string out = fmt::format(
      "TPU generations (JAX's figures, jax/_src/pallas/mosaic/tpu_info.py; op/s and bytes/s per "
      "chip, VMEM per TensorCore):\n"
      "  {:<5} {:>5}  {:>11}  {:>11}  {:>9}  {:>10}  {:>9}  {:>8}  {:>15}\n",
      "TPU", "cores", "bf16 FLOP/s", "int8 OP/s", "HBM", "HBM B/s", "VMEM", "ridge",
      "per core FLOP/s");
  for (const tpu::ChipInfo& chip : tpu::ChipTable()) {
    RooflineTarget t{.chip = &chip};
    out += fmt::format("  {:<5} {:>5}  {:>11}  {:>11}  {:>9}  {:>10}  {:>9}  {:>8.0f}  {:>15}\n",
                       chip.version, chip.physical_cores, SiNumber(chip.bf16_ops),
                       chip.int8_ops > 0 ? SiNumber(chip.int8_ops) : "-",
                       SiNumber(chip.hbm_bytes) + "B", SiNumber(chip.hbm_bandwidth),
                       RoofBytes(static_cast<double>(chip.vmem_bytes)), t.ridge(),
                       SiNumber(t.core_flops()));
  }
  out += "ridge: flop per HBM byte where a TensorCore's bf16 peak meets its HBM bandwidth\n";
  return out;
}

std::string GenerationsText(const std::vector<tpu::CallStats>& stats, const SourceManager& sources,
                            double step_seconds) {
  std::string out;
  bool header = true;
  for (const tpu::ChipInfo& chip : tpu::ChipTable()) {
    if (chip.generation < 4 || std::string_view(chip.version) == "v4i" ||
        std::string_view(chip.version) == "7") {
      continue;  // the generations Pallas TPU kernels target today
    }
    RooflineTarget target{.chip = &chip, .step_seconds = step_seconds};
    std::vector<CallRoofline> calls = Roofline(stats, sources, target);
    if (calls.empty()) return "no pallas_call ran on the emulated TPU\n";
    if (header) {
      out += fmt::format(
          "time bounds per TPU generation (one TensorCore each; {:.3g} µs per grid "
          "step):\n  {:<5} {:>6}",
          step_seconds * 1e6, "TPU", "ridge");
      for (size_t i = 0; i < calls.size(); ++i) {
        out += fmt::format("  {:<28}", fmt::format("[{}] {}", RoofMark(i), calls[i].location));
      }
      out += fmt::format("  {:>10}\n", calls.size() > 1 || calls[0].count > 1 ? "all calls" : "");
      header = false;
    }
    out += fmt::format("  {:<5} {:>6.0f}", chip.version, target.ridge());
    for (const CallRoofline& c : calls) {
      out +=
          fmt::format("  {:<28}", fmt::format("{}s, {}", SiNumber(c.bound_s), BoundName(c.bound)));
    }
    out += calls.size() > 1 || calls[0].count > 1
               ? fmt::format("  {:>10}\n", SiNumber(TotalBound(calls)) + "s")
               : "\n";
  }
  return out;
}

std::string RooflinePlotText(const std::vector<CallRoofline>& calls, const RooflineTarget& target,
                             int width, int height) {
  RoofAxes a = RoofAxesFor(calls, target);
  double peak = target.core_flops(), bw = target.core_bandwidth();
  std::vector<std::string> rows(static_cast<size_t>(height), std::string(width, ' '));
  auto row_of = [&](double log_y) {
    double f = (log_y - a.y_lo) / (a.y_hi - a.y_lo);
    return std::clamp(height - 1 - static_cast<int>(std::floor(f * height)), 0, height - 1);
  };
  auto col_of = [&](double log_x) {
    double f = (log_x - a.x_lo) / (a.x_hi - a.x_lo);
    return std::clamp(static_cast<int>(std::floor(f * width)), 0, width - 1);
  };
  // The roof: the bandwidth slope up to the ridge, then the flat peak.
  for (int col = 0; col < width; ++col) {
    double log_x = a.x_lo + (col + 0.5) / width * (a.x_hi - a.x_lo);
    double roof = std::min(peak, bw * std::pow(10.0, log_x));
    if (roof < std::pow(10.0, a.y_lo)) continue;
    rows[static_cast<size_t>(row_of(std::log10(roof)))][static_cast<size_t>(col)] =
        roof >= peak ? '-' : '/';
  }
  std::vector<size_t> unplotted;
  for (size_t i = 0; i < calls.size(); ++i) {
    const CallRoofline& c = calls[i];
    if (c.intensity <= 0 || c.attainable() <= 0) {
      unplotted.push_back(i);
      continue;
    }
    rows[static_cast<size_t>(row_of(std::log10(c.attainable())))]
        [static_cast<size_t>(col_of(std::log10(c.intensity)))] = RoofMark(i);
  }
  std::string out =
      fmt::format("attainable FLOP/s (at the lower bound) against flop per HBM byte, TPU {}\n",
                  target.chip->version);
  for (int r = 0; r < height; ++r) {
    // Label the rows where a decade falls.
    std::string label;
    for (int d = a.y_lo; d <= a.y_hi; ++d) {
      if (row_of(d) == r && (d == a.y_hi || row_of(d) != row_of(d + 1))) {
        label = SiNumber(std::pow(10.0, d));
      }
    }
    out += fmt::format("{:>7} |{}\n", label, rows[static_cast<size_t>(r)]);
  }
  out += fmt::format("{:>7} +{}\n", "", std::string(width, '-'));
  std::string axis(static_cast<size_t>(width) + 10, ' ');
  for (int d = a.x_lo; d <= a.x_hi; ++d) {
    std::string label = SiNumber(std::pow(10.0, d));
    while (!label.empty() && label.back() == ' ') label.pop_back();
    int col = d == a.x_hi ? width - static_cast<int>(label.size()) : col_of(d + 1e-9);
    size_t at = static_cast<size_t>(9 + std::max(0, col));
    if (at + label.size() <= axis.size()) axis.replace(at, label.size(), label);
  }
  while (!axis.empty() && axis.back() == ' ') axis.pop_back();
  out += axis + "\n";
  out += fmt::format("{:>9}roof: '/' HBM bandwidth, '-' peak; ridge point at {:.0f} flop/B\n", "",
                     target.ridge());
  for (size_t i : unplotted) {
    out += fmt::format("{:>9}[{}] is not drawn: it moves no HBM bytes\n", "", RoofMark(i));
  }
  return out;
}

std::string RooflineSvg(const std::vector<CallRoofline>& calls, const RooflineTarget& target,
                        const std::string& title) {
  RoofAxes a = RoofAxesFor(calls, target);
  const double left = 70, top = 40, plot_w = 520, plot_h = 300;
  double legend_h = 18.0 * static_cast<double>(calls.size()) + 10;
  std::vector<std::string> legend;
  int longest = 0;  // px
  for (size_t i = 0; i < calls.size(); ++i) {
    const CallRoofline& c = calls[i];
    legend.push_back(fmt::format("[{}] {} at {}: {:.3g} flop/B, {} bound, time >= {}s", RoofMark(i),
                                 c.name, c.location, c.intensity, BoundName(c.bound),
                                 SiNumber(c.bound_s)));
    longest = std::max(longest, SvgTextWidth(legend.back(), 12));
  }
  double width = std::max(left + plot_w + 30, left + 12 + longest + 20);
  double height = top + plot_h + 50 + legend_h;
  auto x_of = [&](double log_x) { return left + (log_x - a.x_lo) / (a.x_hi - a.x_lo) * plot_w; };
  auto y_of = [&](double log_y) {
    return top + plot_h - (log_y - a.y_lo) / (a.y_hi - a.y_lo) * plot_h;
  };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" font-family=\"Helvetica, Arial, sans-serif\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
      width, height);
  svg += fmt::format(
      "<text x=\"{}\" y=\"22\" font-size=\"15\" font-weight=\"bold\" fill=\"#222222\">{}</text>\n",
      left, SvgEscape(title));
  // Decade grid and labels.
  for (int d = a.x_lo; d <= a.x_hi; ++d) {
    double x = x_of(d);
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#e4e4e4\"/>\n"
        "<text x=\"{0:.1f}\" y=\"{3}\" font-size=\"11\" text-anchor=\"middle\" "
        "fill=\"#444444\">{4}</text>\n",
        x, top, top + plot_h, top + plot_h + 16, SvgEscape(SiNumber(std::pow(10.0, d))));
  }
  for (int d = a.y_lo; d <= a.y_hi; ++d) {
    double y = y_of(d);
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#e4e4e4\"/>\n"
        "<text x=\"{3}\" y=\"{4:.1f}\" font-size=\"11\" text-anchor=\"end\" "
        "fill=\"#444444\">{5}</text>\n",
        left, y, left + plot_w, left - 6, y + 4, SvgEscape(SiNumber(std::pow(10.0, d))));
  }
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888888\"/>\n",
      left, top, plot_w, plot_h);
  svg += fmt::format(
      "<text x=\"{:.1f}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" fill=\"#222222\">"
      "arithmetic intensity (flop per HBM byte)</text>\n",
      left + plot_w / 2, top + plot_h + 34);
  svg += fmt::format(
      "<text x=\"16\" y=\"{0:.1f}\" font-size=\"12\" text-anchor=\"middle\" fill=\"#222222\" "
      "transform=\"rotate(-90 16 {0:.1f})\">FLOP/s at the lower bound</text>\n",
      top + plot_h / 2);
  // The roof.
  double peak = target.core_flops(), ridge = target.ridge();
  double x0 = a.x_lo, y0 = std::log10(target.core_bandwidth()) + x0;
  if (y0 < a.y_lo) {  // enter the plot at its bottom edge
    y0 = a.y_lo;
    x0 = a.y_lo - std::log10(target.core_bandwidth());
  }
  svg += fmt::format(
      "<polyline points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" fill=\"none\" "
      "stroke=\"#1f5fa8\" stroke-width=\"2.5\"/>\n",
      x_of(x0), y_of(y0), x_of(std::log10(ridge)), y_of(std::log10(peak)), x_of(a.x_hi),
      y_of(std::log10(peak)));
  svg += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#1f5fa8\" "
      "stroke-dasharray=\"4 4\"/>\n"
      "<text x=\"{3:.1f}\" y=\"{4:.1f}\" font-size=\"11\" text-anchor=\"end\" "
      "fill=\"#1f5fa8\">ridge {5:.0f} flop/B, peak {6}FLOP/s, {7}B/s</text>\n",
      x_of(std::log10(ridge)), y_of(std::log10(peak)), top + plot_h, left + plot_w - 4,
      y_of(std::log10(peak)) - 6, ridge, SvgEscape(SiNumber(peak)),
      SvgEscape(SiNumber(target.core_bandwidth())));
  // The calls, and the legend.
  static constexpr const char* kColors[] = {"#d9480f", "#2b8a3e", "#862e9c", "#c2255c",
                                            "#e67700", "#0b7285", "#5f3dc4", "#495057"};
  for (size_t i = 0; i < calls.size(); ++i) {
    const CallRoofline& c = calls[i];
    const char* color = kColors[i % 8];
    double ly = top + plot_h + 58 + 18.0 * static_cast<double>(i);
    if (c.intensity > 0 && c.attainable() > 0) {
      double x = x_of(std::log10(c.intensity)), y = y_of(std::log10(c.attainable()));
      svg += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"6\" fill=\"{}\" fill-opacity=\"0.85\"/>\n"
          "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" font-weight=\"bold\" "
          "fill=\"{}\">{}</text>\n",
          x, y, color, x + 8, y - 6, color, RoofMark(i));
    }
    svg += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\"/>\n"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" fill=\"#222222\">{}</text>\n",
        left, ly - 4, color, left + 12, ly, SvgEscape(legend[i]));
  }
  return svg + "</svg>\n";
}

std::string RooflineJson(const std::vector<CallRoofline>& calls, const RooflineTarget& target) {
  // Infinite or NaN numbers (none expected) become null, as JSON has no such values.
  auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  nlohmann::json list = nlohmann::json::array();
  for (const CallRoofline& c : calls) {
    list.push_back({{"name", c.name},
                    {"location", c.location},
                    {"count", c.count},
                    {"grid", c.grid},
                    {"cores", c.cores},
                    {"grid_steps", c.grid_steps},
                    {"busiest_core_steps", c.busiest_steps},
                    {"flops", c.flops},
                    {"mxu_flops", c.mxu_flops},
                    {"vpu_flops", c.vpu_flops},
                    {"transcendentals", c.transcendentals},
                    {"hbm_bytes_read", c.hbm_read},
                    {"hbm_bytes_written", c.hbm_written},
                    {"vmem_bytes", c.vmem_bytes},
                    {"intensity", number(c.intensity)},
                    {"compute_seconds", number(c.compute_s)},
                    {"memory_seconds", number(c.memory_s)},
                    {"overhead_seconds", number(c.overhead_s)},
                    {"bound_seconds", number(c.bound_s)},
                    {"bound", std::string(BoundName(c.bound))},
                    {"vmem_over", c.vmem_over}});
  }
  nlohmann::json out = {{"tpu", target.chip->version},
                        {"per_core",
                         {{"bf16_flops_per_second", number(target.core_flops())},
                          {"hbm_bytes_per_second", number(target.core_bandwidth())},
                          {"vmem_bytes", target.chip->vmem_bytes}}},
                        {"ridge_flops_per_byte", number(target.ridge())},
                        {"step_seconds", number(target.step_seconds)},
                        {"total_seconds", number(TotalBound(calls))},
                        {"calls", std::move(list)}};
  return out.dump() + "\n";
}

}  // namespace pz::course

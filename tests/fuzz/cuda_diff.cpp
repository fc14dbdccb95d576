// pz_cuda_diff: differential runs of the CUDA backend against the emulated TPU. Each seed makes a
// Pallas program with the fuzz target's generator (kernel_program.h); the program runs once, and
// every pallas_call in it runs on both backends: the emulated TPU (whose outcome the program
// goes on with) and the CUDA backend on the host device (the generated CUDA compiled by the C++
// compiler and run on fibers). Outputs are compared element by element where the emulator's
// write-backs defined them. Each program runs in a child process, so that a crash in a generated
// unit is a finding rather than the end of the run. The seed also picks how the CUDA side runs:
// the plain host device or the sm_80 forms; the default shared-memory plan, none (budget 0) or
// 40 KiB (operands in global memory, products staged in shared memory); fresh memory as poison
// or as zeros (both backends); for one seed in four, the generator's matrices option
// (products of 128-row blocks, the sizes the CUDA backend runs on tensor cores); and the warps'
// tiles of a staged tensor-core product (PZ_CUDA_WARP_TILE: 32x32, 32x64, 64x32 or 64x64).
//
// Findings (exit status 1):
//   mismatch      both ran, and an output differs beyond the dtype's tolerance
//   cuda-only     the emulator ran the call; the CUDA backend raised an error other than its own
//                 refusals ("the CUDA backend cannot ...", clear and at the user's line: counted)
//   tpu-only      the emulator raised an error; the CUDA backend ran the call
//   both-reject-elsewhere  both raised, at different places
//   nvcc          with --nvcc ARCH, `nvcc -cubin -arch=ARCH` failed or warned on the unit of a
//                 call the CUDA side ran
//   engine        the generated unit did not compile, the device failed, or an exception other
//                 than the call's own errors came out of the CUDA backend
//   crash, hang   the child died of a signal, or ran past --timeout
//   generator     the generated program did not parse
// Counted, not compared: calls that read uninitialised memory (poison on the emulator, whatever
// the buffer held on CUDA), and with zeroed memory, calls whose differing outputs change when
// the emulator poisons fresh memory instead (elements no store wrote). Counted, not findings:
// differences in calls whose outputs change when the emulator runs their "parallel" axes in another
// order or on two cores (they carry state across the points that the CUDA backend runs apart: a
// broken promise of the kernel's, not of either backend), and differences in integer or boolean
// outputs that move with the emulator's own float inputs nudged by a unit in the last place
// (rounding).
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "array/array.h"
#include "cuda/cuda_backend.h"
#include "cuda/device.h"
#include "eval/interpreter.h"
#include "kernel/backend.h"
#include "kernel_program.h"
#include "lang/parser.h"
#include "support/diagnostic.h"
#include "support/source.h"
#include "tpu/megacore.h"
#include "tpu/pallas_call.h"
#include "tpu/tpu_backend.h"

namespace {

using pz::kernel::CallError;
using pz::kernel::CallOutcome;

// How the CUDA side of one seed runs.
struct Config {
  bool sm80 = false;  // PZ_CUDA_DEVICE=host-sm80: the sm_80 forms and a GPU's thread counts
  bool gpu = false;   // the first GPU (NVRTC and the driver) instead of the host device
  // PZ_CUDA_SHARED_BUDGET: "" plans for the device's shared memory; "0" puts every arena in
  // global memory and makes operands direct windows; "40960" leaves the operands in global memory
  // so that products stage their tiles in shared memory.
  std::string budget;
  // Fresh memory starts as zeros on both backends (InterpretParams(uninitialized_memory=
  // "zero")), so kernels that read it before writing it are compared too.
  bool zero = false;
  // The generator's matrices option (kernel_program.h): a product of a 128-row block first.
  bool matrices = false;
  // How the warps of a block share a staged tensor-core product's 128 x 128 tile (emit.h); it
  // changes only what the sm_80 forms run.
  pz::cuda::WarpTile warp_tile;
  // With --nvcc ARCH: every call's unit that ran on the CUDA side also goes through
  // `nvcc -cubin -arch=ARCH`, which must compile it without a warning.
  std::string nvcc;

  std::string Name() const {
    return fmt::format("{}{}{}{}{}", DeviceName(), budget.empty() ? "" : ", budget " + budget,
                       zero ? ", zeroed memory" : "", matrices ? ", matrices" : "",
                       warp_tile == pz::cuda::WarpTile{} ? "" : ", warps " + WarpTileName());
  }
  std::string DeviceName() const { return gpu ? "gpu" : sm80 ? "host-sm80" : "host"; }
  std::string WarpTileName() const { return fmt::format("{}x{}", warp_tile.rows, warp_tile.cols); }
  std::string Environment() const {
    return fmt::format(
        "{}{}{}", gpu ? "" : "PZ_CUDA_DEVICE=" + DeviceName(),
        budget.empty() ? "" : " PZ_CUDA_SHARED_BUDGET=" + budget,
        warp_tile == pz::cuda::WarpTile{} ? "" : " PZ_CUDA_WARP_TILE=" + WarpTileName());
  }
};

// The outcome of one program: a category (the header's list, or an agreeing one) and a detail.
struct Verdict {
  std::string category;
  std::string detail;
};

bool IsFinding(const std::string& category) {
  return category == "nvcc" || category == "mismatch" || category == "cuda-only" ||
         category == "tpu-only" || category == "both-reject-elsewhere" || category == "engine" ||
         category == "crash" || category == "hang" || category == "generator";
}

// Elements of `out` that agree within the dtype's tolerance (exact for integers and booleans;
// NaN matches NaN). Floats: |a - b| <= tol * max(1, |a|, |b|), with tol a few units in the last
// place of the dtype, so that sums taken in another order still agree.
double Tolerance(pz::array::DType dtype) {
  switch (dtype) {
    case pz::array::DType::kFloat32:
      return 1e-4;
    case pz::array::DType::kBFloat16:
    case pz::array::DType::kFloat16:
      return 1.0 / 32;
    default:
      return 0;
  }
}

bool Agree(double a, double b, double tol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  if (std::isinf(a) || std::isinf(b)) return false;
  return std::fabs(a - b) <= tol * std::max({1.0, std::fabs(a), std::fabs(b)});
}

std::string IndexText(const pz::array::Shape& shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] == 0 ? 0 : flat % shape[d];
    flat = shape[d] == 0 ? 0 : flat / shape[d];
  }
  return fmt::format("[{}]", fmt::join(index, ", "));
}

// Compares one call's outputs (or, with `only`, that output alone) on the emulator (`tpu`, whose
// write-backs say which elements are defined) with another run's, named `other`; empty when
// they agree.
std::string CompareOutputs(const CallOutcome& tpu, const CallOutcome& cuda,
                           const char* other = "CUDA", int only = -1) {
  if (tpu.outputs.size() != cuda.outputs.size()) {
    return fmt::format("{} outputs on the emulated TPU, {} on {}", tpu.outputs.size(),
                       cuda.outputs.size(), other);
  }
  for (size_t k = 0; k < tpu.outputs.size(); ++k) {
    if (only >= 0 && static_cast<int>(k) != only) continue;
    const pz::array::Array& a = tpu.outputs[k];
    const pz::array::Array& b = cuda.outputs[k];
    if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
      return fmt::format("output {}: {}{} on the emulated TPU, {}{} on {}", k,
                         pz::array::DTypeName(a.dtype()), pz::array::ShapeToString(a.shape()),
                         pz::array::DTypeName(b.dtype()), pz::array::ShapeToString(b.shape()),
                         other);
    }
    const pz::array::Array* writer = k < tpu.writer.size() ? &tpu.writer[k] : nullptr;
    double tol = Tolerance(a.dtype());
    int64_t differ = 0, compared = 0, first = -1;
    for (int64_t i = 0; i < a.size(); ++i) {
      // -1: no write-back stored the element (garbage on both sides).
      if (writer != nullptr && writer->size() == a.size() && writer->GetInt(i) == -1) continue;
      ++compared;
      if (!Agree(a.GetDouble(i), b.GetDouble(i), tol)) {
        if (first < 0) first = i;
        ++differ;
      }
    }
    if (differ > 0) {
      return fmt::format(
          "output {} ({} {}): {} of {} defined elements differ; first at {}: emulated TPU {}, "
          "{} {}",
          k, pz::array::DTypeName(a.dtype()), pz::array::ShapeToString(a.shape()), differ, compared,
          IndexText(a.shape(), first), a.GetDouble(first), other, b.GetDouble(first));
    }
  }
  return {};
}

// The CUDA side's device, passed through, keeping each unit it is given to compile for --nvcc:
// the very source the device compiled, once per distinct unit.
class RecordingDevice final : public pz::cuda::Device {
 public:
  explicit RecordingDevice(std::unique_ptr<pz::cuda::Device> device) : device_(std::move(device)) {}
  const pz::cuda::DeviceInfo& info() const override { return device_->info(); }
  pz::cuda::DevicePtr Alloc(size_t bytes) override { return device_->Alloc(bytes); }
  void Free(pz::cuda::DevicePtr ptr) override { device_->Free(ptr); }
  void CopyToDevice(pz::cuda::DevicePtr dst, const void* src, size_t bytes) override {
    device_->CopyToDevice(dst, src, bytes);
  }
  void CopyToHost(void* dst, pz::cuda::DevicePtr src, size_t bytes) override {
    device_->CopyToHost(dst, src, bytes);
  }
  void Memset(pz::cuda::DevicePtr dst, uint8_t value, size_t bytes) override {
    device_->Memset(dst, value, bytes);
  }
  pz::cuda::ModuleId Load(const std::string& source, const std::string& name) override {
    if (seen_.insert(source).second) fresh_.push_back(source);
    return device_->Load(source, name);
  }
  void Launch(pz::cuda::ModuleId module, const pz::cuda::LaunchConfig& config) override {
    device_->Launch(module, config);
  }
  std::vector<double> Time(pz::cuda::ModuleId module, const pz::cuda::LaunchConfig& config,
                           int warmup, int repeats) override {
    return device_->Time(module, config, warmup, repeats);
  }
  // The units loaded since the last call, each only the first time it was seen.
  std::vector<std::string> TakeFresh() { return std::exchange(fresh_, {}); }

 private:
  std::unique_ptr<pz::cuda::Device> device_;
  std::set<std::string> seen_;
  std::vector<std::string> fresh_;
};

// Runs every call on the emulated TPU and on CUDA, keeps what it saw, and goes on with the
// emulator's outcome (or raises its error), so the program runs as it does on the emulator.
class DiffBackend final : public pz::kernel::Backend {
 public:
  // `units` is the device `cuda` runs on; with `nvcc_arch`, each unit it compiles goes through
  // nvcc too.
  DiffBackend(const pz::tpu::EmulatorOptions& tpu, std::unique_ptr<pz::cuda::CudaBackend> cuda,
              RecordingDevice& units, pz::SourceManager& sources, std::string nvcc_arch)
      : tpu_options_(tpu),
        cuda_(std::move(cuda)),
        units_(units),
        sources_(sources),
        nvcc_arch_(std::move(nvcc_arch)) {}

  CallOutcome Run(const pz::kernel::KernelProgram& program, const pz::kernel::GridMapping& mapping,
                  const pz::kernel::CallOperands& operands,
                  const pz::kernel::RunOptions& options) override {
    std::string where = pz::FormatLocation(mapping.span, sources_);
    std::optional<CallError> tpu_error;
    CallOutcome tpu;
    // With the run-time carry check of `--emit-cuda` (every "parallel" axis).
    pz::tpu::EmulatorOptions checked = tpu_options_;
    checked.carry_axes = pz::tpu::ParallelAxes(mapping, false);
    try {
      tpu = pz::tpu::TpuBackend(checked).Run(program, mapping, operands, options);
    } catch (const CallError& e) {
      tpu_error = e;
    }
    std::optional<CallError> cuda_error;
    CallOutcome cuda;
    bool cuda_threw = false;
    try {
      cuda = cuda_->Run(program, mapping, operands, options);
    } catch (const CallError& e) {
      cuda_error = e;
    } catch (const std::exception& e) {
      Note({"engine", fmt::format("{}: the CUDA backend threw: {}", where, e.what())});
      cuda_threw = true;
    }
    std::vector<std::string> loaded = units_.TakeFresh();
    if (!cuda_threw && !cuda_error && !nvcc_arch_.empty()) {
      for (const std::string& unit : loaded) {
        if (std::string problem = CompileWithNvcc(unit); !problem.empty()) {
          Note({"nvcc", fmt::format("{}: {}", where, problem)});
        }
      }
    }
    if (cuda_threw) {
    } else if (cuda_error) {
      const std::string& m = cuda_error->message;
      bool engine = m.find("did not compile") != std::string::npos ||
                    m.find("the CUDA device failed") != std::string::npos;
      if (engine) {
        std::string notes;
        for (const std::string& n : cuda_error->notes) notes += "\n" + n;
        Note({"engine", fmt::format("{}: {}{}", where, m, notes)});
      } else if (m.rfind("the CUDA backend ", 0) == 0) {
        // Its own refusals ("cannot run", "has no", "bitcasts only"...): clear, at the user's line.
        Note({"cuda-refuses", m});
      } else if (!tpu_error && pz::tpu::TpuReportOf(tpu).carried.seen) {
        // State one point left for the next, which CUDA's chains do not share: a draw from the
        // core generator that point seeded faults on CUDA, and the emulated run warned of it.
        Note({"carry-warns",
              fmt::format("{}: CUDA raised at {}: {}; the emulated run's carry check warned at {}",
                          where, pz::FormatLocation(cuda_error->span, sources_), m,
                          pz::FormatLocation(pz::tpu::TpuReportOf(tpu).carried.span, sources_))});
      } else if (tpu_error) {
        bool same_place = pz::FormatLocation(tpu_error->span, sources_) ==
                          pz::FormatLocation(cuda_error->span, sources_);
        Note({same_place ? "both-reject" : "both-reject-elsewhere", tpu_error->message});
      } else {
        Note({"cuda-only", fmt::format("{}: the emulated TPU ran the call; CUDA raised at {}: {}",
                                       where, pz::FormatLocation(cuda_error->span, sources_), m)});
      }
    } else if (tpu_error) {
      Note({"tpu-only",
            fmt::format("{}: the emulated TPU raised at {}: {}", where,
                        pz::FormatLocation(tpu_error->span, sources_), tpu_error->message)});
    } else if (pz::tpu::TpuReportOf(tpu).uninitialized.seen) {
      Note({"uninitialized", "the emulator saw an uninitialised read"});
    } else {
      // Compared once; the emulator's re-runs that may excuse a difference run only for one.
      std::string difference = CompareOutputs(tpu, cuda);
      std::string excuse;
      if (difference.empty()) {
        // A warning whose hazard this program's data did not show (or one too eager).
        if (cuda.warnings.empty()) {
          Note({"same", ""});
        } else {
          Note(
              {"same-warned", fmt::format("{}: CUDA warned: {}", where, cuda.warnings[0].message)});
        }
      } else if (!(excuse = FreshMemoryDependence(program, mapping, operands, options, tpu))
                      .empty()) {
        Note({"uninitialized", fmt::format("{}: {}; {}", where, difference, excuse)});
      } else if (!(excuse = OrderDependence(program, mapping, operands, options, tpu)).empty()) {
        // Told at the user's line (a hazard of chains run apart), or silent.
        if (!cuda.warnings.empty()) {
          Note({"cuda-warns", fmt::format("{}: {}; {}; CUDA warned: {}", where, difference, excuse,
                                          cuda.warnings[0].message)});
        } else if (const pz::tpu::CarriedRead& carried = pz::tpu::TpuReportOf(tpu).carried;
                   carried.seen) {
          Note({"carry-warns",
                fmt::format("{}: {}; {}; the emulated run's carry check warned at {}", where,
                            difference, excuse, pz::FormatLocation(carried.span, sources_))});
        } else {
          Note({"order-dependent", fmt::format("{}: {}; {}", where, difference, excuse)});
        }
      } else if (!cuda.warnings.empty()) {
        // A hazard the emulator's other orders cannot show (parallel axes after an "arbitrary"
        // one, which neither its shuffle nor its two cores split), told at the user's line.
        Note({"cuda-warns",
              fmt::format("{}: {}; CUDA warned: {}", where, difference, cuda.warnings[0].message)});
      } else if (!(excuse = RoundingSensitivity(program, mapping, operands, options, tpu, cuda))
                      .empty()) {
        Note({"rounding-sensitive", fmt::format("{}: {}; {}", where, difference, excuse)});
      } else {
        Note({"mismatch", fmt::format("{}: {}", where, difference)});
      }
    }
    if (tpu_error) throw *tpu_error;
    return tpu;
  }

  const std::vector<Verdict>& verdicts() const { return verdicts_; }

 private:
  // Products and sums on the two backends add in other orders, which float outputs mostly absorb
  // (the tolerance) but an output that jumps with a rounding does not: an integer or boolean made
  // from floats, or a float that cancels (a sum of values and their negations, whose result is
  // the rounding itself). When the emulator's own value of every output that differs on CUDA
  // changes beyond the tolerance with every float input nudged by about a unit in the last
  // place, the mismatch is rounding, not a wrong answer: what changed is said here, else "". A
  // well-conditioned float output moves by a few units in the last place and stays within the
  // tolerance, so it is never excused. (Each output is judged on its own: another output that
  // also moves with the nudge excuses nothing.)
  std::string RoundingSensitivity(const pz::kernel::KernelProgram& program,
                                  const pz::kernel::GridMapping& mapping,
                                  const pz::kernel::CallOperands& operands,
                                  const pz::kernel::RunOptions& options, const CallOutcome& tpu,
                                  const CallOutcome& cuda) {
    std::vector<int> differing;
    for (size_t k = 0; k < tpu.outputs.size() && k < cuda.outputs.size(); ++k) {
      if (!CompareOutputs(tpu, cuda, "CUDA", static_cast<int>(k)).empty()) {
        differing.push_back(static_cast<int>(k));
      }
    }
    if (differing.empty()) return {};
    pz::kernel::CallOperands nudged = operands;
    bool any = false;
    for (pz::array::Array& a : nudged.inputs) {
      if (!pz::array::IsFloating(a.dtype())) continue;
      double scale = a.dtype() == pz::array::DType::kFloat32 ? 1 + 0x1p-22 : 1 + 0x1p-7;
      std::vector<double> values = a.ToDoubles();
      for (double& v : values) v *= scale;
      a = pz::array::Array::FromDoubles(a.dtype(), a.shape(), values);
      any = true;
    }
    if (!any) return {};
    try {
      CallOutcome moved = pz::tpu::TpuBackend(tpu_options_).Run(program, mapping, nudged, options);
      std::string said;
      for (int k : differing) {
        std::string difference = CompareOutputs(tpu, moved, "nudged", k);
        if (difference.empty()) return {};  // this output holds still: not rounding
        if (said.empty()) said = difference;
      }
      return "with the float inputs nudged, the emulator's " + said;
    } catch (const CallError& e) {
      return "with the float inputs nudged, the emulator raises: " + e.message;
    }
  }

  // "parallel" promises that the grid's points along an axis may run in any order, or apart
  // (the CUDA backend runs them as separate chains, each starting afresh); a kernel that carries
  // state across them (scratch, a store into an input's buffer) breaks the promise, and its
  // outputs depend on the split. Such a call runs again on the emulator with its parallel axes
  // shuffled (InterpretParams(random_seed=...)); what differs is said here, else "".
  std::string OrderDependence(const pz::kernel::KernelProgram& program,
                              const pz::kernel::GridMapping& mapping,
                              const pz::kernel::CallOperands& operands,
                              const pz::kernel::RunOptions& options, const CallOutcome& tpu) {
    if (std::find(mapping.dimension_semantics.begin(), mapping.dimension_semantics.end(),
                  "parallel") == mapping.dimension_semantics.end()) {
      return {};
    }
    // Three shuffles, then two cores (each with its own scratch and buffers, and the megacore
    // race detector on what both write in HBM).
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      pz::tpu::EmulatorOptions again_options = tpu_options_;
      std::string how = fmt::format("with the parallel axes shuffled (seed {})", seed);
      if (seed == 4) {
        again_options.cores = 2;
        how = "on two cores";
      } else {
        again_options.parallel_order_seed = seed;
      }
      try {
        CallOutcome again =
            pz::tpu::TpuBackend(again_options).Run(program, mapping, operands, options);
        std::string difference = CompareOutputs(tpu, again, "again");
        if (!difference.empty()) return fmt::format("{}: {}", how, difference);
      } catch (const CallError& e) {
        return fmt::format("{}: {}", how, e.message);
      }
    }
    return {};
  }

  // With fresh memory zeroed, an output block's elements that no store of its steps wrote keep
  // what the buffer held (the last block's values, as in JAX's interpret mode), where the CUDA
  // backend, running the blocks as chains apart, has zeros: garbage by Pallas's rules either way.
  // When the emulator's own outputs change with fresh memory poisoned instead, the outputs
  // depend on memory nothing wrote: what changed is said here, else "".
  std::string FreshMemoryDependence(const pz::kernel::KernelProgram& program,
                                    const pz::kernel::GridMapping& mapping,
                                    const pz::kernel::CallOperands& operands,
                                    const pz::kernel::RunOptions& options, const CallOutcome& tpu) {
    if (!tpu_options_.zero_uninitialized) return {};
    pz::tpu::EmulatorOptions poisoned = tpu_options_;
    poisoned.zero_uninitialized = false;
    poisoned.track_uninitialized = true;
    try {
      CallOutcome again = pz::tpu::TpuBackend(poisoned).Run(program, mapping, operands, options);
      if (pz::tpu::TpuReportOf(again).uninitialized.seen) {
        return "with fresh memory poisoned, the emulator sees an uninitialised read";
      }
      std::string difference = CompareOutputs(tpu, again, "poisoned");
      if (!difference.empty()) return "with fresh memory poisoned: " + difference;
    } catch (const CallError& e) {
      return "with fresh memory poisoned: " + e.message;
    }
    return {};
  }

  // A unit the CUDA side compiled, through `nvcc -cubin`: what nvcc said where it failed or
  // warned, else "".
  std::string CompileWithNvcc(const std::string& unit) const {
    char dir[] = "/tmp/pz_cuda_diff_nvcc.XXXXXX";
    if (mkdtemp(dir) == nullptr) return "cannot make a directory for nvcc";
    std::string base = dir;
    std::ofstream(base + "/unit.cu") << unit;
    std::string command =
        fmt::format("nvcc -cubin -arch={0} -o {1}/unit.cubin {1}/unit.cu 2>&1", nvcc_arch_, base);
    std::string said;
    int status = -1;
    if (FILE* pipe = popen(command.c_str(), "r")) {
      char buffer[4096];
      size_t n = 0;
      while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) said.append(buffer, n);
      status = pclose(pipe);
    }
    std::filesystem::remove_all(base);
    if (status != 0 || said.find("warning") != std::string::npos) {
      return fmt::format("nvcc -arch={} {}:\n{}", nvcc_arch_, status != 0 ? "failed" : "warned",
                         said.substr(0, 2000));
    }
    return {};
  }

  void Note(Verdict v) { verdicts_.push_back(std::move(v)); }

  const pz::tpu::EmulatorOptions& tpu_options_;
  std::unique_ptr<pz::cuda::CudaBackend> cuda_;
  RecordingDevice& units_;
  pz::SourceManager& sources_;
  std::string nvcc_arch_;
  std::vector<Verdict> verdicts_;
};

// The program of a seed (the seed is spread first, so that neighbouring seeds differ at once).
pz::fuzz::KernelProgram ProgramOf(uint64_t seed, const Config& config) {
  pz::fuzz::SeededChoices choices(seed * 0x2545f4914f6cdd1dULL + 1);
  return pz::fuzz::GenerateKernelProgram(choices, {.matrices = config.matrices});
}

// One program in this process: the verdict of its first finding, else of its most telling call.
Verdict RunProgram(const pz::fuzz::KernelProgram& program, const Config& config) {
  pz::SourceManager sources;
  pz::FileId id = sources.Add("kernel.py", program.source);
  pz::DiagnosticSink sink;
  pz::lang::Module module = pz::lang::ParseModule(sources.Get(id), id, sink);
  if (sink.HasErrors()) {
    std::string text;
    for (const pz::Diagnostic& d : sink.diagnostics()) text += pz::Render(d, sources);
    return {"generator", text};
  }
  pz::eval::Interpreter interp(
      sources,
      {.max_steps = 200'000, .timeout_seconds = 60.0, .max_array_bytes = int64_t{64} << 20});
  pz::tpu::EmulatorOptions tpu;  // tpu semantics, one core: what the CUDA backend runs
  // As InterpretParams(uninitialized_memory="zero") sets them: nothing is then uninitialised.
  tpu.zero_uninitialized = config.zero;
  tpu.track_uninitialized = !config.zero;
  pz::tpu::EmulatorOptions options = tpu;
  std::unique_ptr<pz::cuda::CudaBackend> cuda;
  RecordingDevice* units = nullptr;
  try {
    auto device = std::make_unique<RecordingDevice>(
        config.gpu ? pz::cuda::OpenGpuDevice() : pz::cuda::OpenHostDevice(4, config.sm80));
    units = device.get();
    cuda = std::make_unique<pz::cuda::CudaBackend>(
        pz::cuda::CudaOptions{.warp_tile = config.warp_tile}, std::move(device));
  } catch (const pz::cuda::DeviceError& e) {
    return {"no-device", e.what()};
  }
  auto diff = std::make_shared<DiffBackend>(tpu, std::move(cuda), *units, sources, config.nvcc);
  options.backend = diff;
  pz::tpu::InstallPallas(interp, options);
  std::optional<pz::Diagnostic> error = interp.RunModule(std::move(module));

  // The first finding wins; else the most telling agreement.
  static const char* const kOrder[] = {"nvcc",
                                       "engine",
                                       "cuda-only",
                                       "mismatch",
                                       "both-reject-elsewhere",
                                       "tpu-only",
                                       "cuda-refuses",
                                       "uninitialized",
                                       "order-dependent",
                                       "cuda-warns",
                                       "carry-warns",
                                       "rounding-sensitive",
                                       "both-reject",
                                       "same-warned",
                                       "same"};
  for (const char* category : kOrder) {
    for (const Verdict& v : diff->verdicts()) {
      if (v.category == category) return v;
    }
  }
  if (error) return {"python-error", pz::Render(*error, sources)};
  return {"no-call", ""};
}

// ---- The parent: children, their verdicts, the summary -----------------------------------

struct Options {
  uint64_t first = 1;
  int64_t count = 100;
  int jobs = 1;
  std::string device = "both";    // host, host-sm80, both (by seed), gpu
  std::string budget = "all";     // default, 0, 40960, all (by seed)
  std::string memory = "both";    // poison, zero, both (by seed)
  std::string matrices = "some";  // none, all, some (one seed in four, by seed)
  std::string warp_tile = "all";  // 32x32, 32x64, 64x32, 64x64, all (by seed)
  std::string nvcc;               // an arch (sm_80, sm_90): each unit also through nvcc
  double timeout = 300;           // seconds per program
  std::string save;               // a directory for the programs of findings
  bool show = false;              // --show SEED: print the program and run it here
  std::string file;               // --file PROGRAM: judge a saved program here
  bool verbose = false;           // print every program's verdict
};

Config ConfigOf(const Options& o, uint64_t seed) {
  Config c;
  c.gpu = o.device == "gpu";
  c.sm80 = o.device == "host-sm80" || (o.device == "both" && seed % 2 == 1);
  static const char* const kBudgets[] = {"", "0", "40960"};
  c.budget = o.budget == "all" ? kBudgets[(seed / 2) % 3] : o.budget == "default" ? "" : o.budget;
  c.zero = o.memory == "zero" || (o.memory == "both" && (seed / 6) % 2 == 1);
  c.matrices = o.matrices == "all" || (o.matrices == "some" && (seed / 12) % 4 == 3);
  static const char* const kWarpTiles[] = {"32x32", "64x64", "64x32", "32x64"};
  // By a hash of the seed: independent of the other choices, which take its low digits.
  const uint64_t pick = (seed * 0x9e3779b97f4a7c15ULL) >> 62;
  c.warp_tile = *pz::cuda::ParseWarpTile(o.warp_tile == "all" ? kWarpTiles[pick] : o.warp_tile);
  c.nvcc = o.nvcc;
  return c;
}

struct Child {
  pid_t pid = -1;
  int fd = -1;
  uint64_t seed = 0;
  std::string output;
  std::chrono::steady_clock::time_point start;
};

// In the child: runs the seed, writes "category\ndetail" to fd, exits.
[[noreturn]] void ChildMain(const Options& o, uint64_t seed, int fd) {
  Config config = ConfigOf(o, seed);
  // Read by the backend when it plans the first call (cuda_backend.h: SharedBudget).
  if (!config.budget.empty()) setenv("PZ_CUDA_SHARED_BUDGET", config.budget.c_str(), 1);
  Verdict v;
  try {
    v = RunProgram(ProgramOf(seed, config), config);
  } catch (const std::exception& e) {
    v = {"engine", fmt::format("an exception left the run: {}", e.what())};
  }
  std::string text = v.category + "\n" + v.detail;
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  close(fd);
  std::fflush(nullptr);
  _exit(0);
}

Child Start(const Options& o, uint64_t seed) {
  int fds[2];
  if (pipe(fds) != 0) {
    std::perror("pz_cuda_diff: pipe");
    std::exit(2);
  }
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    std::perror("pz_cuda_diff: fork");
    std::exit(2);
  }
  if (pid == 0) {
    close(fds[0]);
    ChildMain(o, seed, fds[1]);
  }
  close(fds[1]);
  return {.pid = pid, .fd = fds[0], .seed = seed, .start = std::chrono::steady_clock::now()};
}

// Reads what is ready; true once the child closed its end.
bool Drain(Child& c) {
  char buffer[4096];
  ssize_t n = read(c.fd, buffer, sizeof(buffer));
  if (n > 0) {
    c.output.append(buffer, static_cast<size_t>(n));
    return false;
  }
  return true;
}

Verdict Finish(Child& c, bool timed_out) {
  if (timed_out) kill(c.pid, SIGKILL);
  close(c.fd);
  int status = 0;
  waitpid(c.pid, &status, 0);
  if (timed_out) return {"hang", "the program ran past --timeout"};
  if (WIFSIGNALED(status)) {
    return {"crash", fmt::format("the child died of signal {} ({})", WTERMSIG(status),
                                 strsignal(WTERMSIG(status)))};
  }
  size_t newline = c.output.find('\n');
  if (newline == std::string::npos) {
    return {"crash", fmt::format("the child exited with status {} without a verdict",
                                 WIFEXITED(status) ? WEXITSTATUS(status) : -1)};
  }
  return {c.output.substr(0, newline), c.output.substr(newline + 1)};
}

// A message with its numbers and names kept: only the first line, for counting.
std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

void Report(const Options& o, uint64_t seed, const Verdict& v) {
  Config config = ConfigOf(o, seed);
  pz::fuzz::KernelProgram program = ProgramOf(seed, config);
  std::printf("seed %llu [%s]: %s: %s\n", static_cast<unsigned long long>(seed),
              config.Name().c_str(), v.category.c_str(), v.detail.c_str());
  std::printf(
      "  reproduce: pz_cuda_diff --show %llu --device %s --budget %s --memory %s --matrices %s "
      "--warp-tile %s%s\n",
      static_cast<unsigned long long>(seed), config.DeviceName().c_str(),
      config.budget.empty() ? "default" : config.budget.c_str(), config.zero ? "zero" : "poison",
      config.matrices ? "all" : "none", config.WarpTileName().c_str(),
      config.nvcc.empty() ? "" : (" --nvcc " + config.nvcc).c_str());
  if (!config.zero) {
    // (Zeroed memory has no flag of `run`: the program would need InterpretParams.)
    std::printf(
        "  or save it as kernel.py: pallas-puzzles run kernel.py; %s pallas-puzzles run "
        "--backend cuda kernel.py\n",
        config.Environment().c_str());
  }
  if (!o.save.empty()) {
    std::filesystem::create_directories(o.save);
    std::string path = fmt::format("{}/seed-{}.py", o.save, seed);
    std::ofstream out(path);
    out << fmt::format("# pz_cuda_diff seed {} [{}]: {}\n# {}\n", seed, config.Name(), v.category,
                       FirstLine(v.detail))
        << program.source;
    std::printf("  saved %s\n", path.c_str());
  }
}

int Usage() {
  std::fputs(
      "usage: pz_cuda_diff [--first SEED] [--count N] [--jobs J]\n"
      "                    [--device host|host-sm80|both|gpu]\n"
      "                    [--budget default|0|40960|all] [--memory poison|zero|both]\n"
      "                    [--matrices none|all|some] [--warp-tile 32x32|32x64|64x32|64x64|all]\n"
      "                    [--timeout SECONDS] [--save DIR] [--nvcc sm_80|sm_90] [--verbose]\n"
      "       pz_cuda_diff --show SEED [--device ...] [--budget ...]\n"
      "       pz_cuda_diff --file SAVED.py [--device ...] [--budget ...] [--memory ...]\n",
      stderr);
  return 2;
}

bool ParseArgs(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (arg == "--verbose") {
      o.verbose = true;
      continue;
    }
    if ((v = value()) == nullptr) return false;
    if (arg == "--first") {
      o.first = std::strtoull(v, nullptr, 10);
    } else if (arg == "--show") {
      o.first = std::strtoull(v, nullptr, 10);
      o.show = true;
    } else if (arg == "--file") {
      o.file = v;
    } else if (arg == "--count") {
      o.count = std::strtoll(v, nullptr, 10);
    } else if (arg == "--jobs") {
      o.jobs = std::max(1, std::atoi(v));
    } else if (arg == "--device") {
      o.device = v;
      if (o.device != "host" && o.device != "host-sm80" && o.device != "both" &&
          o.device != "gpu") {
        return false;
      }
    } else if (arg == "--budget") {
      o.budget = v;
      if (o.budget != "default" && o.budget != "0" && o.budget != "40960" && o.budget != "all") {
        return false;
      }
    } else if (arg == "--memory") {
      o.memory = v;
      if (o.memory != "poison" && o.memory != "zero" && o.memory != "both") return false;
    } else if (arg == "--matrices") {
      o.matrices = v;
      if (o.matrices != "none" && o.matrices != "all" && o.matrices != "some") return false;
    } else if (arg == "--warp-tile") {
      o.warp_tile = v;
      if (o.warp_tile != "all" && !pz::cuda::ParseWarpTile(o.warp_tile)) return false;
    } else if (arg == "--timeout") {
      o.timeout = std::atof(v);
    } else if (arg == "--save") {
      o.save = v;
    } else if (arg == "--nvcc") {
      o.nvcc = v;
      if (o.nvcc.rfind("sm_", 0) != 0) return false;
    } else {
      return false;
    }
  }
  return o.count >= 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, o)) return Usage();
  // Traced kernels get the IR verifier's full type checks, as in the test suites.
  setenv("PZ_CHECK_IR_TYPES", "1", 0);

  if (!o.file.empty()) {
    // A program --save wrote (or any program of one or more pallas_calls): judged again with the
    // configuration its first line names ("# pz_cuda_diff seed N"), as far as the options leave
    // it to the seed.
    std::ifstream in(o.file);
    if (!in) {
      std::fprintf(stderr, "pz_cuda_diff: cannot read %s\n", o.file.c_str());
      return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    pz::fuzz::KernelProgram program{.source = text.str()};
    uint64_t seed = 1;
    const std::string header = "# pz_cuda_diff seed ";
    if (program.source.rfind(header, 0) == 0) {
      seed = std::strtoull(program.source.c_str() + header.size(), nullptr, 10);
    }
    Config config = ConfigOf(o, seed);
    if (!config.budget.empty()) setenv("PZ_CUDA_SHARED_BUDGET", config.budget.c_str(), 1);
    Verdict v = RunProgram(program, config);
    std::printf("# %s [%s]\n# verdict: %s\n%s\n", o.file.c_str(), config.Name().c_str(),
                v.category.c_str(), v.detail.c_str());
    if (v.category == "no-device") return 70;
    return IsFinding(v.category) ? 1 : 0;
  }

  if (o.show) {
    Config config = ConfigOf(o, o.first);
    pz::fuzz::KernelProgram program = ProgramOf(o.first, config);
    std::printf("# seed %llu [%s]\n%s", static_cast<unsigned long long>(o.first),
                config.Name().c_str(), program.source.c_str());
    std::fflush(stdout);  // the program is out even if the run hangs and is killed
    if (!config.budget.empty()) setenv("PZ_CUDA_SHARED_BUDGET", config.budget.c_str(), 1);
    Verdict v = RunProgram(program, config);
    std::printf("# verdict: %s\n%s\n", v.category.c_str(), v.detail.c_str());
    if (v.category == "no-device") {
      std::fprintf(stderr, "pz_cuda_diff: %s\n", v.detail.c_str());
      return 70;
    }
    return IsFinding(v.category) ? 1 : 0;
  }

  std::map<std::string, int64_t> counts;
  std::map<std::string, std::map<std::string, int64_t>> messages;  // per agreeing category
  int64_t findings = 0;
  std::vector<Child> running;
  uint64_t next = o.first, end = o.first + static_cast<uint64_t>(o.count);
  auto started = std::chrono::steady_clock::now();
  while (next < end || !running.empty()) {
    while (next < end && static_cast<int>(running.size()) < o.jobs)
      running.push_back(Start(o, next++));
    std::vector<pollfd> fds;
    for (const Child& c : running) fds.push_back({.fd = c.fd, .events = POLLIN, .revents = 0});
    poll(fds.data(), fds.size(), 1000);
    for (size_t k = 0; k < running.size();) {
      Child& c = running[k];
      bool closed = (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) != 0 && Drain(c);
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - c.start).count();
      bool timed_out = !closed && seconds > o.timeout;
      if (!closed && !timed_out) {
        ++k;
        continue;
      }
      Verdict v = Finish(c, timed_out);
      if (v.category == "no-device") {
        // No GPU (or no driver, or no NVRTC): nothing can run; say why, as `run --backend cuda`.
        for (Child& other : running) {
          if (other.pid != c.pid) kill(other.pid, SIGKILL);
        }
        std::fprintf(stderr, "pz_cuda_diff: %s\n", v.detail.c_str());
        return 70;
      }
      ++counts[v.category];
      if (IsFinding(v.category)) {
        ++findings;
        Report(o, c.seed, v);
      } else {
        ++messages[v.category][FirstLine(v.detail)];
        if (o.verbose) {
          std::printf("seed %llu [%s]: %s\n", static_cast<unsigned long long>(c.seed),
                      ConfigOf(o, c.seed).Name().c_str(), v.category.c_str());
        }
      }
      std::fflush(stdout);
      // Keep fds and running in step: drop both entries.
      fds.erase(fds.begin() + static_cast<std::ptrdiff_t>(k));
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  std::printf("pz_cuda_diff: seeds %llu..%llu (%lld programs, %.0f s, %d jobs)\n",
              static_cast<unsigned long long>(o.first), static_cast<unsigned long long>(end - 1),
              static_cast<long long>(o.count), seconds, o.jobs);
  for (const auto& [category, n] : counts) {
    std::printf("  %-22s %lld\n", category.c_str(), static_cast<long long>(n));
  }
  for (const char* category :
       {"cuda-refuses", "tpu-only", "both-reject", "both-reject-elsewhere", "python-error"}) {
    auto it = messages.find(category);
    if (it == messages.end()) continue;
    std::vector<std::pair<int64_t, std::string>> top;
    for (const auto& [text, n] : it->second) top.push_back({n, text});
    std::sort(top.rbegin(), top.rend());
    std::printf("  %s, most common:\n", category);
    for (size_t k = 0; k < top.size() && k < 6; ++k) {
      std::printf("    %4lld  %s\n", static_cast<long long>(top[k].first),
                  top[k].second.substr(0, 150).c_str());
    }
  }
  std::printf("%lld finding%s\n", static_cast<long long>(findings), findings == 1 ? "" : "s");
  return findings == 0 ? 0 : 1;
}

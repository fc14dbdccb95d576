// The CUDA backend (see cuda_backend.h): emit, plan, upload, launch, check the status rows,
// download.
#include "cuda/cuda_backend.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>

#include "array/creation.h"
#include "cuda/hazards.h"
#include "cuda/plan.h"
#include "kernel/control_flow.h"
#include "kernel/fresh.h"
#include "support/check.h"
#include "tpu/executor.h"
#include "tpu/memory.h"

namespace pz::cuda {

namespace {

// Device memory freed when it goes out of scope.
class Buffer {
 public:
  Buffer(Device& device, size_t bytes)
      : device_(device), ptr_(device.Alloc(std::max<size_t>(bytes, 16))) {}
  ~Buffer() {
    try {
      device_.Free(ptr_);
    } catch (const DeviceError&) {
      // A device that failed already reported why; a destructor must not throw.
    }
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  DevicePtr ptr() const { return ptr_; }

 private:
  Device& device_;
  DevicePtr ptr_;
};

size_t Bytes(const array::Array& a) {
  return static_cast<size_t>(a.size()) * array::ItemSize(a.dtype());
}

// The static flop count of a region, loops multiplied by their trip count when it is a constant.
struct FlopCount {
  int64_t flops = 0;
  bool exact = true;
};

std::optional<int64_t> ConstantValue(kernel::ValueId id,
                                     const std::map<kernel::ValueId, int64_t>& constants) {
  auto it = constants.find(id);
  if (it == constants.end()) return std::nullopt;
  return it->second;
}

void CollectConstants(const kernel::Region& region, std::map<kernel::ValueId, int64_t>& out) {
  for (const kernel::Instr& instr : region.body) {
    if (instr.op == kernel::Op::kConstant && instr.constant && instr.constant->size() == 1) {
      out[instr.results[0]] = instr.constant->GetInt(0);
    }
    for (const kernel::Region& r : instr.regions) CollectConstants(r, out);
  }
}

FlopCount CountFlops(const kernel::Region& region,
                     const std::map<kernel::ValueId, int64_t>& constants) {
  FlopCount total;
  for (const kernel::Instr& instr : region.body) {
    total.flops += instr.cost.flops;
    if (instr.op == kernel::Op::kFor) {
      FlopCount body = CountFlops(instr.regions[0], constants);
      std::optional<int64_t> lo = ConstantValue(instr.operands[0], constants);
      std::optional<int64_t> hi = ConstantValue(instr.operands[1], constants);
      int64_t trips = lo && hi ? std::max<int64_t>(*hi - *lo, 0) : 1;
      total.flops += body.flops * trips;
      total.exact = total.exact && body.exact && lo && hi;
    } else if (!instr.regions.empty()) {
      // Branches (and while loops) are counted once, as taken: an estimate.
      FlopCount most;
      for (const kernel::Region& r : instr.regions) {
        FlopCount c = CountFlops(r, constants);
        most.flops = std::max(most.flops, c.flops);
      }
      total.flops += most.flops;
      total.exact = false;
    }
  }
  return total;
}

std::string FaultMessage(const EmittedKernel& kernel, const kernel::Function& kernel_fn,
                         const long long* row, const std::vector<int64_t>& point) {
  const kernel::Instr* instr = row[1] >= 0 && row[1] < static_cast<long long>(kernel.instrs.size())
                                   ? kernel.instrs[static_cast<size_t>(row[1])]
                                   : nullptr;
  std::string at = tpu::TupleString(point);
  switch (static_cast<DeviceFault>(row[0])) {
    case DeviceFault::kIndexOutOfBounds:
      return fmt::format(
          "index out of bounds at grid step {}: dimension {} starts at {} and spans {} "
          "elements, but has {}",
          at, row[3], row[4], row[5], row[6]);
    case DeviceFault::kDmaWaitBlocks:
      return fmt::format(
          "this DMA wait would block forever at grid step {}: its semaphore holds {} bytes, the "
          "wait needs {}",
          at, row[3], row[4]);
    case DeviceFault::kSemaphoreWaitBlocks:
      return fmt::format(
          "this semaphore wait would block forever at grid step {}: the semaphore holds {}, the "
          "wait needs {}",
          at, row[3], row[4]);
    case DeviceFault::kSemaphoreNonzero: {
      const kernel::RefType& ref = kernel_fn.refs.at(static_cast<size_t>(row[3]));
      std::string name = ref.name + (ref.shape.empty() ? "" : fmt::format("[{}]", row[4]));
      if (instr && instr->op == kernel::Op::kDmaStart) {
        return fmt::format(
            "the DMA started here in grid step {} was never waited: its semaphore `{}` is "
            "non-zero when the kernel ends",
            at, name);
      }
      return fmt::format(
          "semaphore `{}` holds {} when the kernel ends (last signalled here in grid step {})",
          name, row[5], at);
    }
    case DeviceFault::kLoopLimit:
      return fmt::format("this while_loop ran more than {} iterations at grid step {}", row[3], at);
    case DeviceFault::kPrngUnseeded:
      if (row[3] == 0 && row[4] == 0) {  // the call's first step: as on the emulated TPU
        return fmt::format(
            "pltpu.prng_random_bits at grid step {} drew from the core's random number "
            "generator before any pltpu.prng_seed in this pallas_call",
            at);
      }
      return fmt::format(
          "pltpu.prng_random_bits at grid step {} drew from the random number generator before "
          "any pltpu.prng_seed at this point of the \"parallel\" axes",
          at);
    default:
      return fmt::format("the CUDA kernel reported fault {} at grid step {}", row[0], at);
  }
}

// What to do about a fault, where there is more to say than its message.
std::vector<std::string> FaultNotes(const long long* row) {
  if (static_cast<DeviceFault>(row[0]) != DeviceFault::kPrngUnseeded) return {};
  std::string seed =
      "seed it first, e.g. `pltpu.prng_seed(seed, pl.program_id(0))` at the top of the kernel";
  if (row[3] == 0 && row[4] == 0) {
    return {
        "a TPU core's generator holds whatever state an earlier kernel left, so these bits "
        "would differ from run to run; " +
        seed};
  }
  return {
      "the CUDA backend runs each point of the \"parallel\" axes on a CUDA block of its "
      "own, whose generator starts unseeded: a seed given at another point does not reach "
      "it (nor, on a megacore TPU, the other TensorCore's generator); " +
      seed + ", at every grid step"};
}

// The log of a kernel's prints (emit.h): room for each print about four times per grid step,
// within 512 KiB and 256 MiB.
int64_t LogWords(const EmittedKernel& kernel, const kernel::Function& kernel_fn, int64_t steps) {
  int64_t per_step = 0;
  for (const kernel::Instr* instr : kernel.instrs) {
    if (instr->op == kernel::Op::kDebugPrint) per_step += PrintRecordWords(kernel_fn, *instr);
  }
  return std::clamp<int64_t>(per_step * std::max<int64_t>(steps, 1) * 4, int64_t{1} << 16,
                             int64_t{1} << 25);
}

// Runs the prints the log holds, in the emulator's order: by grid step (`call_step` of each
// record's row), then as its chain ran them; only those of steps up to `last_step` (a fault's:
// the emulator stops there). Returns the number of prints that did not fit in the log.
uint64_t ReplayPrints(Device& dev, const Buffer& log, int64_t words, const EmittedKernel& kernel,
                      const kernel::Function& kernel_fn, const std::vector<int64_t>& call_step,
                      int64_t last_step) {
  std::vector<uint64_t> data(static_cast<size_t>(kLogHeaderWords + words));
  dev.CopyToHost(data.data(), log.ptr(), data.size() * sizeof(uint64_t));
  const uint64_t used = std::min<uint64_t>(data[0], static_cast<uint64_t>(words));
  struct Record {
    int64_t step;
    uint64_t seq;
    const kernel::Instr* instr;
    size_t at;  // its first operand word in `data`
  };
  std::vector<Record> records;
  // Records lie one after the other; a reservation that did not fit leaves the rest unwritten
  // (zeros: the instruction word is its number plus one).
  for (uint64_t pos = 0; pos + kPrintHeaderWords <= used;) {
    const uint64_t* r = data.data() + kLogHeaderWords + pos;
    if (r[2] == 0 || r[2] > kernel.instrs.size()) break;
    const kernel::Instr* instr = kernel.instrs[static_cast<size_t>(r[2] - 1)];
    auto record_words = static_cast<uint64_t>(PrintRecordWords(kernel_fn, *instr));
    if (instr->op != kernel::Op::kDebugPrint || r[0] >= call_step.size() ||
        pos + record_words > used) {
      break;
    }
    records.push_back({.step = call_step[static_cast<size_t>(r[0])],
                       .seq = r[1],
                       .instr = instr,
                       .at = static_cast<size_t>(kLogHeaderWords + pos + kPrintHeaderWords)});
    pos += record_words;
  }
  std::stable_sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
    return a.step != b.step ? a.step < b.step : a.seq < b.seq;
  });
  for (const Record& record : records) {
    if (record.step > last_step) break;
    std::vector<array::Array> values;
    size_t at = record.at;
    for (kernel::ValueId v : record.instr->operands) {
      const kernel::ValueType& t = kernel_fn.values.at(static_cast<size_t>(v));
      array::Array a = array::Array::Empty(t.dtype, t.shape);
      std::memcpy(a.raw(), data.data() + at, Bytes(a));
      at += (Bytes(a) + 7) / 8;
      values.push_back(std::move(a));
    }
    kernel::RunPrint(*record.instr, values);
  }
  return data[2];
}

}  // namespace

Peaks PeaksOf(const std::string& name) {
  struct Part {
    const char* key;
    Peaks peaks;
  };
  static const Part kParts[] = {
      {"H200", {989.4, 66.9, 4800}},
      {"H100 PCIe", {756.5, 51.2, 2000}},
      {"H100 NVL", {835.5, 60.0, 3900}},
      {"H100", {989.4, 66.9, 3350}},
      {"A100-SXM4-80GB", {312, 19.5, 2039}},
      {"A100 80GB PCIe", {312, 19.5, 1935}},
      {"A100", {312, 19.5, 1555}},
      {"L40S", {362.1, 91.6, 864}},
      {"L4", {121, 30.3, 300}},
      {"RTX 4090", {165.2, 82.6, 1008}},
      {"A10G", {70, 31.2, 600}},
      {"A10", {125, 31.2, 600}},
      {"V100", {125, 15.7, 900}},
      {"T4", {65, 8.1, 320}},
  };
  for (const Part& p : kParts) {
    if (name.find(p.key) != std::string::npos) return p.peaks;
  }
  return {};
}

ComparedPeak PeakFor(const Peaks& peaks, bool tensor_products, int compute_major) {
  if (tensor_products && compute_major >= 8) return {peaks.tensor_tflops, "bf16 tensor-core"};
  return {peaks.fp32_tflops, "f32"};
}

namespace {

EmittedKernel EmitCall(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                       int serial, const kernel::RunOptions& run, int64_t shared_budget,
                       const WarpTile& warp_tile) {
  EmitRequest request{.kernel = program.kernel.get(),
                      .mapping = &mapping,
                      .name = KernelName(mapping.name, serial),
                      .origin = fmt::format("pallas_call `{}`{}", mapping.name,
                                            run.line_of ? " at " + run.line_of(mapping.span) : ""),
                      .shared_budget = shared_budget,
                      .zero_uninitialized = run.zero_uninitialized,
                      .warp_tile = warp_tile};
  try {
    return EmitKernel(request);
  } catch (const Unmappable& e) {
    kernel::CallError error{.kind = kernel::CallError::Kind::kRuntimeError,
                            .message = std::string(e.what()),
                            .span = e.span()};
    if (!e.hint().empty()) error.notes.push_back(e.hint());
    throw error;
  }
}

}  // namespace

int64_t SharedBudget(const DeviceInfo* device) {
  static const int64_t forced = [] {
    const char* text = std::getenv("PZ_CUDA_SHARED_BUDGET");
    if (text == nullptr || *text == '\0') return int64_t{-1};
    char* end = nullptr;
    long long value = std::strtoll(text, &end, 10);
    return *end == '\0' && value >= 0 ? static_cast<int64_t>(value) : int64_t{-1};
  }();
  if (forced >= 0) return forced;
  if (device != nullptr && (!device->host || device->host_sm80))
    return std::max<int64_t>(device->max_shared_per_block, 48 * 1024);
  return 48 * 1024;
}

PlannedCall PlanCall(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                     const kernel::CallOperands& operands, const kernel::RunOptions& run,
                     int serial, int64_t shared_budget, const WarpTile& warp_tile) {
  CheckPrefetchWrites(program, mapping);
  // The call's own table first: its errors are the call's, raised as it raises them.
  TableLayout layout = LayoutOf(mapping);
  GridSplit whole = SplitGridForCuda(program, mapping, true, run.zero_uninitialized);
  GridSplit split = whole;
  StepTable table =
      BuildStepTable(mapping, operands, split, layout.columns, layout.operand_column, run);
  if (!whole.fresh.empty() && split.chains < whole.chains) {
    // Axes that start afresh, but whose points write one output window: as the semantics say.
    split = SplitGridForCuda(program, mapping, false, run.zero_uninitialized);
    table = BuildStepTable(mapping, operands, split, layout.columns, layout.operand_column, run);
  }
  CheckWaitsWithinChains(program, mapping, split);
  PlannedCall plan;
  plan.warnings = ChainWarnings(program, mapping, split, table, layout);
  plan.parts = SplitGridPoints(program, mapping, split);
  if (plan.parts) {
    // The parts run only where they spread the call further. A part wholly past the array's
    // end (in the padding of its block) reads the poison and writes nothing, as that padding
    // does in the whole block. Any error of the split plan leaves the call whole.
    try {
      plan.kernel =
          EmitCall(plan.parts->program, plan.parts->mapping, serial, run, shared_budget, warp_tile);
      plan.split =
          SplitGridForCuda(plan.parts->program, plan.parts->mapping, true, run.zero_uninitialized);
      plan.table =
          BuildStepTable(plan.parts->mapping, operands, plan.split, plan.kernel.table_columns,
                         plan.kernel.operand_column, run, /*past_edge=*/true);
      if (plan.split.chains > split.chains) {
        plan.split.note += "; " + plan.parts->note;
        return plan;
      }
    } catch (const kernel::CallError&) {
    }
    plan.parts.reset();
  }
  plan.kernel = EmitCall(program, mapping, serial, run, shared_budget, warp_tile);
  plan.split = std::move(split);
  plan.table = std::move(table);
  return plan;
}

std::string CudaReport::Summary() const {
  std::string out = fmt::format(
      "CUDA kernel {} on {}: {} chains of {} steps on {} blocks of {} threads, arena {} B shared + "
      "{} B global per block\n",
      kernel, device, chains, steps_per_chain, blocks, threads, shared_bytes, global_bytes);
  if (direct_operands > 0) {
    out += fmt::format(
        "stats:   {} operand{} read and written in place in HBM: the blocks do not fit in shared "
        "memory\n",
        direct_operands, direct_operands == 1 ? "" : "s");
  }
  out += fmt::format("stats:   grid: {}\n", split);
  if (!tensor_staging.empty()) out += fmt::format("stats:   products: {}\n", tensor_staging);
  out += fmt::format("stats:   HBM read {} B, HBM written {} B, {}{} flops\n", hbm_bytes_read,
                     hbm_bytes_written, flops_exact ? "" : "about ", flops);
  if (milliseconds > 0) {
    double seconds = milliseconds / 1000;
    double tflops = static_cast<double>(flops) / seconds / 1e12;
    double gbps = static_cast<double>(hbm_bytes_read + hbm_bytes_written) / seconds / 1e9;
    out += fmt::format(
        "stats:   time {:.4f} ms (median of 7 after 2 warm-ups): {:.3f} TFLOP/s, {:.1f} GB/s",
        milliseconds, tflops, gbps);
    if (peak_tflops > 0) {
      out += fmt::format(" ({:.1f}% of {:.0f} TFLOP/s {} peak, {:.1f}% of {:.0f} GB/s)",
                         100 * tflops / peak_tflops, peak_tflops, peak_kind, 100 * gbps / peak_gbps,
                         peak_gbps);
    }
    out += "\n";
  }
  return out;
}

kernel::CallOutcome CudaBackend::Run(const kernel::KernelProgram& program,
                                     const kernel::GridMapping& mapping,
                                     const kernel::CallOperands& operands,
                                     const kernel::RunOptions& run) {
  try {
    return RunOnDevice(program, mapping, operands, run);
  } catch (const DeviceError& e) {
    // Memory, copies or a launch failed on the device: an error at the call.
    throw kernel::CallError{.kind = kernel::CallError::Kind::kRuntimeError,
                            .message = fmt::format("the CUDA device failed: {}", e.what()),
                            .span = mapping.span};
  }
}

kernel::CallOutcome CudaBackend::RunOnDevice(const kernel::KernelProgram& call_program,
                                             const kernel::GridMapping& call_mapping,
                                             const kernel::CallOperands& operands,
                                             const kernel::RunOptions& run) {
  Device& dev = *device_;
  const DeviceInfo& info = dev.info();
  PlannedCall plan = PlanCall(call_program, call_mapping, operands, run, serial_++,
                              SharedBudget(&info), options_.warp_tile);
  const EmittedKernel& kernel = plan.kernel;
  const GridSplit& split = plan.split;
  const StepTable& table = plan.table;
  const kernel::KernelProgram& program = plan.Program(call_program);
  const kernel::GridMapping& mapping = plan.Mapping(call_mapping);
  std::string unit = AssembleUnit({&kernel});
  ModuleId module = 0;
  try {
    module = dev.Load(unit, kernel.name);
  } catch (const DeviceError& e) {
    throw kernel::CallError{.kind = kernel::CallError::Kind::kRuntimeError,
                            .message =
                                "the generated CUDA kernel did not compile (an engine bug; please "
                                "report it with this program)",
                            .span = mapping.span,
                            .notes = {std::string(e.what())}};
  }

  // The host device runs blocks of 4 threads, so that every strided loop runs many rounds.
  // Running the forms of sm_80 GPUs (host_sm80), it gives every kernel the threads a GPU gives it,
  // so that the host runs what the GPU would: 1024 threads, or 512 for products. (Each CUDA
  // thread is a fiber there; a barrier costs each a switch, which left a whole run of the course
  // about as fast as with one warp per block.)
  unsigned threads = options_.threads               ? std::min(options_.threads, kernel.threads)
                     : info.host && !info.host_sm80 ? 4u
                                                    : kernel.threads;
  int64_t max_blocks = info.host ? 4 : std::max(1, info.multiprocessors) * 4;
  // Keep the global arenas within 4 GiB.
  if (kernel.global_bytes > 0) {
    max_blocks = std::min<int64_t>(max_blocks,
                                   std::max<int64_t>((int64_t{4} << 30) / kernel.global_bytes, 1));
  }
  unsigned blocks = static_cast<unsigned>(std::clamp<int64_t>(split.chains, 1, max_blocks));

  // HBM: prefetch arrays, inputs, outputs (aliased ones start as their input, others as poison).
  std::vector<std::unique_ptr<Buffer>> hbm;
  auto upload = [&](const array::Array& a) {
    array::Array c = a.Contiguous();
    hbm.push_back(std::make_unique<Buffer>(dev, Bytes(c)));
    dev.CopyToDevice(hbm.back()->ptr(), c.raw(), Bytes(c));
  };
  for (const array::Array& a : operands.prefetch) upload(a);
  for (const array::Array& a : operands.inputs) upload(a);
  for (size_t o = 0; o < mapping.outputs.size(); ++o) {
    const kernel::BlockMapping& op = mapping.outputs[o];
    auto alias =
        std::find_if(mapping.aliases.begin(), mapping.aliases.end(),
                     [&](const auto& entry) { return entry.second == static_cast<int>(o); });
    upload(alias != mapping.aliases.end()
               ? operands.inputs[static_cast<size_t>(alias->first)]
               : tpu::Poison(op.shape, op.dtype, run.zero_uninitialized));
  }
  Buffer status(dev, static_cast<size_t>(blocks) * kStatusWords * sizeof(long long));
  dev.Memset(status.ptr(), 0, static_cast<size_t>(blocks) * kStatusWords * sizeof(long long));
  Buffer steps(dev, table.rows.size() * sizeof(int64_t));
  dev.CopyToDevice(steps.ptr(), table.rows.data(), table.rows.size() * sizeof(int64_t));
  size_t arena_stride = static_cast<size_t>((kernel.global_bytes + 255) / 256 * 256);
  Buffer arena(dev, arena_stride * blocks);
  // The log of prints, zeroed, with its capacity.
  std::unique_ptr<Buffer> log;
  int64_t log_words = 0;
  if (kernel.log_arg >= 0) {
    log_words = LogWords(kernel, *program.kernel, mapping.num_steps());
    size_t bytes = static_cast<size_t>(kLogHeaderWords + log_words) * sizeof(uint64_t);
    log = std::make_unique<Buffer>(dev, bytes);
    dev.Memset(log->ptr(), 0, bytes);
    uint64_t capacity = static_cast<uint64_t>(log_words);
    dev.CopyToDevice(log->ptr() + sizeof(uint64_t), &capacity, sizeof capacity);
  }
  std::vector<uint64_t> args(kArgOperands + hbm.size() + (log ? 1 : 0));
  if (log) args[static_cast<size_t>(kernel.log_arg)] = log->ptr();
  args[kArgStatus] = status.ptr();
  args[kArgTable] = steps.ptr();
  args[kArgGlobalArena] = arena.ptr();
  args[kArgChains] = static_cast<uint64_t>(split.chains);
  args[kArgArenaStride] = arena_stride;
  args[kArgSteps] = static_cast<uint64_t>(split.steps_per_chain);
  for (size_t i = 0; i < hbm.size(); ++i) args[kArgOperands + i] = hbm[i]->ptr();
  Buffer arg_buffer(dev, args.size() * sizeof(uint64_t));
  dev.CopyToDevice(arg_buffer.ptr(), args.data(), args.size() * sizeof(uint64_t));

  LaunchConfig config{.kernel = kernel.name,
                      .grid = blocks,
                      .block = threads,
                      .shared_bytes = static_cast<size_t>(kernel.shared_bytes),
                      .args = arg_buffer.ptr()};
  try {
    dev.Launch(module, config);
  } catch (const DeviceError& e) {
    throw kernel::CallError{.kind = kernel::CallError::Kind::kRuntimeError,
                            .message = std::string(e.what()),
                            .span = mapping.span};
  }

  // Each row's grid step in the call's own numbering (the split plan's differs).
  std::vector<int64_t> call_step = table.linear_step;
  if (plan.parts) {
    for (int64_t& step : call_step) step = plan.CallStep(call_mapping, step);
  }

  // Faults: the one at the earliest grid step.
  std::vector<long long> rows(static_cast<size_t>(blocks) * kStatusWords);
  dev.CopyToHost(rows.data(), status.ptr(), rows.size() * sizeof(long long));
  const long long* first = nullptr;
  int64_t first_step = 0;
  for (unsigned b = 0; b < blocks; ++b) {
    const long long* row = rows.data() + static_cast<size_t>(b) * kStatusWords;
    if (row[0] == 0) continue;
    int64_t linear = call_step.at(static_cast<size_t>(row[2]));
    if (!first || linear < first_step) {
      first = row;
      first_step = linear;
    }
  }
  std::vector<kernel::CallWarning> print_warnings;
  if (log) {
    uint64_t dropped = ReplayPrints(dev, *log, log_words, kernel, *program.kernel, call_step,
                                    first ? first_step : std::numeric_limits<int64_t>::max());
    if (dropped > 0) {
      const kernel::Instr* print =
          *std::find_if(kernel.instrs.begin(), kernel.instrs.end(),
                        [](const kernel::Instr* i) { return i->op == kernel::Op::kDebugPrint; });
      print_warnings.push_back(
          {.message = fmt::format(
               "{} print{} of this kernel did not fit in the CUDA backend's log of prints ({} "
               "KiB) and {} not shown",
               dropped, dropped == 1 ? "" : "s", log_words * 8 / 1024,
               dropped == 1 ? "was" : "were"),
           .span = print->span,
           .notes = {"print less (a part of a block, or under `pl.when`), or run on the "
                     "emulated TPU (without `--backend cuda`), which prints everything"}});
    }
  }
  if (first) {
    std::vector<int64_t> point = tpu::UnravelIndex(first_step, call_mapping.grid);
    const kernel::Instr* instr = kernel.instrs.at(static_cast<size_t>(first[1]));
    throw kernel::CallError{
        .kind = static_cast<DeviceFault>(first[0]) == DeviceFault::kIndexOutOfBounds
                    ? kernel::CallError::Kind::kIndexError
                    : kernel::CallError::Kind::kRuntimeError,
        .message = FaultMessage(kernel, *program.kernel, first, point),
        .span = instr->span,
        .notes = FaultNotes(first)};
  }

  // Outputs, and which grid step's write-back last stored each element.
  kernel::CallOutcome outcome;
  size_t first_output = operands.prefetch.size() + operands.inputs.size();
  for (size_t o = 0; o < mapping.outputs.size(); ++o) {
    const kernel::BlockMapping& op = mapping.outputs[o];
    array::Array out = array::Array::Empty(op.dtype, op.shape);
    dev.CopyToHost(out.raw(), hbm[first_output + o]->ptr(), Bytes(out));
    outcome.outputs.push_back(std::move(out));
    bool aliased =
        std::any_of(mapping.aliases.begin(), mapping.aliases.end(),
                    [&](const auto& entry) { return entry.second == static_cast<int>(o); });
    // The device does not record which DMA wrote what: a pl.ANY output counts as written by the
    // last grid step.
    double start = op.space == kernel::MemorySpace::kAny
                       ? static_cast<double>(call_mapping.num_steps() - 1)
                   : aliased ? -2.0
                             : -1.0;
    outcome.writer.push_back(
        array::Full(op.shape, {start, array::DType::kInt32}, array::DType::kInt32));
  }
  // Timed after the outputs are down: the timing launches run on the buffers the first left,
  // which a kernel that reads an aliased output, or writes a scalar-prefetch ref, changes again.
  auto report = std::make_unique<CudaReport>();
  if (options_.timing) {
    std::vector<double> times;
    if (log) {  // the timed launches print nothing
      args[static_cast<size_t>(kernel.log_arg)] = 0;
      dev.CopyToDevice(arg_buffer.ptr(), args.data(), args.size() * sizeof(uint64_t));
    }
    try {
      times = dev.Time(module, config, 2, 7);
    } catch (const DeviceError& e) {
      throw kernel::CallError{.kind = kernel::CallError::Kind::kRuntimeError,
                              .message = std::string(e.what()),
                              .span = mapping.span};
    }
    std::sort(times.begin(), times.end());
    report->milliseconds = times.empty() ? 0 : times[times.size() / 2];
  }
  int64_t total = static_cast<int64_t>(table.linear_step.size());
  size_t num_operands = mapping.inputs.size() + mapping.outputs.size();
  for (size_t k = 0; k < num_operands; ++k) {
    int64_t column = kernel.operand_column[k];
    const kernel::BlockMapping& op = mapping.operand(k);
    if (column < 0) continue;
    size_t rank = op.shape.size();
    int64_t window_bytes = static_cast<int64_t>(array::ItemSize(op.dtype));
    std::vector<int64_t> extent(rank);
    for (size_t d = 0; d < rank; ++d) {
      extent[d] = op.block[d].kind == kernel::BlockDim::Kind::kSqueezed ? 1 : op.block[d].size;
    }
    for (int64_t row = 0; row < total; ++row) {
      int64_t s = row % split.steps_per_chain;
      const int64_t* r = table.rows.data() + row * table.columns + column;
      int64_t neighbour =
          op.is_output ? (s + 1 < split.steps_per_chain ? row + 1 : -1) : (s > 0 ? row - 1 : -1);
      bool moved = neighbour < 0 ||
                   !std::equal(r, r + rank, table.rows.data() + neighbour * table.columns + column);
      if (!moved) continue;
      // The window clipped to the array.
      int64_t lo[array::kMaxRank], len[array::kMaxRank], elements = 1;
      for (size_t d = 0; d < rank; ++d) {
        lo[d] = std::max<int64_t>(r[d], 0);
        len[d] = std::max<int64_t>(std::min(r[d] + extent[d], op.shape[d]) - lo[d], 0);
        elements *= len[d];
      }
      (op.is_output ? report->hbm_bytes_written : report->hbm_bytes_read) +=
          elements * window_bytes;
      if (!op.is_output || elements == 0) continue;
      array::Array& writer = outcome.writer[k - mapping.inputs.size()];
      tpu::StampBox(writer, lo, len, rank,
                    static_cast<int32_t>(call_step[static_cast<size_t>(row)]));
    }
  }

  std::map<kernel::ValueId, int64_t> constants;
  CollectConstants(program.kernel->body, constants);
  FlopCount flops = CountFlops(program.kernel->body, constants);
  report->kernel = kernel.name;
  report->device = info.name;
  report->split = split.note;
  report->chains = split.chains;
  report->steps_per_chain = split.steps_per_chain;
  report->blocks = blocks;
  report->threads = threads;
  report->shared_bytes = kernel.shared_bytes;
  report->global_bytes = kernel.global_bytes;
  report->direct_operands = kernel.direct_operands;
  // The staged forms run on sm_80 and later (and the host device running their forms), with the
  // kernel's own thread count.
  bool sm80 = info.host ? info.host_sm80 : info.compute_major >= 8;
  if (kernel.tensor_staged && sm80 && threads == kernel.threads) {
    report->tensor_staging = fmt::format(
        "tensor-core products staged in shared memory, each warp a {} x {} tile of the block's "
        "128 x 128 ({} warps; PZ_CUDA_WARP_TILE)",
        kernel.warp_tile.rows, kernel.warp_tile.cols, kernel.warp_tile.Warps());
  }
  report->flops = flops.flops * mapping.num_steps();
  report->flops_exact = flops.exact;
  Peaks peaks = PeaksOf(info.name);
  ComparedPeak compared = PeakFor(peaks, kernel.tensor_products, info.compute_major);
  report->peak_tflops = compared.tflops;
  report->peak_kind = compared.kind;
  report->peak_gbps = peaks.gbps;
  outcome.report = std::move(report);
  for (const kernel::CallWarning& w : plan.warnings) outcome.warnings.push_back(w);
  for (kernel::CallWarning& w : print_warnings) outcome.warnings.push_back(std::move(w));
  return outcome;
}

}  // namespace pz::cuda

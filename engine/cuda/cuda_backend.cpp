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
#include "cuda/device_faults.h"
#include "cuda/hazards.h"
#include "cuda/plan.h"
#include "cuda/print_log.h"
#include "tpu/executor.h"
#include "tpu/memory.h"

namespace pz::cuda {

namespace {

size_t Bytes(const array::Array& a) {
  return static_cast<size_t>(a.size()) * array::ItemSize(a.dtype());
}

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
  TableLayout layout = LayoutOf(*program.kernel, mapping);
  GridSplit whole = SplitGridForCuda(program, mapping, true, run.zero_uninitialized);
  GridSplit split = whole;
  StepTable table = BuildStepTable(mapping, operands, split, layout, run);
  if (!whole.fresh.empty() && split.chains < whole.chains) {
    // Axes that start afresh, but whose points write one output window: as the semantics say.
    split = SplitGridForCuda(program, mapping, false, run.zero_uninitialized);
    table = BuildStepTable(mapping, operands, split, layout, run);
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
      plan.table = BuildStepTable(plan.parts->mapping, operands, plan.split, plan.kernel.layout,
                                  run, /*past_edge=*/true);
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

namespace {

// The input an output aliases (input_output_aliases), or -1.
int AliasedInput(const kernel::GridMapping& mapping, size_t output) {
  for (const auto& [input, out] : mapping.aliases) {
    if (out == static_cast<int>(output)) return input;
  }
  return -1;
}

// The call's HBM arrays on the device, in the order of the kernel's arguments: prefetch arrays,
// inputs, outputs (an aliased output starts as its input, others as poison or zeros).
std::vector<std::unique_ptr<DeviceBuffer>> UploadOperands(Device& dev,
                                                          const kernel::GridMapping& mapping,
                                                          const kernel::CallOperands& operands,
                                                          bool zero_uninitialized) {
  std::vector<std::unique_ptr<DeviceBuffer>> hbm;
  auto upload = [&](const array::Array& a) {
    array::Array c = a.Contiguous();
    hbm.push_back(std::make_unique<DeviceBuffer>(dev, Bytes(c)));
    dev.CopyToDevice(hbm.back()->ptr(), c.raw(), Bytes(c));
  };
  for (const array::Array& a : operands.prefetch) upload(a);
  for (const array::Array& a : operands.inputs) upload(a);
  for (size_t o = 0; o < mapping.outputs.size(); ++o) {
    const kernel::BlockMapping& op = mapping.outputs[o];
    int alias = AliasedInput(mapping, o);
    upload(alias >= 0 ? operands.inputs[static_cast<size_t>(alias)]
                      : tpu::Poison(op.shape, op.dtype, zero_uninitialized));
  }
  return hbm;
}

// The status row of the fault at the call's earliest grid step (`first_step`), or null when no
// block faulted.
const long long* FirstFault(const std::vector<long long>& rows,
                            const std::vector<int64_t>& call_step, int64_t& first_step) {
  const long long* first = nullptr;
  for (size_t at = 0; at < rows.size(); at += kStatusWords) {
    const long long* row = rows.data() + at;
    if (row[0] == 0) continue;
    int64_t linear = call_step.at(static_cast<size_t>(row[2]));
    if (!first || linear < first_step) {
      first = row;
      first_step = linear;
    }
  }
  return first;
}

// From the step table: the bytes the pipeline's windows move (a window is fetched when it moves,
// and written back before it moves), and in each output's `writer` the call step whose
// write-back last stored each element.
void AccountWindows(const PlannedCall& plan, const kernel::GridMapping& mapping,
                    const std::vector<int64_t>& call_step, std::vector<array::Array>& writers,
                    CudaReport& report) {
  const StepTable& table = plan.table;
  const int64_t steps_per_chain = plan.split.steps_per_chain;
  int64_t total = static_cast<int64_t>(table.linear_step.size());
  size_t num_operands = mapping.inputs.size() + mapping.outputs.size();
  for (size_t k = 0; k < num_operands; ++k) {
    int64_t column = plan.kernel.layout.operand_column[k];
    const kernel::BlockMapping& op = mapping.operand(k);
    if (column < 0) continue;
    size_t rank = op.shape.size();
    int64_t window_bytes = static_cast<int64_t>(array::ItemSize(op.dtype));
    std::vector<int64_t> extent(rank);
    for (size_t d = 0; d < rank; ++d) {
      extent[d] = op.block[d].kind == kernel::BlockDim::Kind::kSqueezed ? 1 : op.block[d].size;
    }
    for (int64_t row = 0; row < total; ++row) {
      int64_t s = row % steps_per_chain;
      const int64_t* r = table.rows.data() + row * table.columns + column;
      int64_t neighbour =
          op.is_output ? (s + 1 < steps_per_chain ? row + 1 : -1) : (s > 0 ? row - 1 : -1);
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
      (op.is_output ? report.hbm_bytes_written : report.hbm_bytes_read) += elements * window_bytes;
      if (!op.is_output || elements == 0) continue;
      tpu::StampBox(writers[k - mapping.inputs.size()], lo, len, rank,
                    static_cast<int32_t>(call_step[static_cast<size_t>(row)]));
    }
  }
}

// A device failure as the call's error, at the call.
kernel::CallError CallFailure(const kernel::GridMapping& mapping, const DeviceError& e) {
  return kernel::CallError{.kind = kernel::CallError::Kind::kRuntimeError,
                           .message = std::string(e.what()),
                           .span = mapping.span};
}

}  // namespace

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
  ModuleId module = 0;
  try {
    module = dev.Load(AssembleUnit({&kernel}), kernel.name);
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

  std::vector<std::unique_ptr<DeviceBuffer>> hbm =
      UploadOperands(dev, mapping, operands, run.zero_uninitialized);
  size_t status_bytes = static_cast<size_t>(blocks) * kStatusWords * sizeof(long long);
  DeviceBuffer status(dev, status_bytes);
  dev.Memset(status.ptr(), 0, status_bytes);
  DeviceBuffer steps(dev, table.rows.size() * sizeof(int64_t));
  dev.CopyToDevice(steps.ptr(), table.rows.data(), table.rows.size() * sizeof(int64_t));
  size_t arena_stride = static_cast<size_t>((kernel.global_bytes + 255) / 256 * 256);
  DeviceBuffer arena(dev, arena_stride * blocks);
  std::unique_ptr<PrintLog> log;
  if (kernel.log_arg >= 0) {
    log = std::make_unique<PrintLog>(dev, kernel, *program.kernel, mapping.num_steps());
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
  DeviceBuffer arg_buffer(dev, args.size() * sizeof(uint64_t));
  dev.CopyToDevice(arg_buffer.ptr(), args.data(), args.size() * sizeof(uint64_t));

  LaunchConfig config{.kernel = kernel.name,
                      .grid = blocks,
                      .block = threads,
                      .shared_bytes = static_cast<size_t>(kernel.shared_bytes),
                      .args = arg_buffer.ptr()};
  try {
    dev.Launch(module, config);
  } catch (const DeviceError& e) {
    throw CallFailure(mapping, e);
  }

  // Each row's grid step in the call's own numbering (the split plan's differs).
  std::vector<int64_t> call_step = table.linear_step;
  if (plan.parts) {
    for (int64_t& step : call_step) step = plan.CallStep(call_mapping, step);
  }

  // Faults: the one at the earliest grid step, after the prints of the steps up to it.
  std::vector<long long> rows(static_cast<size_t>(blocks) * kStatusWords);
  dev.CopyToHost(rows.data(), status.ptr(), status_bytes);
  int64_t first_step = 0;
  const long long* first = FirstFault(rows, call_step, first_step);
  kernel::CallOutcome outcome;
  if (log) {
    std::optional<kernel::CallWarning> dropped =
        log->Replay(call_step, first ? first_step : std::numeric_limits<int64_t>::max());
    if (dropped) outcome.warnings.push_back(std::move(*dropped));
  }
  if (first) {
    throw DeviceFaultError(kernel, *program.kernel, first,
                           tpu::UnravelIndex(first_step, call_mapping.grid));
  }

  // Outputs, and which grid step's write-back last stored each element.
  size_t first_output = operands.prefetch.size() + operands.inputs.size();
  for (size_t o = 0; o < mapping.outputs.size(); ++o) {
    const kernel::BlockMapping& op = mapping.outputs[o];
    array::Array out = array::Array::Empty(op.dtype, op.shape);
    dev.CopyToHost(out.raw(), hbm[first_output + o]->ptr(), Bytes(out));
    outcome.outputs.push_back(std::move(out));
    // The device does not record which DMA wrote what: a pl.ANY output counts as written by the
    // last grid step.
    double start = op.space == kernel::MemorySpace::kAny
                       ? static_cast<double>(call_mapping.num_steps() - 1)
                   : AliasedInput(mapping, o) >= 0 ? -2.0
                                                   : -1.0;
    outcome.writer.push_back(
        array::Full(op.shape, {start, array::DType::kInt32}, array::DType::kInt32));
  }
  // Timed after the outputs are down: the timing launches run on the buffers the first left,
  // which a kernel that reads an aliased output, or writes a scalar-prefetch ref, changes again.
  auto report = std::make_unique<CudaReport>();
  if (options_.timing) {
    if (log) {  // the timed launches print nothing
      args[static_cast<size_t>(kernel.log_arg)] = 0;
      dev.CopyToDevice(arg_buffer.ptr(), args.data(), args.size() * sizeof(uint64_t));
    }
    std::vector<double> times;
    try {
      times = dev.Time(module, config, 2, 7);
    } catch (const DeviceError& e) {
      throw CallFailure(mapping, e);
    }
    std::sort(times.begin(), times.end());
    report->milliseconds = times.empty() ? 0 : times[times.size() / 2];
  }
  AccountWindows(plan, mapping, call_step, outcome.writer, *report);

  FlopCount flops = CountFlops(*program.kernel);
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
  Peaks peaks = PeaksOf(info);
  ComparedPeak compared = PeakFor(peaks, kernel.tensor_products, info.compute_major);
  report->peak_tflops = compared.tflops;
  report->peak_kind = compared.kind;
  report->peak_gbps = peaks.gbps;
  report->peaks_estimated = peaks.estimated;
  outcome.report = std::move(report);
  // The plan's warnings come first, then the log's.
  outcome.warnings.insert(outcome.warnings.begin(), plan.warnings.begin(), plan.warnings.end());
  return outcome;
}

}  // namespace pz::cuda

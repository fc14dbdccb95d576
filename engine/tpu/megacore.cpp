// Megacore (`--cores 2`): TpuBackend cuts the leading "parallel" grid axes into one contiguous
// chunk per TensorCore (SplitGrid), runs each chunk with its own pipeline on its own thread
// (RunCore), then checks the cores' HBM accesses for races and merges their private copies of the
// outputs.
//
// Race model: a happens-before analysis. Within a core, program order orders everything. Between
// cores, the emulator has no synchronisation at all (no cross-core semaphores or barriers
// inside a kernel), so the only edges are the barriers at kernel entry and exit: every access of
// one core is concurrent with every access of the other. A vector clock per core would hold
// only its own entry between the two barriers, so the check reduces to "do the two cores touch
// the same HBM element, at least one of them writing?". Each core stamps the elements it
// writes (write-backs, DMA landings) and reads (fetches of inputs aliased to an output, DMA
// sources in pl.ANY) with the grid step that did it; after both finish, the stamps are compared
// element by element. The answer does not depend on thread timing, so it is deterministic.
//
// Threads: the IR executor, pipeline and DMA engine keep all state per core, and primitives run
// on array kernels without the evaluator, so the cores compute in parallel. Only jax.debug.print
// and the step `tick` call back into the evaluator, which is single-threaded (object tracking,
// step counter, output): those take one mutex (CoreSpec::callbacks), and debug prints of the
// two cores interleave by timing (as on hardware). Everything else, and the result, is
// deterministic.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "support/check.h"
#include "support/large_stack.h"
#include "tpu/megacore.h"

namespace pz::tpu {

using array::Array;

std::vector<std::pair<int64_t, int64_t>> SplitGrid(const std::vector<int64_t>& grid,
                                                   int parallel_axes, int cores) {
  int64_t total = 1, points = 1;
  for (size_t d = 0; d < grid.size(); ++d) {
    total *= grid[d];
    if (static_cast<int>(d) < parallel_axes) points *= grid[d];
  }
  cores = std::max(cores, 1);
  std::vector<std::pair<int64_t, int64_t>> chunks(static_cast<size_t>(cores), {total, total});
  if (parallel_axes <= 0 || total == 0) {
    chunks[0] = {0, total};
    return chunks;
  }
  int64_t inner = total / points;  // steps per point of the parallel sub-grid
  int64_t per_core = (points + cores - 1) / cores;
  for (int c = 0; c < cores; ++c) {
    int64_t lo = std::min<int64_t>(c * per_core, points);
    int64_t hi = std::min<int64_t>(lo + per_core, points);
    chunks[static_cast<size_t>(c)] = {lo * inner, hi * inner};
  }
  return chunks;
}

int LeadingParallelAxes(const std::vector<std::string>& dimension_semantics) {
  int n = 0;
  while (n < static_cast<int>(dimension_semantics.size()) &&
         dimension_semantics[static_cast<size_t>(n)] == "parallel") {
    ++n;
  }
  return n;
}

std::vector<int> ParallelAxes(const kernel::GridMapping& mapping, bool leading) {
  std::vector<int> axes;
  const std::vector<std::string>& semantics = mapping.dimension_semantics;
  size_t n = leading ? static_cast<size_t>(LeadingParallelAxes(semantics)) : semantics.size();
  for (size_t a = 0; a < n && a < mapping.grid.size(); ++a) {
    bool parallel = semantics[a] == "parallel" || semantics[a] == "core_parallel";
    if (parallel && mapping.grid[a] > 1) axes.push_back(static_cast<int>(a));
  }
  return axes;
}

std::string AxesPhrase(const kernel::GridMapping& mapping, const std::vector<int>& axes) {
  std::vector<std::string> named;
  for (int a : axes) {
    if (mapping.grid.at(static_cast<size_t>(a)) > 1) named.push_back(std::to_string(a));
  }
  return fmt::format("{} {}", named.size() == 1 ? "axis" : "axes", fmt::join(named, ", "));
}

namespace {

std::string SemanticsString(const std::vector<std::string>& semantics) {
  std::string s = "(";
  for (size_t i = 0; i < semantics.size(); ++i) {
    s += fmt::format("{}\"{}\"", i ? ", " : "", semantics[i]);
  }
  return s + (semantics.size() == 1 ? ",)" : ")");
}

void AddCounters(Counters& total, const Counters& c) {
  total.grid_steps += c.grid_steps;
  total.hbm_bytes_read += c.hbm_bytes_read;
  total.hbm_bytes_written += c.hbm_bytes_written;
  total.flops += c.flops;
  total.dma_bytes_overlapped += c.dma_bytes_overlapped;
  total.mxu_flops += c.mxu_flops;
  total.transcendentals += c.transcendentals;
  total.vmem_high_water = std::max(total.vmem_high_water, c.vmem_high_water);
  total.dma_count += c.dma_count;
  for (const auto& [spaces, bytes] : c.dma_bytes) total.dma_bytes[spaces] += bytes;
  total.timeline_dropped += c.timeline_dropped;
  total.timeline.insert(total.timeline.end(), c.timeline.begin(), c.timeline.end());
}

// Two accesses of the same HBM element by different cores, at least one a write.
struct Conflict {
  int buffer = 0;
  int64_t element = 0;
  int first_core = 0, second_core = 1;
  int32_t first = -1, second = -1;  // their stamps (HbmAccess)
  bool first_writes = true;         // else: the first core reads, the second writes
};

// False for the empty shell of a buffer a core never touched.
bool Allocated(const Array& stamps) { return !stamps.SharesStorageWith(Array()); }

// The first element (row-major) stamped in both arrays, or -1.
int64_t FirstCommon(const Array& a, const Array& b) {
  if (!Allocated(a) || !Allocated(b) || a.size() != b.size()) return -1;
  const int32_t* x = a.data<int32_t>();
  const int32_t* y = b.data<int32_t>();
  for (int64_t i = 0, size = a.size(); i < size; ++i) {
    if (x[i] != -1 && y[i] != -1) return i;
  }
  return -1;
}

std::optional<Conflict> FindConflict(const std::vector<CoreResult>& cores) {
  const HbmAccess& a = cores[0].access;
  const HbmAccess& b = cores[1].access;
  for (size_t k = 0; k < a.writes.size(); ++k) {
    int buffer = static_cast<int>(k);
    if (int64_t e = FirstCommon(a.writes[k], b.writes[k]); e >= 0) {
      return Conflict{.buffer = buffer,
                      .element = e,
                      .first = a.writes[k].data<int32_t>()[e],
                      .second = b.writes[k].data<int32_t>()[e]};
    }
    int64_t ra = FirstCommon(a.reads[k], b.writes[k]);
    int64_t rb = FirstCommon(b.reads[k], a.writes[k]);
    if (ra >= 0 && (rb < 0 || ra <= rb)) {
      return Conflict{.buffer = buffer,
                      .element = ra,
                      .first = a.reads[k].data<int32_t>()[ra],
                      .second = b.writes[k].data<int32_t>()[ra],
                      .first_writes = false};
    }
    if (rb >= 0) {
      return Conflict{.buffer = buffer,
                      .element = rb,
                      .first_core = 1,
                      .second_core = 0,
                      .first = b.reads[k].data<int32_t>()[rb],
                      .second = a.writes[k].data<int32_t>()[rb],
                      .first_writes = false};
    }
  }
  return std::nullopt;
}

const kernel::BlockMapping& OperandOfBuffer(const kernel::GridMapping& mapping, int buffer) {
  if (buffer < static_cast<int>(mapping.outputs.size())) return mapping.outputs[buffer];
  for (size_t i = 0; i < mapping.inputs.size(); ++i) {
    if (HbmBufferOf(mapping, false, i) == buffer) return mapping.inputs[i];
  }
  PZ_UNREACHABLE();
}

// The grid axes among the leading parallel ones that `op`'s index map ignores: the axes along
// which both cores land on the same block (empty when unknown).
std::vector<int> ReductionAxes(const kernel::BlockMapping& op, int parallel_axes) {
  std::vector<int> axes;
  if (op.space == kernel::MemorySpace::kAny) return axes;
  std::vector<bool> used(static_cast<size_t>(parallel_axes), false);
  if (op.index_map) {
    kernel::DirectMap map = kernel::AnalyzeIndexMap(*op.index_map);
    if (!map.ok) return axes;
    for (const auto& [axis, constant] : map.entries) {
      if (axis >= 0 && axis < parallel_axes) used[static_cast<size_t>(axis)] = true;
    }
  }
  for (int a = 0; a < parallel_axes; ++a) {
    if (!used[static_cast<size_t>(a)]) axes.push_back(a);
  }
  return axes;
}

[[noreturn]] void ReportConflict(const kernel::GridMapping& mapping, const kernel::RunOptions& run,
                                 const std::vector<CoreResult>& cores,
                                 const std::vector<std::pair<int64_t, int64_t>>& chunks,
                                 const Conflict& c) {
  const kernel::BlockMapping& op = OperandOfBuffer(mapping, c.buffer);
  std::vector<int64_t> element = UnravelIndex(c.element, op.shape);
  bool any = op.space == kernel::MemorySpace::kAny;
  std::string where;
  if (any) {
    where = fmt::format("element {} of `{}` in HBM", TupleString(element), op.name);
  } else {
    std::vector<int64_t> block;
    bool blocked = true;
    for (size_t d = 0; d < op.block.size(); ++d) {
      const kernel::BlockDim& b = op.block[d];
      blocked &= b.kind != kernel::BlockDim::Kind::kElement;
      block.push_back(b.kind == kernel::BlockDim::Kind::kBlocked
                          ? element[d] / std::max<int64_t>(b.size, 1)
                          : element[d]);
    }
    where = blocked ? fmt::format("block {} of {} `{}`", TupleString(block),
                                  op.is_output ? "output" : "input", op.name)
                    : fmt::format("element {} of {} `{}`", TupleString(element),
                                  op.is_output ? "output" : "input", op.name);
  }
  std::vector<Note> related;
  auto access = [&](int core, int32_t stamp, bool write) {
    const HbmAccess& acc = cores[static_cast<size_t>(core)].access;
    if (stamp >= 0) {
      return fmt::format("core {} {} in grid step {}", core,
                         write ? "writes it back" : "fetches it",
                         TupleString(UnravelIndex(stamp, mapping.grid)));
    }
    const HbmAccess::Dma& dma = acc.dmas[static_cast<size_t>(-stamp - 2)];
    std::string line = run.line_of ? run.line_of(dma.span) : "?";
    related.push_back({.message = fmt::format("the DMA of core {} ({} it in grid step {})", core,
                                              write ? "writing" : "reading",
                                              TupleString(UnravelIndex(dma.step, mapping.grid))),
                       .span = dma.span});
    return fmt::format("core {} {} it through the DMA at {} in grid step {}", core,
                       write ? "writes" : "reads", line,
                       TupleString(UnravelIndex(dma.step, mapping.grid)));
  };
  std::string first = access(c.first_core, c.first, c.first_writes);
  std::string second = access(c.second_core, c.second, true);
  std::string message =
      c.first_writes ? fmt::format(
                           "megacore race: both TensorCores write {}: {} and {}; nothing orders "
                           "the two cores, so which data ends up in HBM depends on timing",
                           where, first, second)
                     : fmt::format(
                           "megacore race: one TensorCore reads what the other writes, {}: {} and "
                           "{}; nothing orders the two cores, so what is read depends on timing",
                           where, first, second);
  int parallel = LeadingParallelAxes(mapping.dimension_semantics);
  auto range = [&](int core) {
    const auto& [lo, hi] = chunks[static_cast<size_t>(core)];
    return fmt::format("{} to {}", TupleString(UnravelIndex(lo, mapping.grid)),
                       TupleString(UnravelIndex(hi - 1, mapping.grid)));
  };
  related.push_back(
      {.message = fmt::format("dimension_semantics={} splits the leading {} across the 2 "
                              "cores: core 0 runs grid steps {}, core 1 runs {}",
                              SemanticsString(mapping.dimension_semantics),
                              parallel == 1 ? "axis 0" : fmt::format("axes 0-{}", parallel - 1),
                              range(0), range(1)),
       .span = mapping.semantics_span});
  std::vector<std::string> notes;
  std::vector<int> reductions = ReductionAxes(op, parallel);
  for (int axis : reductions) {
    std::string name =
        static_cast<size_t>(axis) < op.map_params.size()
            ? fmt::format(" (`{}` in the index map of `{}`)", op.map_params[axis], op.name)
            : "";
    notes.push_back(fmt::format(
        "axis {}{} is a reduction: the block of `{}` does not change along it, so both cores "
        "accumulate into the same block; mark it \"arbitrary\" (only leading \"parallel\" axes "
        "are split, so put the truly parallel axes first)",
        axis, name, op.name));
  }
  if (reductions.empty()) {
    notes.push_back(any ? "give each core its own part of the array (derive the DMA's window "
                          "from pl.program_id of the parallel axis), or mark the axis "
                          "\"arbitrary\""
                        : "two cores must never touch the same output block: every \"parallel\" "
                          "axis must select a different block of each output; mark the others "
                          "\"arbitrary\"");
  }
  throw EmulationError{.kind = EmulationError::Kind::kRuntimeError,
                       .message = std::move(message),
                       .span = mapping.span,
                       .notes = std::move(notes),
                       .related = std::move(related)};
}

// Core 0's result with the output elements core 1 wrote copied in, and the counters summed.
CallResult Merge(const kernel::GridMapping& mapping, std::vector<CoreResult>& cores,
                 const std::vector<std::pair<int64_t, int64_t>>& chunks) {
  CallResult result = std::move(cores[0].result);
  CallResult& other = cores[1].result;
  const HbmAccess& written = cores[1].access;
  for (size_t o = 0; o < mapping.outputs.size(); ++o) {
    const Array& stamps = written.writes[o];
    if (!Allocated(stamps)) continue;
    const int32_t* s = stamps.data<int32_t>();
    size_t item = array::ItemSize(result.outputs[o].dtype());
    std::byte* dst = result.outputs[o].raw();
    const std::byte* src = other.outputs[o].raw();
    int32_t* w = result.writer[o].data<int32_t>();
    const int32_t* ow = other.writer[o].data<int32_t>();
    for (int64_t i = 0, size = stamps.size(); i < size; ++i) {
      if (s[i] == -1) continue;
      std::memcpy(dst + i * item, src + i * item, item);
      w[i] = ow[i];
    }
    if (result.dma_blocks[o].empty()) result.dma_blocks[o] = other.dma_blocks[o];
  }
  if (!result.uninitialized.seen) result.uninitialized = other.uninitialized;
  if (!result.carried.seen) result.carried = other.carried;
  result.core_counters = {result.counters, other.counters};
  Counters total;
  for (const Counters& c : result.core_counters) AddCounters(total, c);
  std::stable_sort(total.timeline.begin(), total.timeline.end(),
                   [](const DmaEvent& a, const DmaEvent& b) { return a.step < b.step; });
  result.counters = std::move(total);
  result.core_steps = chunks;
  return result;
}

}  // namespace

std::string NoSplitReason(const kernel::GridMapping& mapping, const EmulatorOptions& options,
                          const std::vector<std::pair<int64_t, int64_t>>& chunks) {
  if (options.semantics == Semantics::kInterpret) {
    return "`--cores` is ignored in `interpret` semantics (JAX's interpret=True ignores "
           "dimension_semantics and runs the grid on one thread)";
  }
  if (mapping.dimension_semantics.empty()) {
    return "no dimension_semantics in compiler_params: every grid axis is \"arbitrary\", so "
           "core 0 runs the whole grid and core 1 idles";
  }
  if (LeadingParallelAxes(mapping.dimension_semantics) == 0) {
    return fmt::format(
        "dimension_semantics={} has no leading \"parallel\" axis (only those are "
        "split across cores), so core 0 runs the whole grid",
        SemanticsString(mapping.dimension_semantics));
  }
  for (size_t c = 1; c < chunks.size(); ++c) {
    if (chunks[c].first >= chunks[c].second) {
      return fmt::format(
          "the parallel axes have fewer points than there are cores: core {} has "
          "no grid steps",
          c);
    }
  }
  return "";
}

std::string SplitNote(const kernel::GridMapping& mapping, int parallel_axes, int cores) {
  // The index maps' parameter names, from the first operand whose map has one per grid axis.
  const std::vector<std::string>* names = nullptr;
  for (const auto* ops : {&mapping.inputs, &mapping.outputs}) {
    for (const kernel::BlockMapping& op : *ops) {
      if (names == nullptr && op.map_params.size() >= mapping.grid.size()) names = &op.map_params;
    }
  }
  std::string axes;
  int64_t points = 1;
  for (int a = 0; a < parallel_axes; ++a) {
    auto u = static_cast<size_t>(a);
    if (a > 0) axes += a + 1 == parallel_axes ? " and " : ", ";
    axes += names != nullptr ? fmt::format("{} (`{}`, {} points)", a, (*names)[u], mapping.grid[u])
                             : fmt::format("{} ({} points)", a, mapping.grid[u]);
    points *= mapping.grid[u];
  }
  int64_t chunk = (points + cores - 1) / cores;
  bool rest = static_cast<size_t>(parallel_axes) < mapping.grid.size();
  return fmt::format(
      "grid ax{} {}, the leading \"parallel\" ax{}, split into {} contiguous chunks of {} "
      "point{}, one per TensorCore{}",
      parallel_axes == 1 ? "is" : "es", axes, parallel_axes == 1 ? "is" : "es", cores, chunk,
      chunk == 1 ? "" : "s", rest ? "; each core runs the other axes whole" : "");
}

CallResult RunMegacore(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                       const kernel::CallOperands& operands, const EmulatorOptions& options,
                       const kernel::RunOptions& run,
                       const std::vector<std::pair<int64_t, int64_t>>& chunks) {
  int cores = static_cast<int>(chunks.size());
  // The interpreter behind debug prints and `tick` is single-threaded: the cores take
  // turns through `callbacks`. The allocation limit is per thread: each core inherits it.
  std::mutex callbacks;
  int64_t limit = array::AllocationLimit();
  std::vector<CoreResult> results(static_cast<size_t>(cores));
  std::vector<std::exception_ptr> errors(static_cast<size_t>(cores));
  std::vector<CoreSpec> specs;
  for (int c = 0; c < cores; ++c) {
    specs.push_back({.core = c,
                     .first = chunks[static_cast<size_t>(c)].first,
                     .end = chunks[static_cast<size_t>(c)].second,
                     .track_hbm = true,
                     .callbacks = &callbacks});
  }
  auto run_core = [&](int c) {
    array::ScopedAllocationLimit scoped(limit);
    try {
      results[static_cast<size_t>(c)] =
          RunCore(program, mapping, operands, options, run, specs[static_cast<size_t>(c)]);
    } catch (...) {
      errors[static_cast<size_t>(c)] = std::current_exception();
    }
  };
  {
    // Core 0 runs here (the evaluator's large-stack thread); the others on threads with as
    // large a stack, since debug prints call back into the evaluator.
    std::vector<std::thread> threads;
    for (int c = 1; c < cores; ++c) {
      threads.emplace_back([&run_core, c] { RunOnLargeStack([&run_core, c] { run_core(c); }); });
    }
    run_core(0);
    for (std::thread& t : threads) t.join();
  }
  // Each core runs to its end or its first error; the lowest core's error is reported, so the
  // outcome does not depend on which thread got there first.
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  if (std::optional<Conflict> conflict = FindConflict(results)) {
    ReportConflict(mapping, run, results, chunks, *conflict);
  }
  return Merge(mapping, results, chunks);
}

}  // namespace pz::tpu

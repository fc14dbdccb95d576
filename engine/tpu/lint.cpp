#include "tpu/lint.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernel/carried.h"
#include "kernel/shared_writes.h"
#include "tpu/block_index.h"
#include "tpu/executor.h"
#include "tpu/megacore.h"
#include "tpu/tpu_info.h"

namespace pz::tpu {

using kernel::MemorySpace;

namespace {

// The block an input's index map picks at a grid step, for the megacore hazards: read off the
// grid point for a map that passes grid indices through (or returns constants), any other run on
// the reference executor over the call's scalar-prefetch operands as it passed them. Not told
// (nullopt) for a map that runs where the kernel stores into a scalar-prefetch ref (on a TPU its
// stores steer the later steps' maps), nor for one the executor cannot run.
kernel::BlockIndexAt LintBlockIndexAt(const kernel::KernelProgram& program,
                                      const kernel::GridMapping& mapping,
                                      const kernel::CallOperands& operands) {
  struct Indexers {
    std::vector<RefBuffer> prefetch;
    ExecContext context;  // its refs: `prefetch`
    std::vector<BlockIndexer> inputs;
    bool prefetch_stored = false;
  };
  auto shared = std::make_shared<Indexers>();
  for (const array::Array& a : operands.prefetch) shared->prefetch.push_back({.data = Copy(a)});
  for (RefBuffer& b : shared->prefetch) shared->context.refs.push_back(&b);
  for (size_t p = 0; p < mapping.prefetch.size(); ++p) {
    shared->prefetch_stored |=
        kernel::FirstWriteTo(program.kernel->body, static_cast<kernel::RefId>(p)) != nullptr;
  }
  for (const kernel::BlockMapping& op : mapping.inputs) {
    shared->inputs.emplace_back(op, shared->context);
  }
  return
      [&mapping, shared](kernel::RefId r,
                         const std::vector<int64_t>& step) -> std::optional<std::vector<int64_t>> {
        int64_t k = static_cast<int64_t>(r) - static_cast<int64_t>(mapping.prefetch.size());
        if (k < 0) return std::vector<int64_t>{};  // a scalar-prefetch ref: all of it, all along
        if (k >= static_cast<int64_t>(mapping.inputs.size())) return std::nullopt;
        BlockIndexer& indexer = shared->inputs[static_cast<size_t>(k)];
        if (!indexer.direct() && shared->prefetch_stored) return std::nullopt;
        std::vector<int64_t> index;
        try {
          indexer.At(step, index);
        } catch (...) {  // an index map the reference executor cannot run without the call
          return std::nullopt;
        }
        return index;
      };
}

}  // namespace

// Warnings for what compiles in interpret mode but not on a TPU (pallas-semantics.md §2.9) and
// for VMEM use above the budget.
void Lint(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
          const kernel::CallOperands& operands, EmulatorSession& session) {
  auto warn = [&](SourceSpan span, std::string message, std::string hint) {
    session.warnings.push_back(Diagnostic{.severity = Severity::kWarning,
                                          .phase = Phase::kLint,
                                          .message = std::move(message),
                                          .span = span,
                                          .notes = {{.message = std::move(hint)}}});
  };
  int64_t vmem = 0;
  for (const std::vector<kernel::BlockMapping>* group : {&mapping.inputs, &mapping.outputs}) {
    for (const kernel::BlockMapping& op : *group) {
      if (op.space == MemorySpace::kAny) continue;
      bool trivial = !op.index_map && op.ref_shape == op.shape;
      if (op.space == MemorySpace::kVmem) {
        vmem += 2 * array::NumElements(op.ref_shape) * array::ItemSize(op.dtype);
      }
      if (op.space == MemorySpace::kSmem && trivial) continue;
      size_t rank = op.block.size();
      auto size = [&](size_t d) {
        return op.block[d].kind == kernel::BlockDim::Kind::kSqueezed ? int64_t{1}
                                                                     : op.block[d].size;
      };
      if (rank == 0) {
        warn(op.span,
             fmt::format("block of {} has rank 0; the Pallas TPU lowering supports only "
                         "blocks of rank >= 1",
                         op.name),
             "reshape the operand to at least 1-D");
        continue;
      }
      if (rank >= 2) {
        int64_t last = size(rank - 1), second = size(rank - 2);
        bool ok_last = last == op.shape[rank - 1] || last % 128 == 0;
        bool ok_second = second == op.shape[rank - 2] || second % 8 == 0;
        if (!ok_last || !ok_second) {
          warn(op.span,
               fmt::format("block shape of {} breaks the TPU tiling rule: its last two "
                           "dimensions ({}, {}) must be divisible by 8 and 128 or equal the "
                           "array's ({}, {})",
                           op.name, second, last, op.shape[rank - 2], op.shape[rank - 1]),
               "a real TPU rejects this block shape (the emulator runs it anyway); use blocks "
               "like (8, 128), (128, 128) or the full dimension");
        }
        continue;
      }
      int64_t bs = size(0);
      int64_t bits = static_cast<int64_t>(array::ItemSize(op.dtype)) * 8;
      bool pow2 = bs > 0 && (bs & (bs - 1)) == 0;
      if (!(bs == op.shape[0] || bs % 1024 == 0 || (pow2 && bs >= 128 * (32 / bits)))) {
        warn(op.span,
             fmt::format("1-D block of {} has size {}; on a TPU it must equal the array size, "
                         "be a multiple of 1024, or be a power of two of at least {}",
                         op.name, bs, 128 * (32 / bits)),
             "a real TPU rejects this block shape (the emulator runs it anyway)");
      }
    }
  }
  for (const kernel::RefType& ref : mapping.scratch) {
    if (ref.space == MemorySpace::kVmem) {
      vmem += array::NumElements(ref.shape) * array::ItemSize(ref.dtype);
    }
  }
  // Megacore hazard: a leading "parallel" axis along which an output's block does not change is
  // a reduction; split across the TensorCores of a v4 / v5p, both would write that block.
  int parallel = LeadingParallelAxes(mapping.dimension_semantics);
  for (const kernel::BlockMapping& op : mapping.outputs) {
    if (op.space == MemorySpace::kAny) continue;
    std::vector<bool> used(static_cast<size_t>(parallel), false);
    if (op.index_map) {
      kernel::DirectMap map = kernel::AnalyzeIndexMap(*op.index_map);
      if (!map.ok) continue;
      for (const auto& [axis, constant] : map.entries) {
        if (axis >= 0 && axis < parallel) used[static_cast<size_t>(axis)] = true;
      }
    }
    for (int a = 0; a < parallel; ++a) {
      if (used[static_cast<size_t>(a)] || mapping.grid[static_cast<size_t>(a)] <= 1) continue;
      std::string name = static_cast<size_t>(a) < op.map_params.size()
                             ? fmt::format(" (`{}`)", op.map_params[static_cast<size_t>(a)])
                             : "";
      warn(mapping.semantics_span.valid() ? mapping.semantics_span : mapping.span,
           fmt::format("grid axis {}{} is marked \"parallel\" but the block of output `{}` does "
                       "not change along it: it is a reduction, and on a megacore chip (TPU v4, "
                       "v5p) both TensorCores would write the same block",
                       a, name, op.name),
           "mark it \"arbitrary\" (only leading \"parallel\" axes are split across cores); "
           "`pallas-puzzles run --cores 2` shows the race");
    }
  }
  // Megacore hazard: scratch that the first step of a point of the leading "parallel" axes reads
  // before writing it whole carries a value over from the point before; split between two
  // TensorCores, the second core's first point has scratch of its own, never written.
  std::vector<int> leading;
  for (int a = 0; a < parallel; ++a) leading.push_back(a);
  // "axis 0" or "axes 0, 1": the leading parallel axes the cores would split.
  const std::string axes = AxesPhrase(mapping, leading);
  const kernel::Function& f = *program.kernel;
  if (kernel::RefId r = kernel::ScratchCarriedAcrossPoints(f, mapping.grid, leading).ref; r >= 0) {
    const kernel::Instr* read = kernel::FirstReadOf(f.body, r);
    warn(read != nullptr ? read->span : mapping.span,
         fmt::format("scratch `{}` is read at the first step of a point of the \"parallel\" {} "
                     "before that step writes all of it, so it carries a value over from the "
                     "point before: on a megacore chip (TPU v4, v5p) the two TensorCores split "
                     "the points between them, each with scratch of its own, and the second "
                     "core's first point reads what was never written there",
                     f.refs.at(static_cast<size_t>(r)).name, axes),
         "write the whole buffer when a point starts (under `@pl.when` on the \"arbitrary\" "
         "axes' program ids being 0), or mark the axes its value flows along \"arbitrary\"; "
         "`pallas-puzzles run --cores 2` shows the race");
  }
  // Megacore hazard: an input block the kernel stores into, which stays resident from the point
  // before into a point's first step and is read there; the second core fetches it afresh.
  if (kernel::CarriedInput carried = kernel::InputCarriedAcrossPoints(
          f, mapping.grid, leading, LintBlockIndexAt(program, mapping, operands));
      carried.ref >= 0) {
    const kernel::Instr* read = kernel::FirstReadOf(f.body, carried.ref);
    const kernel::Instr* store = kernel::FirstWriteTo(f.body, carried.ref);
    const kernel::RefType& ref = f.refs.at(static_cast<size_t>(carried.ref));
    bool prefetch = ref.role == kernel::RefRole::kPrefetch;
    Diagnostic d{
        .severity = Severity::kWarning,
        .phase = Phase::kLint,
        .message =
            prefetch
                ? fmt::format(
                      "scalar-prefetch ref `{}` is read at grid step {}, where a point of the "
                      "\"parallel\" {} starts, after grid step {} may have stored into it: on a "
                      "megacore chip (TPU v4, v5p) the two TensorCores split the points between "
                      "them, each with SMEM of its own, and the core that starts at this point "
                      "reads the operand's own values, without that store",
                      ref.name, TupleString(carried.step), axes, TupleString(carried.store))
                : fmt::format(
                      "input `{}` is read at grid step {}, where a point of the \"parallel\" {} "
                      "starts, with the block grid step {} may have stored into still in its "
                      "buffer (a TPU fetches a block again only when its index changes): on a "
                      "megacore chip (TPU v4, v5p) the two TensorCores split the points between "
                      "them, and the core that starts at this point fetches the block afresh, "
                      "without those stores",
                      ref.name, TupleString(carried.step), axes, TupleString(carried.store)),
        .span = read != nullptr ? read->span : mapping.span};
    if (store != nullptr && (read == nullptr || !(store->span == read->span))) {
      d.notes.push_back({.message = "it is stored into here", .span = store->span});
    }
    d.notes.push_back({.message = fmt::format(
                           "{}; `pallas-puzzles run --cores 2` shows the difference",
                           prefetch ? kernel::kCarriedPrefetchHint : kernel::kCarriedInputHint)});
    session.warnings.push_back(std::move(d));
  }
  // Megacore hazard: DMAs of steps the two cores split between them into the same elements of
  // an array in HBM.
  if (parallel > 0) {
    // Which core runs a step, as `--cores 2` splits the grid.
    std::vector<std::pair<int64_t, int64_t>> chunks = SplitGrid(mapping.grid, parallel, 2);
    auto core_of = [&](const std::vector<int64_t>& step) {
      int64_t linear = 0;
      for (size_t a = 0; a < step.size(); ++a) linear = linear * mapping.grid[a] + step[a];
      return linear < chunks[0].second ? 0 : 1;
    };
    kernel::SharedWrite shared = kernel::AnyWrittenApart(
        f, mapping.grid, [&](const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
          return core_of(a) != core_of(b);
        });
    if (shared.ref >= 0) {
      Diagnostic d{
          .severity = Severity::kWarning,
          .phase = Phase::kLint,
          .message = fmt::format(
              "the DMAs of grid steps {} and {} both write element {} of `{}` in HBM: on a "
              "megacore chip (TPU v4, v5p) the two TensorCores split the points of the "
              "\"parallel\" {} between them, so the two copies race and which data ends up "
              "there depends on timing (one core, running every step in order, keeps the later)",
              TupleString(shared.first_step), TupleString(shared.second_step),
              TupleString(shared.element), f.refs.at(static_cast<size_t>(shared.ref)).name, axes),
          .span = shared.second->span};
      if (!(shared.first->span == shared.second->span)) {
        d.notes.push_back(
            {.message = fmt::format("the DMA of grid step {}", TupleString(shared.first_step)),
             .span = shared.first->span});
      }
      d.notes.push_back({.message = fmt::format("{}; `pallas-puzzles run --cores 2` shows the race",
                                                kernel::kSharedWriteHint)});
      session.warnings.push_back(std::move(d));
    }
  }
  // Megacore hazard: a wait at the first step of a point that takes what the point before
  // started or signalled; on the second core that signal never comes.
  if (kernel::CarriedWait carried = kernel::WaitCarriedAcrossPoints(f, mapping.grid, leading);
      carried.wait != nullptr) {
    bool dma = carried.wait->op == kernel::Op::kDmaWait;
    std::string what =
        dma ? std::string("a DMA that no earlier instruction of the step started")
            : fmt::format("a signal of semaphore `{}` that no earlier instruction of the step sent",
                          f.refs.at(static_cast<size_t>(carried.wait->ref.ref)).name);
    warn(carried.wait->span,
         fmt::format("at grid step {}, where a point of the \"parallel\" {} starts, this waits "
                     "for {}, so it takes what the point before {}: on a megacore chip (TPU v4, "
                     "v5p) the two TensorCores split the points between them, and the second "
                     "core's first point waits for what its core never {} (it hangs)",
                     TupleString(carried.step), axes, what, dma ? "started" : "signalled",
                     dma ? "started" : "signalled"),
         fmt::format("{}; `pallas-puzzles run --cores 2` runs it on two cores",
                     kernel::kCarriedWaitHint));
  }
  if (mapping.vmem_limit_bytes > 0) {
    // The call raised (or lowered) its scoped limit; a limit beyond the chip's VMEM is an error
    // on a TPU.
    const ChipInfo* chip = FindChip(EmulatedChip(session.options));
    if (chip != nullptr && mapping.vmem_limit_bytes > chip->vmem_bytes) {
      warn(mapping.span,
           fmt::format("vmem_limit_bytes={} is more than the {:.0f} MiB of VMEM a TPU {} "
                       "TensorCore has",
                       mapping.vmem_limit_bytes, chip->vmem_bytes / 1048576.0, chip->version),
           "ask for at most the chip's VMEM (pltpu.get_tpu_info().vmem_capacity_bytes)");
    }
    if (vmem > mapping.vmem_limit_bytes) {
      warn(mapping.span,
           fmt::format("this pallas_call needs about {:.1f} MiB of VMEM (double-buffered blocks "
                       "and scratch), above its vmem_limit_bytes of {:.1f} MiB",
                       vmem / 1048576.0, mapping.vmem_limit_bytes / 1048576.0),
           "use smaller blocks, or raise vmem_limit_bytes where the chip has room");
    }
  } else if (vmem > session.options.vmem_budget_bytes) {
    warn(mapping.span,
         fmt::format("this pallas_call needs about {:.1f} MiB of VMEM (double-buffered blocks "
                     "and scratch), above the {:.1f} MiB scoped budget",
                     vmem / 1048576.0, session.options.vmem_budget_bytes / 1048576.0),
         "use smaller blocks, or raise the limit with "
         "pltpu.CompilerParams(vmem_limit_bytes=...) where the chip has room");
  }
}

}  // namespace pz::tpu

// What the CUDA backend refuses, or warns of, because it runs the points of a call's parallel
// axes as chains apart (hazards.h).
#include "cuda/hazards.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kernel/carried.h"
#include "kernel/shared_writes.h"
#include "tpu/executor.h"
#include "tpu/megacore.h"

namespace pz::cuda {

namespace {

// "axis 0" or "axes 0, 1": the parallel axes of `split` with more than one point.
std::string PointAxes(const kernel::GridMapping& mapping, const GridSplit& split) {
  return tpu::AxesPhrase(mapping, split.parallel);
}

// The warning for a scratch ref whose value a chain's first step, or a step where it resumes
// after other chains' steps, would take over from another chain, at the ref's first read.
kernel::CallWarning CarriedScratchWarning(const kernel::KernelProgram& program,
                                          const kernel::GridMapping& mapping,
                                          const GridSplit& split,
                                          const kernel::CarriedScratch& carried) {
  const kernel::Function& f = *program.kernel;
  const kernel::RefType& ref = f.refs.at(static_cast<size_t>(carried.ref));
  const kernel::Instr* read = kernel::FirstReadOf(f.body, carried.ref);
  std::string named = PointAxes(mapping, split);
  kernel::CallWarning warning{.span = read != nullptr ? read->span : mapping.span};
  if (carried.resumes) {
    // A "parallel" axis inside another: the emulated TPU's step before is another point's.
    warning.message = fmt::format(
        "scratch `{}` is read at grid step {}, where its point of the \"parallel\" {} resumes "
        "after steps of others, before that step writes all of it: on the emulated TPU, which "
        "runs every step in order, it holds what the step before, of another point, left there, "
        "but the CUDA backend runs each point of the \"parallel\" {} as a chain of its own, on "
        "its own CUDA block, where it holds what this point's own steps left",
        ref.name, tpu::TupleString(carried.step), named, named);
    warning.notes = {fmt::format(
        "{}, or keep each point's state apart (a scratch with a leading dimension indexed by the "
        "point's program id); or mark the axes its value flows along \"arbitrary\"",
        kernel::kResumedHint)};
    return warning;
  }
  warning.message = fmt::format(
      "scratch `{}` is read {} before that step writes all of it: on the emulated TPU, which "
      "runs every step in order, it holds what the point before left there, but the CUDA "
      "backend runs each point of the \"parallel\" {} as a chain of its own, on its own CUDA "
      "block, and this read sees something else",
      ref.name,
      split.sequential.empty() ? "at every grid step"
                               : "at the first step of a point of the \"parallel\" " + named,
      named);
  warning.notes = {split.sequential.empty()
                       ? "write the whole buffer in each step before reading it, or mark the "
                         "axes the steps depend on \"arbitrary\""
                       : "write the whole buffer before reading it when the step starts a point "
                         "(under `@pl.when` on the \"arbitrary\" axes' program ids being 0), or "
                         "mark the axes its value flows along \"arbitrary\"",
                   "a megacore TPU (v4, v5p) splits \"parallel\" axes between its two "
                   "TensorCores, each with scratch of its own: `pallas-puzzles run --cores 2` "
                   "shows what that does to this kernel"};
  return warning;
}

// The warning for an input block that a chain's first step reads with the stores of the chain
// before still in it on the emulated TPU, at the input's first read.
kernel::CallWarning CarriedInputWarning(const kernel::KernelProgram& program,
                                        const kernel::GridMapping& mapping, const GridSplit& split,
                                        const kernel::CarriedInput& carried) {
  const kernel::Function& f = *program.kernel;
  const kernel::Instr* read = kernel::FirstReadOf(f.body, carried.ref);
  std::string named = PointAxes(mapping, split);
  const kernel::RefType& ref = f.refs.at(static_cast<size_t>(carried.ref));
  // Where the read is: a point's first step, or a step where its point resumes after steps of
  // others (a "parallel" axis inside another).
  std::string where =
      carried.resumes
          ? fmt::format("where its point of the \"parallel\" {} resumes after steps of others",
                        named)
          : fmt::format("where a point of the \"parallel\" {} starts", named);
  if (ref.role == kernel::RefRole::kPrefetch) {
    return kernel::CallWarning{
        .message = fmt::format(
            "scalar-prefetch ref `{}` is read at grid step {}, {}, after grid step {} may have "
            "stored into it: on the "
            "emulated TPU, which runs every step in order, this read sees that store, but the "
            "CUDA backend runs each point of the \"parallel\" {} as a chain of its own, on its "
            "own CUDA block, which starts from a copy of its own of the operand as the call "
            "passed it: this read does not see that store",
            ref.name, tpu::TupleString(carried.step), where, tpu::TupleString(carried.store),
            named),
        .span = read != nullptr ? read->span : mapping.span,
        .notes = {std::string(kernel::kCarriedPrefetchHint),
                  "a megacore TPU (v4, v5p) splits \"parallel\" axes between its two "
                  "TensorCores, each with SMEM of its own: `pallas-puzzles run --cores 2` shows "
                  "what that does to this kernel"}};
  }
  kernel::CallWarning warning{
      .message = fmt::format(
          "input `{}` is read at grid step {}, {}, with the block grid step {} may have stored "
          "into still in its buffer: on the "
          "emulated TPU, which runs every step in order and fetches a block again only when its "
          "index changes, this read sees those stores, but the CUDA backend runs each point of "
          "the \"parallel\" {} as a chain of its own, on its own CUDA block, {}",
          ref.name, tpu::TupleString(carried.step), where, tpu::TupleString(carried.store), named,
          carried.resumes ? "whose buffer holds only what this point's own steps fetched and "
                            "stored there"
                          : "which fetches the block afresh"),
      .span = read != nullptr ? read->span : mapping.span,
      .notes = {std::string(kernel::kCarriedInputHint)}};
  // (A megacore TPU splits only the leading "parallel" axes, where a point's steps run together.)
  if (!carried.resumes) {
    warning.notes.push_back(
        "a megacore TPU (v4, v5p) splits \"parallel\" axes between its two TensorCores, each "
        "with block buffers of its own: `pallas-puzzles run --cores 2` shows what that does to "
        "this kernel");
  }
  return warning;
}

}  // namespace

// Every grid step's block indices are computed before the kernel starts (plan.h's step table),
// from the scalar-prefetch arrays as the call passed them: a kernel that writes one that an index
// map reads would steer later steps on the emulated TPU (as on a TPU), and not here. Refused at
// the write, before the table's own errors.
void CheckPrefetchWrites(const kernel::KernelProgram& program, const kernel::GridMapping& mapping) {
  for (size_t p = 0; p < mapping.prefetch.size(); ++p) {
    const kernel::Instr* write =
        kernel::FirstWriteTo(program.kernel->body, static_cast<kernel::RefId>(p));
    if (write == nullptr) continue;
    for (size_t k = 0; k < mapping.inputs.size() + mapping.outputs.size(); ++k) {
      const kernel::BlockMapping& op = mapping.operand(k);
      if (!op.index_map ||
          !kernel::FirstReadOf(op.index_map->body, static_cast<kernel::RefId>(p))) {
        continue;
      }
      throw kernel::CallError{
          .kind = kernel::CallError::Kind::kRuntimeError,
          .message = fmt::format(
              "the CUDA backend cannot run a kernel that writes the scalar-prefetch ref `{}`: the "
              "index map of `{}` reads it, and the CUDA backend computes every grid step's block "
              "indices before the kernel runs",
              mapping.prefetch[p].name, op.name),
          .span = write->span,
          .notes = {"keep state the kernel updates in a scratch ref (pltpu.SMEM(...) in "
                    "scratch_shapes), or run this kernel on the emulated TPU (without `--backend "
                    "cuda`)"}};
    }
  }
}

// Refuses a kernel whose wait, at the first step of a chain of `split`, takes a DMA or a signal
// of the chain before (kernel::WaitCarriedAcrossPoints): the CUDA blocks run their chains apart,
// so that the wait would never end.
void CheckWaitsWithinChains(const kernel::KernelProgram& program,
                            const kernel::GridMapping& mapping, const GridSplit& split) {
  const kernel::Function& f = *program.kernel;
  kernel::CarriedWait carried = kernel::WaitCarriedAcrossPoints(f, mapping.grid, split.parallel);
  if (carried.wait == nullptr) return;
  const kernel::RefId sem = carried.wait->ref.ref;
  bool dma = carried.wait->op == kernel::Op::kDmaWait;
  std::string what =
      fmt::format("{} `{}` that no earlier instruction of the step {}",
                  dma ? "a DMA on semaphore" : "a signal of semaphore",
                  f.refs.at(static_cast<size_t>(sem)).name, dma ? "started" : "sent");
  kernel::CallError error{.kind = kernel::CallError::Kind::kRuntimeError,
                          .span = carried.wait->span};
  if (carried.resumes) {
    // A "parallel" axis inside another: the emulated TPU's step before is another point's.
    error.message = fmt::format(
        "the CUDA backend cannot run this wait: it runs each point of the \"parallel\" {} as a "
        "CUDA block of its own, and at grid step {}, where its point resumes after steps of "
        "others, this waits for {}, which a step of another point may have {}: on the emulated "
        "TPU, which runs every step in order, the wait may take that, but here it would take "
        "only what this point's own steps {}, or wait for another block",
        PointAxes(mapping, split), tpu::TupleString(carried.step), what, dma ? "started" : "sent",
        dma ? "started" : "sent");
    error.notes = {fmt::format("{}, which the CUDA backend runs in order in one block; or {}",
                               kernel::kCarriedWaitHint, kernel::kResumedHint)};
  } else {
    error.message = fmt::format(
        "the CUDA backend cannot run this wait: it runs each point of the \"parallel\" {} "
        "as a CUDA block of its own, and at grid step {}, where a point starts, this waits for "
        "{}, so it would wait for another block",
        PointAxes(mapping, split), tpu::TupleString(carried.step), what);
    error.notes = {fmt::format("{}, which the CUDA backend runs in order in one block",
                               kernel::kCarriedWaitHint),
                   "a megacore TPU (v4, v5p) splits \"parallel\" axes between its two "
                   "TensorCores and hangs on this kernel: `pallas-puzzles run --cores 2` runs it "
                   "on two cores"};
  }
  // Where the point before may have signalled it: each start or signal naming the semaphore.
  std::function<void(const kernel::Region&)> signals = [&](const kernel::Region& region) {
    for (const kernel::Instr& instr : region.body) {
      if ((instr.op == kernel::Op::kDmaStart || instr.op == kernel::Op::kSemaphoreSignal) &&
          instr.ref.ref == sem && error.related.size() < 3) {
        error.related.push_back(
            {.message = dma ? "a DMA on that semaphore starts here" : "it is signalled here",
             .span = instr.span});
      }
      for (const kernel::Region& inner : instr.regions) signals(inner);
    }
  };
  signals(f.body);
  throw error;
}

std::vector<kernel::CallWarning> ChainWarnings(const kernel::KernelProgram& program,
                                               const kernel::GridMapping& mapping,
                                               const GridSplit& split, const StepTable& table,
                                               const TableLayout& layout) {
  std::vector<kernel::CallWarning> warnings;
  if (split.chains <= 1) return warnings;
  const kernel::Function& f = *program.kernel;
  if (kernel::CarriedScratch carried =
          kernel::ScratchCarriedAcrossPoints(f, mapping.grid, split.parallel);
      carried.ref >= 0) {
    warnings.push_back(CarriedScratchWarning(program, mapping, split, carried));
  }
  // A draw from the core generator where a chain resumes: the chain's generator goes on from its
  // own draws. (At a chain's first step it is unseeded, and the device faults at the draw.)
  if (kernel::CarriedDraw draw = kernel::DrawCarriedAcrossPoints(f, mapping.grid, split.parallel);
      draw.draw != nullptr && draw.resumes) {
    std::string named = PointAxes(mapping, split);
    warnings.push_back(kernel::CallWarning{
        .message = fmt::format(
            "pltpu.prng_random_bits at grid step {}, where its point of the \"parallel\" {} "
            "resumes after steps of others, draws before the step seeds the generator: on the "
            "emulated TPU, which runs every step on one core, it draws from the generator as the "
            "step before, of another point, left it, but the CUDA backend runs each point of the "
            "\"parallel\" {} as a chain of its own, on its own CUDA block, whose generator goes "
            "on from this point's own draws",
            tpu::TupleString(draw.step), named, named),
        .span = draw.draw->span,
        .notes = {std::string(kernel::kCarriedDrawHint)}});
  }
  // An input's block at a grid step: its window's starts in the step table (rows found by their
  // grid step, indexed only when a kernel stores into an input and asks).
  std::vector<int64_t> row_of;
  auto block_at = [&](kernel::RefId r,
                      const std::vector<int64_t>& step) -> std::optional<std::vector<int64_t>> {
    if (row_of.empty()) {
      row_of.assign(table.linear_step.size(), -1);
      for (size_t row = 0; row < table.linear_step.size(); ++row) {
        row_of[static_cast<size_t>(table.linear_step[row])] = static_cast<int64_t>(row);
      }
    }
    int64_t k = static_cast<int64_t>(r) - static_cast<int64_t>(mapping.prefetch.size());
    if (k < 0) return std::vector<int64_t>{};  // a scalar-prefetch ref: all of it, all along
    if (k >= static_cast<int64_t>(mapping.inputs.size())) return std::nullopt;
    int64_t column = layout.operand_column[static_cast<size_t>(k)];
    if (column < 0) return std::nullopt;
    int64_t linear = 0;
    for (size_t a = 0; a < mapping.grid.size(); ++a) linear = linear * mapping.grid[a] + step[a];
    if (linear < 0 || static_cast<size_t>(linear) >= row_of.size() ||
        row_of[static_cast<size_t>(linear)] < 0) {
      return std::nullopt;
    }
    const int64_t* starts =
        table.rows.data() + row_of[static_cast<size_t>(linear)] * table.columns + column;
    return std::vector<int64_t>(starts,
                                starts + mapping.inputs[static_cast<size_t>(k)].shape.size());
  };
  if (kernel::CarriedInput carried =
          kernel::InputCarriedAcrossPoints(f, mapping.grid, split.parallel, block_at);
      carried.ref >= 0) {
    warnings.push_back(CarriedInputWarning(program, mapping, split, carried));
  }
  // DMAs of two chains into the same elements of an array in HBM.
  kernel::SharedWrite shared = kernel::AnyWrittenApart(
      f, mapping.grid, [&](const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
        for (int axis : split.parallel) {
          if (a[static_cast<size_t>(axis)] != b[static_cast<size_t>(axis)]) return true;
        }
        return false;
      });
  if (shared.ref >= 0) {
    std::string named = PointAxes(mapping, split);
    warnings.push_back(kernel::CallWarning{
        .message = fmt::format(
            "the DMAs of grid steps {} and {} both write element {} of `{}` in HBM: on the "
            "emulated TPU, which runs every step in order, the later copy's data stays, but the "
            "CUDA backend runs each point of the \"parallel\" {} as a chain of its own, on its "
            "own CUDA block, so the two copies race and which data ends up there depends on "
            "timing",
            tpu::TupleString(shared.first_step), tpu::TupleString(shared.second_step),
            tpu::TupleString(shared.element), f.refs.at(static_cast<size_t>(shared.ref)).name,
            named),
        .span = shared.second->span,
        .notes = {std::string(kernel::kSharedWriteHint),
                  "a megacore TPU (v4, v5p) splits \"parallel\" axes between its two "
                  "TensorCores, which race the same way: `pallas-puzzles run --cores 2` reports "
                  "it"}});
  }
  return warnings;
}

}  // namespace pz::cuda

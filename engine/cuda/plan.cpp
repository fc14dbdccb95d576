// The grid split and step table of a call on CUDA (see plan.h).
#include "cuda/plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "support/check.h"
#include "tpu/block_index.h"
#include "tpu/executor.h"

namespace pz::cuda {

namespace {

// An error of the step table at a grid step, where the emulated TPU, which runs the grid in
// row-major order, would raise it: at which step, for which operand (in the order the emulator
// enters their blocks), and whether after that operand's bounds check (a revisit).
struct StepError {
  int64_t linear = 0;
  size_t operand = 0;
  bool revisit = false;
  kernel::CallError error;

  bool Before(const StepError& other) const {
    return std::tie(linear, operand, revisit) <
           std::tie(other.linear, other.operand, other.revisit);
  }
};

// Keeps the earlier of two errors.
void KeepFirst(std::optional<StepError>& first, StepError error) {
  if (!first || error.Before(*first)) first = std::move(error);
}

// Fills the fetch columns (TableLayout::fetch_column): whether the emulated TPU, running the grid
// in row-major order, fetches an input's block at some step after the chain's step before this
// row and up to it (its block index changes from the step before there), or this row starts a
// chain.
void MarkFetches(const kernel::GridMapping& mapping, const GridSplit& split,
                 const TableLayout& layout, StepTable& table) {
  int64_t total = static_cast<int64_t>(table.linear_step.size());
  std::vector<int64_t> row_of(static_cast<size_t>(total));
  for (int64_t row = 0; row < total; ++row) {
    row_of[static_cast<size_t>(table.linear_step[static_cast<size_t>(row)])] = row;
  }
  for (size_t k = 0; k < layout.fetch_column.size(); ++k) {
    int64_t flag = layout.fetch_column[k];
    if (flag < 0) continue;
    int64_t column = layout.operand_column[k];
    auto rank = static_cast<int64_t>(mapping.operand(k).shape.size());
    auto starts = [&](int64_t linear) {
      return table.rows.data() + row_of[static_cast<size_t>(linear)] * table.columns + column;
    };
    // fetches[m]: the fetches at grid steps 1 to m (the first step's is the chain's own).
    std::vector<int64_t> fetches(static_cast<size_t>(total), 0);
    for (int64_t m = 1; m < total; ++m) {
      bool moved = !std::equal(starts(m), starts(m) + rank, starts(m - 1));
      fetches[static_cast<size_t>(m)] = fetches[static_cast<size_t>(m - 1)] + (moved ? 1 : 0);
    }
    for (int64_t row = 0; row < total; ++row) {
      bool first = row % split.steps_per_chain == 0;
      int64_t now = table.linear_step[static_cast<size_t>(row)];
      int64_t before = first ? 0 : table.linear_step[static_cast<size_t>(row - 1)];
      table.rows[static_cast<size_t>(row * table.columns + flag)] =
          first || fetches[static_cast<size_t>(now)] > fetches[static_cast<size_t>(before)] ? 1 : 0;
    }
  }
}

// The first output block left and come back to in the grid's order, an error as on the emulated
// TPU (which runs the grid in row-major order whatever the split here); outputs an input aliases
// are not judged there either.
std::optional<StepError> FirstRevisit(const kernel::GridMapping& mapping, const StepTable& table,
                                      const std::vector<int64_t>& operand_column) {
  int64_t total = static_cast<int64_t>(table.linear_step.size());
  std::vector<int64_t> row_of(static_cast<size_t>(total));
  for (int64_t row = 0; row < total; ++row) {
    row_of[static_cast<size_t>(table.linear_step[static_cast<size_t>(row)])] = row;
  }
  size_t rank = mapping.grid.size();
  std::optional<StepError> first;
  for (size_t o = 0; o < mapping.outputs.size(); ++o) {
    size_t k = mapping.inputs.size() + o;
    bool aliased = std::any_of(mapping.aliases.begin(), mapping.aliases.end(),
                               [&](const auto& entry) { return entry.second == int(o); });
    if (operand_column[k] < 0 || aliased) continue;
    const kernel::BlockMapping& op = mapping.outputs[o];
    using Point = std::vector<int64_t>;
    std::map<Point, std::pair<Point, Point>> seen;  // block -> first and last grid point
    Point current;
    for (int64_t step = 0; step < total; ++step) {
      const int64_t* r = table.rows.data() + row_of[static_cast<size_t>(step)] * table.columns;
      Point point(r, r + rank), block;
      for (size_t d = 0; d < op.block.size(); ++d) {
        block.push_back(op.block[d].IndexOfStart(r[operand_column[k] + static_cast<int64_t>(d)]));
      }
      if (step > 0 && block == current) {
        seen[block].second = point;
        continue;
      }
      if (auto it = seen.find(block); it != seen.end()) {
        kernel::CallError error{
            .kind = kernel::CallError::Kind::kIndexError,
            .message = fmt::format(
                "Revisited block {} of output {} in grid step {}. The block was previously "
                "visited in grid steps {} through {}",
                tpu::TupleString(block), op.name, tpu::TupleString(point),
                tpu::TupleString(it->second.first), tpu::TupleString(it->second.second)),
            .span = op.span,
            .notes = {"an output block is written back to HBM when the pipeline moves to another "
                      "block, and never read back: coming back to it later starts from a fresh, "
                      "uninitialised buffer and overwrites the earlier result",
                      "make all grid steps that write one output block consecutive: the grid axes "
                      "that do not move it (reductions) go last, marked \"arbitrary\", after every "
                      "axis that picks the block"}};
        KeepFirst(first,
                  {.linear = step, .operand = k, .revisit = true, .error = std::move(error)});
        break;
      }
      seen[block] = {point, point};
      current = block;
    }
  }
  return first;
}

// An output whose block buffer the kernel may read before writing it whole at some step: the
// buffer then carries what the step before left in it (the last block's values, as on a TPU and
// in JAX's interpret mode), state between steps. -1 when there is none.
kernel::RefId OutputReadBeforeWritten(const kernel::Function& f) {
  for (size_t r = 0; r < f.refs.size(); ++r) {
    const kernel::RefType& ref = f.refs[r];
    if (ref.role != kernel::RefRole::kOutput || ref.space == kernel::MemorySpace::kAny) continue;
    if (!WrittenWholeBeforeRead(f, static_cast<kernel::RefId>(r))) {
      return static_cast<kernel::RefId>(r);
    }
  }
  return -1;
}

// Whether the kernel keeps state from one grid step to the next: why, or "".
std::string StatefulReason(const kernel::KernelProgram& program) {
  const kernel::Function& f = *program.kernel;
  for (const kernel::RefType& ref : f.refs) {
    if (ref.role == kernel::RefRole::kScratch) return "it has scratch buffers";
  }
  std::string reason;
  std::function<void(const kernel::Region&)> walk = [&](const kernel::Region& region) {
    for (const kernel::Instr& instr : region.body) {
      if (!reason.empty()) return;
      if (instr.op == kernel::Op::kDmaStart) reason = "it starts DMAs";
      if (instr.op == kernel::Op::kStore) {
        kernel::RefRole role = f.refs.at(static_cast<size_t>(instr.ref.ref)).role;
        if (role == kernel::RefRole::kInput || role == kernel::RefRole::kPrefetch) {
          reason = "it stores into an input";
        }
      }
      for (const kernel::Region& r : instr.regions) walk(r);
    }
  };
  walk(f.body);
  if (!reason.empty()) return reason;
  if (kernel::RefId r = OutputReadBeforeWritten(f); r >= 0) {
    return fmt::format("it reads `{}` before writing all of it",
                       f.refs.at(static_cast<size_t>(r)).name);
  }
  return reason;
}

}  // namespace

namespace {

// Whether the window of `op` may move along grid axis `axis`: its index map reads that index.
bool MovesAlong(const kernel::BlockMapping& op, int axis) {
  if (!op.index_map) return false;
  kernel::DirectMap direct = kernel::AnalyzeIndexMap(*op.index_map);
  if (direct.ok) {
    return std::any_of(direct.entries.begin(), direct.entries.end(),
                       [&](const auto& entry) { return entry.first == axis; });
  }
  const kernel::Function& f = *op.index_map;
  if (static_cast<size_t>(axis) >= f.body.params.size()) return false;
  kernel::ValueId id = f.body.params[static_cast<size_t>(axis)];
  std::function<bool(const kernel::Region&)> reads = [&](const kernel::Region& region) {
    if (std::find(region.yields.begin(), region.yields.end(), id) != region.yields.end()) {
      return true;
    }
    for (const kernel::Instr& instr : region.body) {
      if (std::find(instr.operands.begin(), instr.operands.end(), id) != instr.operands.end()) {
        return true;
      }
      for (const kernel::Region& inner : instr.regions) {
        if (reads(inner)) return true;
      }
    }
    return false;
  };
  return reads(f.body);
}

}  // namespace

bool LeftoverUnseen(const kernel::Function& kernel, const kernel::GridMapping& mapping, size_t k) {
  const kernel::BlockMapping& op = mapping.operand(k);
  // A visit's last step: the axes the window does not move along at their last index (the
  // visits of a window are consecutive).
  std::map<int, int64_t> last;
  for (size_t a = 0; a < mapping.grid.size(); ++a) {
    if (!MovesAlong(op, static_cast<int>(a))) last[static_cast<int>(a)] = mapping.grid[a] - 1;
  }
  auto ref = static_cast<kernel::RefId>(mapping.prefetch.size() + k);
  return kernel::StoredWholeAt(kernel, ref, std::move(last));
}

GridSplit SplitGridForCuda(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                           bool fresh_starts, bool zeroed) {
  GridSplit split;
  size_t rank = mapping.grid.size();
  std::vector<bool> parallel(rank, false);
  if (!mapping.dimension_semantics.empty()) {
    for (size_t a = 0; a < rank && a < mapping.dimension_semantics.size(); ++a) {
      const std::string& s = mapping.dimension_semantics[a];
      parallel[a] = s == "parallel" || s == "core_parallel";
    }
    split.note = "parallel axes from dimension_semantics";
  } else if (std::string reason = StatefulReason(program); !reason.empty()) {
    split.note = "no dimension_semantics and " + reason +
                 ": every axis runs in order, on one CUDA block (mark the independent axes "
                 "\"parallel\" to spread them over the GPU)";
  } else {
    // Axes every output's index map returns as they are: distinct points write distinct blocks.
    parallel.assign(rank, true);
    for (const kernel::BlockMapping& op : mapping.outputs) {
      std::vector<bool> seen(rank, false);
      kernel::DirectMap direct =
          op.index_map ? kernel::AnalyzeIndexMap(*op.index_map) : kernel::DirectMap{.ok = true};
      if (!direct.ok || op.space == kernel::MemorySpace::kAny) seen.assign(rank, false);
      for (const auto& [axis, value] : direct.entries) {
        if (axis >= 0) seen[static_cast<size_t>(axis)] = true;
      }
      for (size_t a = 0; a < rank; ++a) parallel[a] = parallel[a] && seen[a];
    }
    split.note = "no dimension_semantics: the axes each output's index map follows run in parallel";
  }
  // With zeroed memory, an axis starts afresh only where no output buffer shows what an earlier
  // iteration left in it (chains apart start with fresh buffers).
  for (size_t k = mapping.inputs.size();
       zeroed && fresh_starts && k < mapping.inputs.size() + mapping.outputs.size(); ++k) {
    if (mapping.operand(k).space == kernel::MemorySpace::kAny) continue;
    fresh_starts = LeftoverUnseen(*program.kernel, mapping, k);
  }
  if (fresh_starts) {
    std::vector<int> sequential;
    for (size_t a = 0; a < rank; ++a) {
      if (!parallel[a]) sequential.push_back(static_cast<int>(a));
    }
    // The outermost of them, while each starts afresh: every chain is then a run of consecutive
    // steps of a chain before, and at its first step the state of the run before it is dead.
    std::vector<std::string> named;
    for (int a : sequential) {
      if (mapping.grid[static_cast<size_t>(a)] > 1 && !FreshStart(*program.kernel, a, sequential)) {
        break;
      }
      parallel[static_cast<size_t>(a)] = true;
      if (mapping.grid[static_cast<size_t>(a)] <= 1) continue;
      split.fresh.push_back(a);
      named.push_back(std::to_string(a));
    }
    if (!named.empty()) {
      split.note += fmt::format(
          "; axis {} too: each of {} iterations writes the scratch and output buffers whole "
          "before reading them",
          fmt::join(named, ", "), named.size() == 1 ? "its" : "their");
    }
  }
  for (size_t a = 0; a < rank; ++a) {
    (parallel[a] ? split.parallel : split.sequential).push_back(static_cast<int>(a));
    (parallel[a] ? split.chains : split.steps_per_chain) *= mapping.grid[a];
  }
  return split;
}

TableLayout LayoutOf(const kernel::Function& kernel, const kernel::GridMapping& mapping) {
  TableLayout layout{.columns = static_cast<int64_t>(mapping.grid.size())};
  for (size_t k = 0; k < mapping.inputs.size() + mapping.outputs.size(); ++k) {
    const kernel::BlockMapping& op = mapping.operand(k);
    if (op.space == kernel::MemorySpace::kAny) {
      layout.operand_column.push_back(-1);
      continue;
    }
    layout.operand_column.push_back(layout.columns);
    layout.columns += static_cast<int64_t>(op.shape.size());
  }
  for (size_t k = 0; k < mapping.inputs.size() + mapping.outputs.size(); ++k) {
    auto r = static_cast<kernel::RefId>(mapping.prefetch.size() + k);
    bool stored = k < mapping.inputs.size() && layout.operand_column[k] >= 0 &&
                  kernel::FirstWriteTo(kernel.body, r) != nullptr;
    layout.fetch_column.push_back(stored ? layout.columns++ : -1);
  }
  return layout;
}

StepTable BuildStepTable(const kernel::GridMapping& mapping, const kernel::CallOperands& operands,
                         GridSplit& split, const TableLayout& layout, const kernel::RunOptions& run,
                         bool past_edge) {
  const int64_t columns = layout.columns;
  const std::vector<int64_t>& operand_column = layout.operand_column;
  size_t rank = mapping.grid.size();
  int64_t total = mapping.num_steps();
  if (total * std::max<int64_t>(columns, 1) > (int64_t{1} << 27)) {
    throw kernel::CallError{.kind = kernel::CallError::Kind::kValueError,
                            .message = fmt::format("a grid of {} steps is too large for the CUDA "
                                                   "backend's step table",
                                                   total),
                            .span = mapping.span};
  }
  // Index maps run on the reference executor over the prefetch arrays.
  std::vector<tpu::RefBuffer> prefetch;
  for (const array::Array& a : operands.prefetch) prefetch.push_back({.data = tpu::Copy(a)});
  std::vector<int64_t> point(rank, 0);
  tpu::ExecContext ctx;
  ctx.grid_point = &point;
  ctx.tick = run.tick;
  for (tpu::RefBuffer& b : prefetch) ctx.refs.push_back(&b);
  size_t num_operands = mapping.inputs.size() + mapping.outputs.size();
  std::vector<tpu::BlockIndexer> indexers;
  for (size_t k = 0; k < num_operands; ++k) indexers.emplace_back(mapping.operand(k), ctx);

  std::optional<StepError> first_error;  // the call's first error in the grid's order
  auto fill = [&](StepTable& table) {
    table.columns = columns;
    table.rows.assign(static_cast<size_t>(total * columns), 0);
    table.linear_step.assign(static_cast<size_t>(total), 0);
    std::vector<int64_t> index;
    kernel::BlockWindow window;
    for (int64_t row = 0; row < total; ++row) {
      int64_t chain = row / split.steps_per_chain, step = row % split.steps_per_chain;
      // The grid point: the chain's parallel coordinates, the step's sequential ones.
      for (size_t i = split.parallel.size(); i-- > 0;) {
        int a = split.parallel[i];
        point[static_cast<size_t>(a)] = chain % mapping.grid[static_cast<size_t>(a)];
        chain /= mapping.grid[static_cast<size_t>(a)];
      }
      for (size_t i = split.sequential.size(); i-- > 0;) {
        int a = split.sequential[i];
        point[static_cast<size_t>(a)] = step % mapping.grid[static_cast<size_t>(a)];
        step /= mapping.grid[static_cast<size_t>(a)];
      }
      int64_t linear = 0;
      for (size_t a = 0; a < rank; ++a) linear = linear * mapping.grid[a] + point[a];
      table.linear_step[static_cast<size_t>(row)] = linear;
      int64_t* r = table.rows.data() + row * columns;
      for (size_t a = 0; a < rank; ++a) r[a] = point[a];
      for (size_t k = 0; k < num_operands; ++k) {
        if (operand_column[k] < 0) continue;
        const kernel::BlockMapping& op = mapping.operand(k);
        indexers[k].At(point, index);
        window.start.clear();
        window.size.clear();
        for (size_t d = 0; d < op.block.size(); ++d) {
          int64_t start = op.block[d].WindowStart(index[d]);
          window.start.push_back(start);
          window.size.push_back(op.block[d].WindowSize());
          r[operand_column[k] + static_cast<int64_t>(d)] = start;
        }
        // A window wholly outside its array is the call's error, as on the emulated TPU (the
        // same message). Parts of a split point (past_edge) may lie past the end of a blocked
        // dimension: they run in the padding of their block and write nothing.
        // The first such step in the grid's order is the one raised, as there.
        int outside = kernel::OutsideDimension(op, window, past_edge);
        if (outside >= 0 && (!first_error || linear <= first_error->linear)) {
          kernel::BlockIndexError error =
              kernel::OutOfBoundsBlock(mapping, op, point, index, window, outside);
          KeepFirst(first_error, {.linear = linear,
                                  .operand = k,
                                  .error = {.kind = kernel::CallError::Kind::kIndexError,
                                            .message = std::move(error.message),
                                            .span = error.span,
                                            .notes = std::move(error.notes)}});
        }
      }
    }
  };
  StepTable table;
  fill(table);
  if (std::optional<StepError> revisit = FirstRevisit(mapping, table, operand_column)) {
    KeepFirst(first_error, *std::move(revisit));
  }
  if (first_error) throw first_error->error;
  MarkFetches(mapping, split, layout, table);
  if (split.chains <= 1) return table;
  // Two chains must never write one output window: that would race on the GPU.
  for (size_t k = mapping.inputs.size(); k < num_operands; ++k) {
    if (operand_column[k] < 0) continue;
    size_t rank_k = mapping.operand(k).shape.size();
    std::map<std::vector<int64_t>, int64_t> owner;
    for (int64_t row = 0; row < total; ++row) {
      const int64_t* r = table.rows.data() + row * columns + operand_column[k];
      std::vector<int64_t> window(r, r + rank_k);
      int64_t chain = row / split.steps_per_chain;
      auto [it, fresh] = owner.emplace(window, chain);
      if (!fresh && it->second != chain) {
        split.note = fmt::format(
            "every axis runs in order: `{}` is written at one block from two points of the "
            "parallel axes",
            mapping.operand(k).name);
        split.sequential.clear();
        for (size_t a = 0; a < rank; ++a) split.sequential.push_back(static_cast<int>(a));
        split.parallel.clear();
        split.chains = 1;
        split.steps_per_chain = total;
        StepTable serial;
        fill(serial);
        MarkFetches(mapping, split, layout, serial);
        return serial;
      }
    }
  }
  return table;
}

}  // namespace pz::cuda

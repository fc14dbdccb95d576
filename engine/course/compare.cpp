#include "course/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "array/dtype.h"
#include "array/element.h"
#include "array/print.h"
#include "tpu/executor.h"

namespace pz::course {

std::string IndexString(const std::vector<int64_t>& index) {
  std::string s = "[";
  for (size_t i = 0; i < index.size(); ++i) s += (i ? ", " : "") + std::to_string(index[i]);
  return s + "]";
}

std::string ValueString(array::DType dtype, double value) {
  if (std::isnan(value)) return "nan";
  return array::IsFloating(dtype) ? fmt::format("{:.6g}", value)
                                  : array::FormatScalar(dtype, value);
}

namespace {

using array::Array;
using array::Shape;

// Maps larger than this (rows x columns of blocks) are cut, with a note.
constexpr int64_t kMaxMapRows = 16;
constexpr int64_t kMaxMapColumns = 8;
// Leading-dimension slices of a rank > 2 block map drawn at most.
constexpr int kMaxMaps = 3;
// Wrong blocks searched for "holds another block's values" at most (each is compared with every
// reference block of the same size).
constexpr int kMaxMovedSearches = 8;
constexpr int64_t kMaxMovedCandidates = 256;

std::string ShapeString(const Shape& shape) { return tpu::TupleString(shape); }

enum class BlockStatus { kOk, kWrong, kNaN, kNever };

struct BlockInfo {
  BlockStatus status = BlockStatus::kOk;
  int64_t step = -1;  // the latest grid step that wrote any of its elements
  bool any_bad = false, any_nan = false, all_never = true;
};

// Draws the block map of `actual` (see the file comment) and appends its lines.
class BlockMap {
 public:
  BlockMap(const std::vector<double>& actual, const std::vector<double>& expected,
           const std::vector<uint8_t>& bad, const Shape& shape, Tolerance tol,
           const tpu::OutputRecord& record)
      : actual_(actual),
        expected_(expected),
        bad_(bad),
        shape_(shape),
        tol_(tol),
        record_(record) {}

  void set_first_write(std::string where) { first_write_ = std::move(where); }

  // False when the map cannot be drawn (too many blocks).
  bool Build() {
    size_t rank = shape_.size();
    int64_t total = 1;
    for (size_t d = 0; d < rank; ++d) {
      int64_t b = std::max<int64_t>(record_.block[d], 1);
      block_.push_back(std::min(b, std::max<int64_t>(shape_[d], 1)));
      blocks_.push_back((shape_[d] + block_[d] - 1) / block_[d]);
      total *= std::max<int64_t>(blocks_.back(), 1);
    }
    if (total > (int64_t{1} << 16)) return false;
    info_.assign(static_cast<size_t>(total), BlockInfo{});
    const int32_t* writer = record_.writer.data<int32_t>();
    // Row by row (the last dimension), each row cut into its blocks' runs.
    int64_t columns = rank == 0 ? 1 : shape_[rank - 1];
    int64_t width = rank == 0 ? 1 : block_[rank - 1];
    size_t lead = rank == 0 ? 0 : rank - 1;
    std::vector<int64_t> row(lead, 0);  // the row's index in the leading dimensions
    for (size_t start = 0; start < actual_.size(); start += static_cast<size_t>(columns)) {
      size_t base = 0;
      for (size_t d = 0; d < lead; ++d) {
        base = base * static_cast<size_t>(blocks_[d]) + static_cast<size_t>(row[d] / block_[d]);
      }
      if (rank > 0) base *= static_cast<size_t>(blocks_[rank - 1]);
      for (int64_t c = 0; c < columns; c += width) {
        BlockInfo& info = info_[base + static_cast<size_t>(c / width)];
        size_t end = start + static_cast<size_t>(std::min(c + width, columns));
        for (size_t i = start + static_cast<size_t>(c); i < end; ++i) {
          info.any_bad |= bad_[i] != 0;
          info.any_nan |= bad_[i] && std::isnan(actual_[i]);
          info.all_never &= writer[i] == -1;  // -2: the aliased input's value
          info.step = std::max<int64_t>(info.step, writer[i]);
        }
      }
      for (size_t d = lead; d-- > 0;) {
        if (++row[d] < shape_[d]) break;
        row[d] = 0;
      }
    }
    for (BlockInfo& info : info_) {
      info.status = !info.any_bad    ? BlockStatus::kOk
                    : info.all_never ? BlockStatus::kNever
                    : info.any_nan   ? BlockStatus::kNaN
                                     : BlockStatus::kWrong;
    }
    return true;
  }

  void Render(std::vector<std::string>& lines) const {
    size_t rank = shape_.size();
    lines.push_back(fmt::format("output `{}` of pallas_call `{}`: {} in blocks of {}, grid {}",
                                record_.operand, record_.call, ShapeString(shape_),
                                ShapeString(block_), tpu::TupleString(record_.grid)));
    // Leading block dimensions (all but the last two) select one 2-D map each.
    size_t lead = rank > 2 ? rank - 2 : 0;
    std::vector<int64_t> lead_dims(blocks_.begin(), blocks_.begin() + lead);
    int64_t maps = 1;
    for (int64_t n : lead_dims) maps *= n;
    int64_t per_map = static_cast<int64_t>(info_.size()) / std::max<int64_t>(maps, 1);
    int drawn = 0, skipped = 0;
    for (int64_t m = 0; m < maps; ++m) {
      bool all_ok = std::all_of(info_.begin() + m * per_map, info_.begin() + (m + 1) * per_map,
                                [](const BlockInfo& b) { return b.status == BlockStatus::kOk; });
      if (all_ok && maps > 1) continue;
      if (drawn == kMaxMaps) {
        ++skipped;
        continue;
      }
      ++drawn;
      std::string prefix;
      if (lead > 0) {
        std::vector<int64_t> at = tpu::UnravelIndex(m, lead_dims);
        prefix = "blocks [";
        for (int64_t i : at) prefix += std::to_string(i) + ", ";
        lines.push_back(prefix + ":, :]");
      }
      DrawMap(m * per_map, lines);
    }
    if (skipped > 0) lines.push_back(fmt::format("({} more maps with wrong blocks)", skipped));
    Legend(lines);
  }

  // One note listing wrong blocks that hold the values the reference has at another block
  // ("(0, 0) has (1, 0)'s"): the sign of a wrong index map.
  void FindMovedBlocks(std::vector<std::string>& lines) const {
    if (static_cast<int64_t>(info_.size()) > kMaxMovedCandidates) return;
    int searched = 0;
    std::vector<std::string> moved, flipped;
    std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> pairs;  // from, to
    for (size_t b = 0; b < info_.size() && searched < kMaxMovedSearches; ++b) {
      if (info_[b].status != BlockStatus::kWrong) continue;
      ++searched;
      std::vector<int64_t> from = tpu::UnravelIndex(static_cast<int64_t>(b), blocks_);
      bool found = false;
      for (size_t c = 0; c < info_.size() && !found; ++c) {
        std::vector<int64_t> to = tpu::UnravelIndex(static_cast<int64_t>(c), blocks_);
        if (c != b && SameValues(from, to)) {
          moved.push_back(fmt::format("{} has {}'s", tpu::TupleString(from), tpu::TupleString(to)));
          pairs.emplace_back(from, to);
          found = true;
        }
      }
      if (!found && TransposedValues(from)) flipped.push_back(tpu::TupleString(from));
    }
    if (!moved.empty()) {
      std::string list;
      for (size_t i = 0; i < moved.size(); ++i) list += (i ? ", " : "") + moved[i];
      lines.push_back(fmt::format(
          "wrong blocks hold the values the reference has at other blocks: {}; an index map "
          "sends data to the wrong place, or a block kept what an earlier one left (an "
          "accumulator not reset, a block no step wrote)",
          list));
      DescribeMoves(pairs, lines);
    }
    if (!flipped.empty()) {
      std::string list;
      for (size_t i = 0; i < flipped.size(); ++i) list += (i ? ", " : "") + flipped[i];
      lines.push_back(fmt::format(
          "block{} {} hold{} the reference's values transposed (rows and columns swapped): a "
          "`.T` too many or too few, or the operands of a product in the wrong order",
          flipped.size() == 1 ? "" : "s", list, flipped.size() == 1 ? "s" : ""));
    }
  }

  // The moves found share a shape: every block holds its mirror image's across the diagonal,
  // or every block holds the one at the same offset from it.
  static void DescribeMoves(
      const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>& pairs,
      std::vector<std::string>& lines) {
    bool transposed = true, shifted = pairs.size() >= 2;
    std::vector<int64_t> delta;
    for (const auto& [from, to] : pairs) {
      transposed &= from.size() == 2 && to[0] == from[1] && to[1] == from[0];
      std::vector<int64_t> d(from.size());
      for (size_t k = 0; k < from.size(); ++k) d[k] = to[k] - from[k];
      if (delta.empty()) delta = d;
      shifted &= d == delta;
    }
    if (transposed) {
      lines.push_back(
          "the moves mirror the grid across its diagonal (block (i, j) holds (j, i)'s): an index "
          "map swaps its two grid indices, or the grid's axes are in the other order");
    } else if (shifted) {
      lines.push_back(fmt::format(
          "every one of these blocks holds the block {} away from it: an index map shifted by "
          "that much (an off-by-one in a block index?), or, for the block just before, values "
          "carried over from it",
          tpu::TupleString(delta)));
    }
  }

  bool HasStatus(BlockStatus status) const {
    return std::any_of(info_.begin(), info_.end(),
                       [&](const BlockInfo& b) { return b.status == status; });
  }

  // The block holding the element at `index`.
  std::vector<int64_t> BlockIndexOf(const std::vector<int64_t>& index) const {
    std::vector<int64_t> b(index.size());
    for (size_t d = 0; d < index.size(); ++d) b[d] = index[d] / block_[d];
    return b;
  }

 private:
  std::string Cell(const BlockInfo& info) const {
    std::string step = info.step >= 0
                           ? " " + tpu::TupleString(tpu::UnravelIndex(info.step, record_.grid))
                           : std::string();
    switch (info.status) {
      case BlockStatus::kOk:
        return "ok" + step;
      case BlockStatus::kWrong:
        return "WRONG" + step;
      case BlockStatus::kNaN:
        return "NaN" + step;
      case BlockStatus::kNever:
        return "never";
    }
    return "";
  }

  void DrawMap(int64_t first, std::vector<std::string>& lines) const {
    size_t rank = shape_.size();
    int64_t rows = rank >= 2 ? blocks_[rank - 2] : 1;
    int64_t cols = rank >= 1 ? blocks_[rank - 1] : 1;
    int64_t shown_rows = std::min(rows, kMaxMapRows), shown_cols = std::min(cols, kMaxMapColumns);
    size_t width = 5;
    for (int64_t r = 0; r < shown_rows; ++r) {
      for (int64_t c = 0; c < shown_cols; ++c) {
        width = std::max(width, Cell(info_[static_cast<size_t>(first + r * cols + c)]).size());
      }
    }
    std::string header = "     ";
    for (int64_t c = 0; c < shown_cols; ++c) {
      header += fmt::format("  {:<{}}", rank >= 1 ? std::to_string(c) : "", width);
    }
    if (shown_cols < cols) header += fmt::format("  ... ({} block columns)", cols);
    while (!header.empty() && header.back() == ' ') header.pop_back();
    lines.push_back(header);
    for (int64_t r = 0; r < shown_rows; ++r) {
      std::string line = fmt::format("{:>5}", rank >= 2 ? std::to_string(r) : "");
      for (int64_t c = 0; c < shown_cols; ++c) {
        line +=
            fmt::format("  {:<{}}", Cell(info_[static_cast<size_t>(first + r * cols + c)]), width);
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      lines.push_back(line);
    }
    if (shown_rows < rows) lines.push_back(fmt::format("  ... ({} block rows)", rows));
  }

  void Legend(std::vector<std::string>& lines) const {
    std::string legend =
        record_.dma ? "each cell: the block's state and the grid step whose DMA last wrote it"
                    : "each cell: the block's state and the grid step that last wrote it back";
    lines.push_back(legend);
    bool all_never = std::all_of(info_.begin(), info_.end(), [](const BlockInfo& b) {
      return b.status == BlockStatus::kNever;
    });
    if (all_never && record_.dma) {
      lines.push_back(fmt::format(
          "no DMA ever wrote `{}`: it is in pl.ANY, so the kernel copies its result there "
          "(`pltpu.make_async_copy(src, {}.at[...], sem)`, started and waited)",
          record_.operand, record_.operand));
    } else if (all_never && std::any_of(record_.grid.begin(), record_.grid.end(),
                                        [](int64_t n) { return n == 0; })) {
      lines.push_back(fmt::format(
          "the grid {} has no steps at all (an axis of size 0), so the kernel never ran: look "
          "at how that axis's size is computed",
          tpu::TupleString(record_.grid)));
    } else if (all_never && !first_write_.empty()) {
      lines.push_back(fmt::format(
          "the kernel writes `{}` at {}, but no grid step ever ran that line: the branch "
          "around it was never taken",
          record_.operand, first_write_));
    } else if (all_never) {
      lines.push_back(fmt::format(
          "nothing was ever stored into `{}`: a kernel writes its result with `{}[...] = value`",
          record_.operand, record_.operand));
    } else if (HasStatus(BlockStatus::kNever) && record_.dma) {
      lines.push_back(fmt::format(
          "`never`: no DMA wrote this block (or only from memory the kernel never wrote), so it "
          "holds garbage; `{}` is in pl.ANY, so the kernel's DMAs must cover every element",
          record_.operand));
    } else if (HasStatus(BlockStatus::kNever)) {
      lines.push_back(
          "`never`: no grid step wrote this block back to HBM, so it holds garbage; the grid "
          "and the out_specs index map must reach every block, and the kernel must store to it");
    }
  }

  // Whether block `from` of actual equals block `to` of the reference (same extents).
  // Whether the square 2-D block `at` holds the reference's block at `at` with rows and columns
  // swapped (and is not symmetric, so that the swap is visible).
  bool TransposedValues(const std::vector<int64_t>& at) const {
    if (shape_.size() != 2) return false;
    int64_t rows = std::min(block_[0], shape_[0] - at[0] * block_[0]);
    int64_t cols = std::min(block_[1], shape_[1] - at[1] * block_[1]);
    if (rows != cols || rows < 2) return false;
    auto flat = [&](int64_t r, int64_t c) {
      return static_cast<size_t>((at[0] * block_[0] + r) * shape_[1] + at[1] * block_[1] + c);
    };
    bool symmetric = true;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        if (!Close(actual_[flat(r, c)], expected_[flat(c, r)], tol_)) return false;
        symmetric &= Close(expected_[flat(r, c)], expected_[flat(c, r)], tol_);
      }
    }
    return !symmetric;
  }

  bool SameValues(const std::vector<int64_t>& from, const std::vector<int64_t>& to) const {
    size_t rank = shape_.size();
    std::vector<int64_t> extent(rank);
    for (size_t d = 0; d < rank; ++d) {
      int64_t a = std::min(block_[d], shape_[d] - from[d] * block_[d]);
      int64_t b = std::min(block_[d], shape_[d] - to[d] * block_[d]);
      if (a != b) return false;
      extent[d] = a;
    }
    std::vector<int64_t> offset(rank, 0);
    while (true) {
      int64_t fa = 0, fe = 0;
      for (size_t d = 0; d < rank; ++d) {
        fa = fa * shape_[d] + from[d] * block_[d] + offset[d];
        fe = fe * shape_[d] + to[d] * block_[d] + offset[d];
      }
      if (!Close(actual_[static_cast<size_t>(fa)], expected_[static_cast<size_t>(fe)], tol_)) {
        return false;
      }
      size_t d = rank;
      while (d-- > 0) {
        if (++offset[d] < extent[d]) break;
        offset[d] = 0;
      }
      if (d == static_cast<size_t>(-1)) return true;
    }
  }

  const std::vector<double>& actual_;
  const std::vector<double>& expected_;
  const std::vector<uint8_t>& bad_;
  const Shape& shape_;
  Tolerance tol_;
  const tpu::OutputRecord& record_;
  std::string first_write_;  // where the kernel writes the output ("line 87"), if it does
  std::vector<int64_t> block_, blocks_;
  std::vector<BlockInfo> info_;
};

}  // namespace

Tolerance DefaultTolerance(array::DType dtype) {
  switch (dtype) {
    case array::DType::kFloat32:
      return {1e-5, 1e-5};
    case array::DType::kFloat16:
      return {1e-2, 1e-2};
    case array::DType::kBFloat16:
      return {2e-2, 2e-2};
    default:
      return {0, 0};
  }
}

int64_t FirstMismatch(const Array& actual, const Array& expected, Tolerance tol,
                      double* max_error) {
  double largest = 0;
  auto scan = [&](auto load_actual, auto load_expected) -> int64_t {
    for (int64_t i = 0, size = actual.size(); i < size; ++i) {
      double a = load_actual(i), e = load_expected(i);
      if (!Close(a, e, tol)) return i;
      if (std::isfinite(a)) largest = std::max(largest, std::fabs(a - e));
    }
    return -1;
  };
  int64_t at;
  if (actual.dtype() == expected.dtype() && actual.IsDense() && expected.IsDense()) {
    at = array::DispatchDType(actual.dtype(), [&](auto tag) {
      constexpr array::DType D = decltype(tag)::value;
      const auto* a = actual.data<array::StorageOf<D>>();
      const auto* e = expected.data<array::StorageOf<D>>();
      return scan([&](int64_t i) { return static_cast<double>(array::Element<D>::Load(a[i])); },
                  [&](int64_t i) { return static_cast<double>(array::Element<D>::Load(e[i])); });
    });
  } else {
    at = scan([&](int64_t i) { return actual.GetDouble(i); },
              [&](int64_t i) { return expected.GetDouble(i); });
  }
  if (max_error != nullptr) *max_error = largest;
  return at;
}

LeafReport CompareLeaf(const Array& actual, const Array& expected, Tolerance tol,
                       const tpu::OutputRecord* record, const SourceManager* sources) {
  LeafReport report;
  if (actual.shape() != expected.shape()) {
    report.summary = fmt::format("shape {} but the reference has {}", ShapeString(actual.shape()),
                                 ShapeString(expected.shape()));
    Shape reversed(expected.shape().rbegin(), expected.shape().rend());
    if (actual.shape() == reversed && actual.shape().size() == 2) {
      report.lines.push_back("that is the reference's shape transposed");
    }
    return report;
  }
  if (actual.dtype() != expected.dtype()) {
    report.summary =
        fmt::format("dtype {} but the reference has {}", array::DTypeName(actual.dtype()),
                    array::DTypeName(expected.dtype()));
    report.lines.push_back(
        "the out_shape dtype decides the output's dtype; cast with `.astype(...)` where needed");
    return report;
  }
  // The common case, a pass, read in place; a failure is described from the elements below.
  if (double max_error = 0; FirstMismatch(actual, expected, tol, &max_error) < 0) {
    report.passed = true;
    report.summary = fmt::format("{} {}, max abs error {:.3g}", ShapeString(actual.shape()),
                                 array::DTypeName(actual.dtype()), max_error);
    return report;
  }
  std::vector<double> a = actual.ToDoubles();
  std::vector<double> e = expected.ToDoubles();
  std::vector<uint8_t> bad(a.size(), 0);
  int64_t count = 0, nans = 0, infs = 0;
  size_t first = a.size();
  double max_error = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    bool ok = Close(a[i], e[i], tol);
    bad[i] = !ok;
    count += !ok;
    nans += std::isnan(a[i]) && !std::isnan(e[i]);
    infs += std::isinf(a[i]) && !std::isinf(e[i]);
    if (!ok && first == a.size()) first = i;
    if (ok && !std::isnan(a[i]) && !std::isinf(a[i])) {
      max_error = std::max(max_error, std::fabs(a[i] - e[i]));
    }
  }
  if (count == 0) {
    report.passed = true;
    report.summary = fmt::format("{} {}, max abs error {:.3g}", ShapeString(actual.shape()),
                                 array::DTypeName(actual.dtype()), max_error);
    return report;
  }
  report.summary = fmt::format("{} of {} elements differ (atol {:g}, rtol {:g})", count, a.size(),
                               tol.atol, tol.rtol);
  std::vector<int64_t> index = tpu::UnravelIndex(static_cast<int64_t>(first), actual.shape());
  std::string where = IndexString(index);

  std::optional<BlockMap> map;
  if (record != nullptr && record->blocked && record->writer.shape() == actual.shape() &&
      record->block.size() == actual.shape().size()) {
    map.emplace(a, e, bad, actual.shape(), tol, *record);
    if (sources != nullptr && record->first_write.valid()) {
      const SourceFile& file = sources->Get(record->first_write.file);
      map->set_first_write(fmt::format("line {}", file.Locate(record->first_write.begin).line));
    }
    if (!map->Build()) map.reset();
  }
  if (map && !index.empty()) {
    where += " (block " + tpu::TupleString(map->BlockIndexOf(index)) + ")";
  }
  report.mismatch =
      Mismatch{.index = index,
               .block = map && !index.empty() ? map->BlockIndexOf(index) : std::vector<int64_t>{},
               .expected = ValueString(expected.dtype(), e[first]),
               .got = ValueString(actual.dtype(), a[first])};
  report.lines.push_back(fmt::format("first mismatch at {}: expected {}, got {}", where,
                                     report.mismatch->expected, report.mismatch->got));
  if (nans > 0) report.lines.push_back(fmt::format("{} elements are NaN", nans));
  if (infs > 0) report.lines.push_back(fmt::format("{} elements are infinite", infs));
  report.unexplained_nonfinite =
      (nans > 0 || infs > 0) && !(record != nullptr && record->uninitialized.seen);
  if (map) {
    report.map_begin = report.lines.size();
    map->Render(report.lines);
    map->FindMovedBlocks(report.lines);
    report.map_end = report.lines.size();
    report.operand = record->operand;
  }
  if (nans > 0 && record != nullptr && record->uninitialized.seen &&
      record->uninitialized_is_padding) {
    std::string location = sources ? FormatLocation(record->uninitialized.span, *sources) : "";
    report.provenance.push_back(fmt::format(
        "the NaN come from past the end of an input: blocks that reach beyond the array hold "
        "garbage padding (the first such read: `{}` at {}, in grid step {}); mask every such "
        "operand before it reaches the result (a read masked with the right bound is "
        "harmless: check each mask's bound)",
        record->uninitialized.ref, location, tpu::TupleString(record->uninitialized.grid_point)));
  } else if (nans > 0 && record != nullptr && record->uninitialized.seen) {
    std::string location = sources ? FormatLocation(record->uninitialized.span, *sources) : "";
    report.provenance.push_back(fmt::format(
        "the NaN come from uninitialised memory: `{}` was read at {} before anything was stored "
        "into it (first in grid step {}); {}",
        record->uninitialized.ref, location, tpu::TupleString(record->uninitialized.grid_point),
        record->has_dma_semaphores
            ? "if a DMA should fill it, start that copy and `.wait()` for it before the read; "
              "otherwise initialise it first"
        : record->uninitialized.ref == record->operand
            ? "initialise it first, e.g. under `@pl.when(pl.program_id(axis) == 0)`, or, where "
              "the read keeps rows that another step writes (a masked store), check that the "
              "mask selects the right rows"
            : "initialise it first, e.g. under `@pl.when(pl.program_id(axis) == 0)`"));
  }
  for (const std::string& line : report.provenance) report.lines.push_back(line);
  return report;
}

}  // namespace pz::course

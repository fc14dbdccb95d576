// The integer scalars of a kernel body that known program ids (and its constants) decide, for
// the static walks that ask what a grid step does (fresh.h, carried.h, shared_writes.h), and the
// elements an access reaches where they decide its indices.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "kernel/ir.h"

namespace pz::kernel {

// The indices of an axis of `n` points the static walks try: its first, second, middle and last
// (fewer where they coincide), in order.
std::vector<int64_t> SampledIndices(int64_t n);
// Every grid step that takes one of `values[d]` along each axis d, the first axis changing
// fastest, from the step of every axis's first value.
std::vector<std::vector<int64_t>> EveryCombination(const std::vector<std::vector<int64_t>>& values);

// Folds a body's integer scalars as a walk meets their instructions in program order.
class Folder {
 public:
  Folder(const Function& f, std::map<int, int64_t> known_ids) : f_(f), ids_(std::move(known_ids)) {}

  // Records what `instr` (a constant, a program id or a scalar primitive) makes known.
  void Note(const Instr& instr);

  std::optional<int64_t> Known(ValueId v) const {
    auto it = known_.find(v);
    if (it == known_.end()) return std::nullopt;
    return it->second;
  }

 private:
  void Fold(const Instr& instr);

  const Function& f_;
  std::map<int, int64_t> ids_;
  std::map<ValueId, int64_t> known_;
};

// The elements an access reaches along one dimension of its base ref: `size` indices from
// `start`, `stride` apart.
struct ElementSpan {
  int64_t start = 0, size = 0, stride = 1;

  bool Has(int64_t x) const {
    return x >= start && (x - start) % stride == 0 && (x - start) / stride < size;
  }
};
// The first index both spans reach, if any.
std::optional<int64_t> CommonIndex(const ElementSpan& a, const ElementSpan& b);
// Whether two boxes of one ref (a span per dimension) share an element.
bool Overlap(const std::vector<ElementSpan>& a, const std::vector<ElementSpan>& b);
// The elements `path` reaches, in its base ref's coordinates (a span per dimension), when every
// index is a constant or a value `folder` knows.
std::optional<std::vector<ElementSpan>> KnownBox(const Function& f, const Folder& folder,
                                                 const RefPath& path);

// The region of a Cond or Switch that `pick` (its first operand, when known) selects: a cond's
// region 0 when true; a switch's index clamped into range.
size_t PickedRegion(const Instr& instr, int64_t pick);

// The program ids of grid step `step`, for a folder.
std::map<int, int64_t> IdsOf(const std::vector<int64_t>& step);

}  // namespace pz::kernel

// The canonical form of a pallas_call's spec, as JAX splits it from the user's: each BlockSpec
// becomes a BlockMapping (array shape, canonical block dims, the ref shape the kernel sees, the
// traced index map), the grid spec a GridMapping (grid, scalar-prefetch index operands, inputs,
// outputs, scratch, aliases, dimension semantics). Built and validated here from call_spec.h's
// structs, with JAX's errors; backends (backend.h) run kernels over it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "array/array.h"
#include "kernel/call_spec.h"
#include "kernel/ir.h"
#include "kernel/pytree.h"
#include "support/source.h"

namespace pz::kernel {

// One entry of a block shape, canonicalised as JAX does (_canonicalize_block_dim): an int or
// `pl.Blocked(n)` is kBlocked, None or `pl.Squeezed()` is kSqueezed, `pl.Element(n, padding)` is
// kElement.
struct BlockDim {
  enum class Kind { kBlocked, kSqueezed, kElement };
  Kind kind = Kind::kBlocked;
  int64_t size = 1;    // kBlocked, kElement: elements per block (kSqueezed: 1)
  int64_t pad_lo = 0;  // kElement: virtual padding before the dimension

  // The first element of the window block index `index` picks along this dimension (before the
  // array's start for an element window in the padding), and the index of a window starting at
  // `start`.
  int64_t WindowStart(int64_t index) const {
    return kind == Kind::kBlocked ? index * size : kind == Kind::kElement ? index - pad_lo : index;
  }
  int64_t IndexOfStart(int64_t start) const {
    return kind == Kind::kBlocked   ? start / std::max<int64_t>(size, 1)
           : kind == Kind::kElement ? start + pad_lo
                                    : start;
  }
  // Elements of the window along this dimension (1 when squeezed).
  int64_t WindowSize() const { return kind == Kind::kSqueezed ? 1 : size; }
};

// A blocked input or output of the call (JAX's BlockMapping).
struct BlockMapping {
  std::string name;  // the kernel's parameter name, e.g. "x_ref"
  bool is_output = false;
  array::Shape shape;  // the full (HBM) array
  array::DType dtype = array::DType::kFloat32;
  MemorySpace space = MemorySpace::kVmem;
  std::vector<BlockDim> block;  // one per array dimension (pl.ANY: the whole array)
  array::Shape ref_shape;       // what the kernel sees (squeezed dimensions dropped)
  // Grid indices (and prefetch refs) -> block indices; null means the whole array at block
  // (0, ..., 0).
  std::shared_ptr<const Function> index_map;
  SourceSpan span;                      // the index map (or the pallas_call, without one)
  SourceSpan spec_span;                 // the pl.BlockSpec(...) call (invalid without one)
  std::vector<std::string> map_params;  // the index map's parameter names, when known
};

// The canonical spec of a call (JAX's GridMapping). Kernel refs come in the order index operands
// (scalar prefetch), inputs, outputs, scratch, then pl.run_scoped buffers.
struct GridMapping {
  std::string name;
  SourceSpan span;  // the pl.pallas_call expression
  std::vector<int64_t> grid;
  // Scalar-prefetch operands: whole arrays in SMEM, and the pytree of each argument (index maps
  // and the kernel get them unflattened).
  std::vector<RefType> prefetch;
  std::vector<TreeDef> prefetch_trees;
  std::vector<BlockMapping> inputs;
  std::vector<BlockMapping> outputs;
  std::vector<RefType> scratch;
  std::map<int, int> aliases;  // input operand -> output operand
  // compiler_params' dimension_semantics, one entry per grid axis ("parallel", "arbitrary", ...);
  // empty when not given (every axis "arbitrary"). `semantics_span` is the CompilerParams call.
  std::vector<std::string> dimension_semantics;
  // compiler_params' vmem_limit_bytes (0: not given, the chip's default scoped limit).
  int64_t vmem_limit_bytes = 0;
  SourceSpan semantics_span;

  size_t num_index_operands() const { return prefetch.size(); }
  size_t num_inputs() const { return inputs.size(); }
  size_t num_outputs() const { return outputs.size(); }
  size_t num_scratch_operands() const { return scratch.size(); }
  // The linearised number of grid steps.
  int64_t num_steps() const;
  // The input or output at position `k` of inputs-then-outputs.
  const BlockMapping& operand(size_t k) const {
    return k < inputs.size() ? inputs[k] : outputs[k - inputs.size()];
  }
};

// The BlockMapping of an operand of `shape` and `dtype` from its BlockSpec (nullptr: no spec,
// the whole array in VMEM): checks the block rank, canonicalises the block dims, traces the index
// map over `mapping`'s grid and prefetch refs and checks its results. `origin` names the operand in
// messages
// ("input x_ref").
BlockMapping MapBlockSpec(const SpecContext& ctx, const GridMapping& mapping, const BlockSpec* spec,
                          const std::string& name, const array::Shape& shape, array::DType dtype,
                          bool is_output, const std::string& origin);

// Adds `input_output_aliases` (a dict of operand index -> output index, operands counting the
// scalar-prefetch ones) to `mapping`, checking them as JAX does.
void AddAliases(const SpecContext& ctx, GridMapping& mapping, const eval::Value& aliases);

// Sets the mapping's dimension semantics; with TPU rules their count must match the grid.
void SetDimensionSemantics(const SpecContext& ctx, GridMapping& mapping,
                           const CompilerParams& params);

// An index map that only picks grid indices and constants (`lambda i, j: (i, 0)`): per result,
// the grid axis it returns (>= 0) or -1 with the constant.
struct DirectMap {
  bool ok = false;
  std::vector<std::pair<int, int64_t>> entries;
};
DirectMap AnalyzeIndexMap(const Function& f);

// The grid the BlockSpecs walk when every index map passes grid indices straight through (or
// returns constants) and all of them agree on how many blocks each grid axis steps through;
// nullopt when the specs do not say or disagree among themselves. When an out-of-range block
// index comes from a grid that differs from it, the grid is the mistake, not the index maps.
std::optional<std::vector<int64_t>> GridTheSpecsWalk(const GridMapping& mapping);
// "the grid (4, 2) does not match the BlockSpecs, which step through (2, 4) blocks: ...": the
// error of a block index out of range at operand `op` when the grid is the mistake.
std::string GridMismatchMessage(const GridMapping& mapping, const std::vector<int64_t>& walked,
                                const std::vector<int64_t>& index, const BlockMapping& op);

// Where a block of operand `op` lies on each dimension: [start, start + size) of the array.
struct BlockWindow {
  std::vector<int64_t> start, size;
};
// The first dimension on which `window` lies wholly outside `op`'s array (it may overhang the
// end, a ragged edge, but must overlap it), or -1 when none does. With `blocked_past_end`, a
// window that starts at or past the end of a blocked dimension is allowed (the CUDA backend's
// parts of a split block, which run in its padding).
int OutsideDimension(const BlockMapping& op, const BlockWindow& window,
                     bool blocked_past_end = false);

// The error of an out-of-range block index, as every backend raises it: the grid as the mistake
// when every BlockSpec agrees on another grid (at the call), else the block index (at the index
// map), with notes on what to check.
struct BlockIndexError {
  std::string message;
  std::vector<std::string> notes;
  SourceSpan span;
};
BlockIndexError OutOfBoundsBlock(const GridMapping& mapping, const BlockMapping& op,
                                 const std::vector<int64_t>& point,
                                 const std::vector<int64_t>& index, const BlockWindow& window,
                                 int dimension);

}  // namespace pz::kernel

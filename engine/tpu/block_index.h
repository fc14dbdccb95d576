// The block an operand's index map picks at a grid point: one computation for the emulated core's
// pipeline, the CUDA backend's step table and the lint's walks over the grid.
#pragma once

#include <memory>
#include <vector>

#include "kernel/grid_mapping.h"
#include "tpu/executor.h"

namespace pz::tpu {

class BlockIndexer {
 public:
  // `context` (its refs: the call's scalar-prefetch buffers) must outlive the indexer. A map that
  // only passes grid indices through or returns constants is read off the grid point; any other
  // runs on the reference executor, made on first use.
  BlockIndexer(const kernel::BlockMapping& op, ExecContext& context);

  // True when the block index is read off the grid point without running the map.
  bool direct() const { return !op_->index_map || direct_.ok; }

  // The block index at `point` into `index` (a direct map allocates nothing once `index` has
  // its size). Runs the map with the context's grid point set to `point`; what the map throws
  // passes through.
  void At(const std::vector<int64_t>& point, std::vector<int64_t>& index);

 private:
  const kernel::BlockMapping* op_;
  ExecContext* context_;
  kernel::DirectMap direct_;
  std::unique_ptr<Executor> map_;
};

}  // namespace pz::tpu

#include "tpu/block_index.h"

namespace pz::tpu {

BlockIndexer::BlockIndexer(const kernel::BlockMapping& op, ExecContext& context)
    : op_(&op), context_(&context) {
  if (op.index_map) direct_ = kernel::AnalyzeIndexMap(*op.index_map);
}

void BlockIndexer::At(const std::vector<int64_t>& point, std::vector<int64_t>& index) {
  if (!op_->index_map) {
    index.assign(op_->block.size(), 0);
    return;
  }
  if (direct_.ok) {
    index.resize(direct_.entries.size());
    for (size_t d = 0; d < direct_.entries.size(); ++d) {
      const auto& [axis, value] = direct_.entries[d];
      index[d] = axis >= 0 ? point[static_cast<size_t>(axis)] : value;
    }
    return;
  }
  if (!map_) map_ = std::make_unique<Executor>(*op_->index_map, *context_);
  context_->grid_point = &point;
  std::vector<array::Array> params;
  params.reserve(point.size());
  for (int64_t g : point) {
    params.push_back(array::Array::Scalar(array::DType::kInt32, static_cast<double>(g)));
  }
  index.clear();
  for (const array::Array& a : map_->Run(params)) index.push_back(a.GetInt(0));
}

}  // namespace pz::tpu

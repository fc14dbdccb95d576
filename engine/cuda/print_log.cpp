// The log of a kernel's prints on the CUDA backend (see print_log.h): its size, and the replay of
// its records after the launch.
#include "cuda/print_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "kernel/control_flow.h"

namespace pz::cuda {

PrintLog::PrintLog(Device& device, const EmittedKernel& kernel, const kernel::Function& kernel_fn,
                   int64_t steps)
    : device_(device), kernel_(kernel), kernel_fn_(kernel_fn) {
  int64_t per_step = 0;
  for (const kernel::Instr* instr : kernel.instrs) {
    if (instr->op == kernel::Op::kDebugPrint) per_step += PrintRecordWords(kernel_fn, *instr);
  }
  words_ = std::clamp<int64_t>(per_step * std::max<int64_t>(steps, 1) * 4, int64_t{1} << 16,
                               int64_t{1} << 25);
  size_t bytes = static_cast<size_t>(kLogHeaderWords + words_) * sizeof(uint64_t);
  buffer_ = std::make_unique<DeviceBuffer>(device, bytes);
  device.Memset(buffer_->ptr(), 0, bytes);
  uint64_t capacity = static_cast<uint64_t>(words_);
  device.CopyToDevice(buffer_->ptr() + sizeof(uint64_t), &capacity, sizeof capacity);
}

std::optional<kernel::CallWarning> PrintLog::Replay(const std::vector<int64_t>& call_step,
                                                    int64_t last_step) const {
  std::vector<uint64_t> data(static_cast<size_t>(kLogHeaderWords + words_));
  device_.CopyToHost(data.data(), buffer_->ptr(), data.size() * sizeof(uint64_t));
  const uint64_t used = std::min<uint64_t>(data[0], static_cast<uint64_t>(words_));
  struct Record {
    int64_t step;
    uint64_t seq;
    const kernel::Instr* instr;
    size_t at;  // its first operand word in `data`
  };
  std::vector<Record> records;
  // Records lie one after the other; a reservation that did not fit leaves the rest unwritten
  // (zeros: the instruction word is its number plus one).
  for (uint64_t pos = 0; pos + kPrintHeaderWords <= used;) {
    const uint64_t* r = data.data() + kLogHeaderWords + pos;
    if (r[2] == 0 || r[2] > kernel_.instrs.size()) break;
    const kernel::Instr* instr = kernel_.instrs[static_cast<size_t>(r[2] - 1)];
    auto record_words = static_cast<uint64_t>(PrintRecordWords(kernel_fn_, *instr));
    if (instr->op != kernel::Op::kDebugPrint || r[0] >= call_step.size() ||
        pos + record_words > used) {
      break;
    }
    records.push_back({.step = call_step[static_cast<size_t>(r[0])],
                       .seq = r[1],
                       .instr = instr,
                       .at = static_cast<size_t>(kLogHeaderWords + pos + kPrintHeaderWords)});
    pos += record_words;
  }
  std::stable_sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
    return a.step != b.step ? a.step < b.step : a.seq < b.seq;
  });
  for (const Record& record : records) {
    if (record.step > last_step) break;
    std::vector<array::Array> values;
    size_t at = record.at;
    for (kernel::ValueId v : record.instr->operands) {
      const kernel::ValueType& t = kernel_fn_.values.at(static_cast<size_t>(v));
      array::Array a = array::Array::Empty(t.dtype, t.shape);
      std::memcpy(a.raw(), data.data() + at,
                  static_cast<size_t>(a.size()) * array::ItemSize(a.dtype()));
      at += static_cast<size_t>(PrintOperandWords(t));
      values.push_back(std::move(a));
    }
    kernel::RunPrint(*record.instr, values);
  }

  const uint64_t dropped = data[2];
  if (dropped == 0) return std::nullopt;
  const kernel::Instr* print =
      *std::find_if(kernel_.instrs.begin(), kernel_.instrs.end(),
                    [](const kernel::Instr* i) { return i->op == kernel::Op::kDebugPrint; });
  return kernel::CallWarning{
      .message = fmt::format(
          "{} print{} of this kernel did not fit in the CUDA backend's log of prints ({} KiB) and "
          "{} not shown",
          dropped, dropped == 1 ? "" : "s", words_ * 8 / 1024, dropped == 1 ? "was" : "were"),
      .span = print->span,
      .notes = {"print less (a part of a block, or under `pl.when`), or run on the emulated TPU "
                "(without `--backend cuda`), which prints everything"}};
}

}  // namespace pz::cuda

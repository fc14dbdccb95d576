// The CUDA backend's device faults (see device_faults.h): what each means at the user's line.
#include "cuda/device_faults.h"

#include <fmt/format.h>

#include <string>

#include "tpu/executor.h"

namespace pz::cuda {

namespace {

std::string FaultMessage(const EmittedKernel& kernel, const kernel::Function& kernel_fn,
                         const long long* row, const std::vector<int64_t>& point) {
  const kernel::Instr* instr = row[1] >= 0 && row[1] < static_cast<long long>(kernel.instrs.size())
                                   ? kernel.instrs[static_cast<size_t>(row[1])]
                                   : nullptr;
  std::string at = tpu::TupleString(point);
  switch (static_cast<DeviceFault>(row[0])) {
    case DeviceFault::kIndexOutOfBounds:
      return fmt::format(
          "index out of bounds at grid step {}: dimension {} starts at {} and spans {} "
          "elements, but has {}",
          at, row[3], row[4], row[5], row[6]);
    case DeviceFault::kDmaWaitBlocks:
      return fmt::format(
          "this DMA wait would block forever at grid step {}: its semaphore holds {} bytes, the "
          "wait needs {}",
          at, row[3], row[4]);
    case DeviceFault::kSemaphoreWaitBlocks:
      return fmt::format(
          "this semaphore wait would block forever at grid step {}: the semaphore holds {}, the "
          "wait needs {}",
          at, row[3], row[4]);
    case DeviceFault::kSemaphoreNonzero: {
      const kernel::RefType& ref = kernel_fn.refs.at(static_cast<size_t>(row[3]));
      std::string name = ref.name + (ref.shape.empty() ? "" : fmt::format("[{}]", row[4]));
      if (instr && instr->op == kernel::Op::kDmaStart) {
        return fmt::format(
            "the DMA started here in grid step {} was never waited: its semaphore `{}` is "
            "non-zero when the kernel ends",
            at, name);
      }
      return fmt::format(
          "semaphore `{}` holds {} when the kernel ends (last signalled here in grid step {})",
          name, row[5], at);
    }
    case DeviceFault::kLoopLimit:
      return fmt::format("this while_loop ran more than {} iterations at grid step {}", row[3], at);
    case DeviceFault::kPrngUnseeded:
      if (row[3] == 0 && row[4] == 0) {  // the call's first step: as on the emulated TPU
        return fmt::format(
            "pltpu.prng_random_bits at grid step {} drew from the core's random number "
            "generator before any pltpu.prng_seed in this pallas_call",
            at);
      }
      return fmt::format(
          "pltpu.prng_random_bits at grid step {} drew from the random number generator before "
          "any pltpu.prng_seed at this point of the \"parallel\" axes",
          at);
    default:
      return fmt::format("the CUDA kernel reported fault {} at grid step {}", row[0], at);
  }
}

// What to do about a fault, where there is more to say than its message.
std::vector<std::string> FaultNotes(const long long* row) {
  if (static_cast<DeviceFault>(row[0]) != DeviceFault::kPrngUnseeded) return {};
  std::string seed =
      "seed it first, e.g. `pltpu.prng_seed(seed, pl.program_id(0))` at the top of the kernel";
  if (row[3] == 0 && row[4] == 0) {
    return {
        "a TPU core's generator holds whatever state an earlier kernel left, so these bits "
        "would differ from run to run; " +
        seed};
  }
  return {
      "the CUDA backend runs each point of the \"parallel\" axes on a CUDA block of its "
      "own, whose generator starts unseeded: a seed given at another point does not reach "
      "it (nor, on a megacore TPU, the other TensorCore's generator); " +
      seed + ", at every grid step"};
}

}  // namespace

kernel::CallError DeviceFaultError(const EmittedKernel& kernel, const kernel::Function& kernel_fn,
                                   const long long* row, const std::vector<int64_t>& point) {
  const kernel::Instr* instr = kernel.instrs.at(static_cast<size_t>(row[1]));
  return kernel::CallError{
      .kind = static_cast<DeviceFault>(row[0]) == DeviceFault::kIndexOutOfBounds
                  ? kernel::CallError::Kind::kIndexError
                  : kernel::CallError::Kind::kRuntimeError,
      .message = FaultMessage(kernel, kernel_fn, row, point),
      .span = instr->span,
      .notes = FaultNotes(row)};
}

}  // namespace pz::cuda

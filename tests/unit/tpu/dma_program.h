// The programs the DMA tests run (dma_test.cpp, dma_checks_test.cpp).
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "unit/tpu/run_kernel.h"

namespace pz::tpu::testing {

inline EmulatorOptions Eager() {
  EmulatorOptions options = Tpu();
  options.dma_mode = DmaMode::kEager;
  return options;
}

// A kernel over an 8-element f32 HBM input with a VMEM buffer and the given semaphore scratch;
// `body` is the kernel body (indented by 4), the output is printed as a list.
inline std::string Program(std::string_view body,
                           std::string_view semaphores = "pltpu.SemaphoreType.DMA",
                           std::string_view out_dtype = "jnp.float32") {
  return fmt::format(R"(
def kernel(x_hbm, o_ref, buf, sem):
{}


x = jnp.arange(8, dtype=jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), {}),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     scratch_shapes=[pltpu.VMEM((8,), jnp.float32), {}])(x)
print(out.tolist())
)",
                     body, out_dtype, semaphores);
}

}  // namespace pz::tpu::testing

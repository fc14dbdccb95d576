# args: --tpu v6e
# pltpu.get_tpu_info() describes the chip the emulator stands for: `--tpu VERSION` (v5e by
# default, v5p with --cores 2). Real JAX on a CPU has no TPU to describe (ValueError), so these
# expectations are the engine's.
from jax.experimental.pallas import tpu as pltpu

info = pltpu.get_tpu_info()
print(info.chip_version, info.generation, info.num_cores, info.mxu_column_size)
print(info.vmem_capacity_bytes // 2**20, "MiB VMEM,", info.bf16_ops_per_second / 1e12, "TFLOP/s bf16")
print(info.chip_version == pltpu.ChipVersion.TPU_V6E, pltpu.is_tpu_device())
# expect: v6e 6 1 256
# expect: 128 MiB VMEM, 920.0 TFLOP/s bf16
# expect: True False

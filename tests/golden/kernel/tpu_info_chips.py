# pltpu.get_tpu_info_for_chip and pltpu.ChipVersion: JAX's per-TensorCore figures of each TPU generation
from jax.experimental.pallas import tpu as pltpu
import jax.numpy as jnp
for v in (pltpu.ChipVersion.TPU_V5E, pltpu.ChipVersion.TPU_V5P, pltpu.ChipVersion.TPU_V6E, pltpu.ChipVersion.TPU_7X, pltpu.ChipVersion.TPU_V2):
  info = pltpu.get_tpu_info_for_chip(v, 1)
  print(info)
  print(str(v), repr(v), info.is_lite, info.is_megacore, info.is_split_chip, info.vmem_capacity_bytes // 2**20)
  print(info.get_sublane_tiling(jnp.bfloat16), info.get_sublane_tiling(jnp.int8), info.is_matmul_supported(jnp.bfloat16, jnp.int8), info.is_matmul_supported(jnp.int8, jnp.int8))
m = pltpu.get_tpu_info_for_chip(pltpu.ChipVersion.TPU_V4, 2)
print(m.num_cores, m.is_megacore, m.hbm_capacity_bytes, m.bf16_ops_per_second)
try:
  pltpu.get_tpu_info_for_chip(pltpu.ChipVersion.TPU_V5E, 2)
except ValueError as e:
  print("ValueError:", e)
print(pltpu.ChipVersion.TPU_V5E == pltpu.ChipVersion.TPU_V5E, pltpu.ChipVersion.TPU_V5E.value, pltpu.ChipVersion.TPU_V5P.supports_megacore)
print(pltpu.is_tpu_device())
# expect: TpuInfo(chip_version=<ChipVersion.TPU_V5E: 'v5e'>, generation=5, num_cores=1, num_lanes=128, num_sublanes=8, mxu_column_size=128, num_mxus=4, num_accumulators=0, vmem_capacity_bytes=134217728, cmem_capacity_bytes=0, smem_capacity_bytes=1048576, hbm_capacity_bytes=17200000000, mem_bw_bytes_per_second=820000000000, bf16_ops_per_second=197000000000000, int8_ops_per_second=394000000000000, fp8_ops_per_second=0, int4_ops_per_second=788000000000000, sparse_core=None)
# expect: v5e <ChipVersion.TPU_V5E: 'v5e'> True False False 128
# expect: 8 32 False True
# expect: TpuInfo(chip_version=<ChipVersion.TPU_V5P: 'v5p'>, generation=5, num_cores=1, num_lanes=128, num_sublanes=8, mxu_column_size=128, num_mxus=4, num_accumulators=0, vmem_capacity_bytes=67108864, cmem_capacity_bytes=0, smem_capacity_bytes=1048576, hbm_capacity_bytes=51500000000, mem_bw_bytes_per_second=1230000000000, bf16_ops_per_second=229500000000000, int8_ops_per_second=459000000000000, fp8_ops_per_second=0, int4_ops_per_second=920000000000000, sparse_core=SparseCoreInfo(num_cores=4, num_subcores=16, num_lanes=8, vmem_capacity_bytes=524288, dma_granule_size_bytes=32))
# expect: v5p <ChipVersion.TPU_V5P: 'v5p'> False False True 64
# expect: 8 32 False True
# expect: TpuInfo(chip_version=<ChipVersion.TPU_V6E: 'v6e'>, generation=6, num_cores=1, num_lanes=128, num_sublanes=8, mxu_column_size=256, num_mxus=2, num_accumulators=0, vmem_capacity_bytes=134217728, cmem_capacity_bytes=0, smem_capacity_bytes=1048576, hbm_capacity_bytes=34400000000, mem_bw_bytes_per_second=1640000000000, bf16_ops_per_second=920000000000000, int8_ops_per_second=1840000000000000, fp8_ops_per_second=920000000000000, int4_ops_per_second=3680000000000000, sparse_core=SparseCoreInfo(num_cores=2, num_subcores=16, num_lanes=8, vmem_capacity_bytes=262144, dma_granule_size_bytes=32))
# expect: v6e <ChipVersion.TPU_V6E: 'v6e'> True False False 128
# expect: 8 32 False True
# expect: TpuInfo(chip_version=<ChipVersion.TPU_7X: '7x'>, generation=7, num_cores=1, num_lanes=128, num_sublanes=8, mxu_column_size=256, num_mxus=2, num_accumulators=128, vmem_capacity_bytes=67108864, cmem_capacity_bytes=0, smem_capacity_bytes=1048576, hbm_capacity_bytes=103000000000, mem_bw_bytes_per_second=3700000000000, bf16_ops_per_second=1155000000000000, int8_ops_per_second=0, fp8_ops_per_second=2300000000000000, int4_ops_per_second=0, sparse_core=SparseCoreInfo(num_cores=2, num_subcores=16, num_lanes=16, vmem_capacity_bytes=524288, dma_granule_size_bytes=32))
# expect: 7x <ChipVersion.TPU_7X: '7x'> False False True 64
# expect: 16 32 False False
# expect: TpuInfo(chip_version=<ChipVersion.TPU_V2: 'v2'>, generation=2, num_cores=1, num_lanes=128, num_sublanes=8, mxu_column_size=128, num_mxus=1, num_accumulators=0, vmem_capacity_bytes=16777216, cmem_capacity_bytes=0, smem_capacity_bytes=16384, hbm_capacity_bytes=8000000000, mem_bw_bytes_per_second=358000000000, bf16_ops_per_second=23000000000000, int8_ops_per_second=0, fp8_ops_per_second=0, int4_ops_per_second=0, sparse_core=None)
# expect: v2 <ChipVersion.TPU_V2: 'v2'> False False True 16
# expect: 8 32 False False
# expect: 2 True 17200000000 137500000000000
# expect: ValueError: Lite chips and dual-core chips that do not support Megacore must have num_tensor_cores_per_logical_device=1, but got 2.
# expect: True v5e True
# expect: False

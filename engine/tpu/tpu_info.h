// TPU hardware facts per chip version (pltpu.get_tpu_info, get_tpu_info_for_chip, ChipVersion,
// TpuInfo), for the chip the emulator stands for: `--tpu VERSION` (v5e, a one-TensorCore chip,
// by default; v5p with `--cores 2`). The figures are JAX 0.10.2's (jax/_src/pallas/mosaic/
// tpu_info.py), per TensorCore.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/interpreter.h"
#include "tpu/pallas_call.h"

namespace pz::tpu {

struct ChipInfo {
  const char* version;  // "v5e"
  const char* member;   // "TPU_V5E"
  int generation;
  int physical_cores;  // TensorCores per chip
  bool lite;
  bool megacore;  // the two TensorCores can act as one device
  int mxu_column_size;
  int num_mxus;
  int num_accumulators;
  int64_t vmem_bytes, cmem_bytes, smem_bytes;
  double hbm_bytes, hbm_bandwidth, bf16_ops, int8_ops, fp8_ops, int4_ops;  // per chip
  bool shared_cmem;  // CMEM is per chip (divided among the TensorCores)
};

// Every chip version JAX knows, oldest first.
const std::vector<ChipInfo>& ChipTable();
// The chip named by `version` ("v5e", "7x", ...), or nullptr.
const ChipInfo* FindChip(std::string_view version);

// The version of the chip the options emulate.
std::string EmulatedChip(const EmulatorOptions& options);

// Adds the TPU info API to pltpu for `session`'s chip.
void InstallTpuInfo(eval::Interpreter& interp, EmulatorSession& session);

}  // namespace pz::tpu

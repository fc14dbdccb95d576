// pltpu.get_tpu_info and its kin (tpu_info.h).
#include "tpu/tpu_info.h"

#include <fmt/format.h>

#include <cmath>

#include "eval/array_object.h"
#include "eval/builtin_support.h"

namespace pz::tpu {

using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

namespace {

constexpr int64_t kMiB = 1024 * 1024;

// pltpu.ChipVersion.TPU_V5E: prints as JAX's enum member; str() is the version ("v5e").
class ChipVersionObject final : public eval::EnumMemberObject {
 public:
  explicit ChipVersionObject(const ChipInfo& chip) : EnumMemberObject(chip.member), chip(chip) {}
  std::string_view type_name() const override { return "ChipVersion"; }
  std::string Repr(Interpreter&) const override {
    return fmt::format("<ChipVersion.{}: '{}'>", chip.member, chip.version);
  }
  std::string Str(Interpreter&) const override { return chip.version; }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view attr) override {
    if (attr == "value") return eval::MakeStr(chip.version);
    if (attr == "num_physical_tensor_cores_per_chip") return Value::Int(chip.physical_cores);
    if (attr == "supports_megacore") return Value::Bool(chip.megacore);
    if (attr == "is_lite") return Value::Bool(chip.lite);
    return EnumMemberObject::GetAttr(interp, attr);
  }
  const ChipInfo& chip;
};

Value ChipValue(const ChipInfo& chip) { return Value(std::make_shared<ChipVersionObject>(chip)); }

struct SparseCore {
  int cores, subcores, lanes;
  int64_t vmem_bytes;
  int granule;
};

std::optional<SparseCore> SparseCoreOf(const ChipInfo& chip) {
  std::string_view v = chip.version;
  if (v == "v5p") return SparseCore{4, 16, 8, 512 * 1024, 32};
  if (v == "v6e") return SparseCore{2, 16, 8, 256 * 1024, 32};
  if (v == "7" || v == "7x") return SparseCore{2, 16, 16, 512 * 1024, 32};
  if (v == "8i") return SparseCore{1, 4, 16, 512 * 1024, 64};
  return std::nullopt;
}

// pltpu.TpuInfo: JAX's frozen dataclass of per-TensorCore figures.
class TpuInfoObject final : public eval::Object {
 public:
  TpuInfoObject(const ChipInfo& chip, int cores)
      : Object(eval::ObjectKind::kExtension), chip_(chip), cores_(cores) {
    auto per_core = [&](double v) {
      return Value::Int(static_cast<int64_t>(std::floor(v / chip.physical_cores)));
    };
    fields_ = {{"chip_version", ChipValue(chip)},
               {"generation", Value::Int(chip.generation)},
               {"num_cores", Value::Int(cores)},
               {"num_lanes", Value::Int(128)},
               {"num_sublanes", Value::Int(8)},
               {"mxu_column_size", Value::Int(chip.mxu_column_size)},
               {"num_mxus", Value::Int(chip.num_mxus)},
               {"num_accumulators", Value::Int(chip.num_accumulators)},
               {"vmem_capacity_bytes", Value::Int(chip.vmem_bytes)},
               {"cmem_capacity_bytes", per_core(static_cast<double>(chip.cmem_bytes))},
               {"smem_capacity_bytes", Value::Int(chip.smem_bytes)},
               {"hbm_capacity_bytes", per_core(chip.hbm_bytes)},
               {"mem_bw_bytes_per_second", per_core(chip.hbm_bandwidth)},
               {"bf16_ops_per_second", per_core(chip.bf16_ops)},
               {"int8_ops_per_second", per_core(chip.int8_ops)},
               {"fp8_ops_per_second", per_core(chip.fp8_ops)},
               {"int4_ops_per_second", per_core(chip.int4_ops)}};
  }
  std::string_view type_name() const override { return "TpuInfo"; }
  std::string Repr(Interpreter& interp) const override {
    std::string out = "TpuInfo(";
    for (const auto& [name, value] : fields_) {
      out += fmt::format("{}={}, ", name, interp.Repr(value));
    }
    std::optional<SparseCore> sc = SparseCoreOf(chip_);
    out += sc ? fmt::format(
                    "sparse_core=SparseCoreInfo(num_cores={}, num_subcores={}, "
                    "num_lanes={}, vmem_capacity_bytes={}, dma_granule_size_bytes={}))",
                    sc->cores, sc->subcores, sc->lanes, sc->vmem_bytes, sc->granule)
              : "sparse_core=None)";
    return out;
  }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override {
    for (const auto& [field, value] : fields_) {
      if (field == name) return value;
    }
    if (name == "sparse_core") {
      std::optional<SparseCore> sc = SparseCoreOf(chip_);
      if (!sc) return Value();
      return SparseCoreValue(*sc);
    }
    if (name == "is_lite") return Value::Bool(chip_.lite);
    if (name == "is_megacore") return Value::Bool(cores_ > 1);
    if (name == "is_split_chip") return Value::Bool(cores_ == 1 && chip_.physical_cores > 1);
    if (name == "get_sublane_tiling") {
      int generation = chip_.generation;
      return interp.MakeBuiltin(
          "get_sublane_tiling", [generation](Interpreter& interp, CallArgs& args) {
            auto b = eval::BindArgs(interp, "get_sublane_tiling", args, {"dtype"});
            array::DType dtype = eval::ToDType(interp, *b[0]);
            int bits = dtype == array::DType::kInt4 || dtype == array::DType::kUInt4
                           ? 4
                           : static_cast<int>(array::ItemSize(dtype)) * 8;
            if (generation < 7) return Value::Int(bits == 16 || bits == 32 ? 8 : 8 * (32 / bits));
            if (generation == 7) return Value::Int(8 * (32 / bits));
            interp.Raise(interp.types().not_implemented_error, "TPU generation is not supported");
          });
    }
    if (name == "is_matmul_supported") {
      int generation = chip_.generation;
      return interp.MakeBuiltin("is_matmul_supported", [generation](Interpreter& interp,
                                                                    CallArgs& args) {
        auto b = eval::BindArgs(interp, "is_matmul_supported", args, {"lhs_dtype", "rhs_dtype"});
        array::DType l = eval::ToDType(interp, *b[0]), r = eval::ToDType(interp, *b[1]);
        using D = array::DType;
        auto in = [](D d, std::initializer_list<D> set) {
          for (D x : set) {
            if (x == d) return true;
          }
          return false;
        };
        bool ok = false;
        switch (generation) {
          case 2:
          case 3:
            ok = l == D::kFloat32 && r == D::kFloat32;
            break;
          case 4:
            ok = in(l, {D::kFloat32, D::kBFloat16}) && in(r, {D::kFloat32, D::kBFloat16, D::kInt8});
            break;
          case 5:
          case 6:
            ok = (in(l, {D::kFloat32, D::kBFloat16}) && in(r, {D::kFloat32, D::kBFloat16})) ||
                 (in(l, {D::kUInt8, D::kInt8}) && in(r, {D::kUInt8, D::kInt8})) ||
                 (in(l, {D::kUInt4, D::kInt4}) && in(r, {D::kUInt4, D::kInt4}));
            break;
          case 7:
          case 8:
            ok = in(l, {D::kFloat32, D::kBFloat16}) && in(r, {D::kFloat32, D::kBFloat16});
            break;
          default:
            break;
        }
        return Value::Bool(ok);
      });
    }
    return std::nullopt;
  }
  void ClearReferences() override { fields_.clear(); }

 private:
  static Value SparseCoreValue(const SparseCore& sc) {
    auto module = std::make_shared<eval::ModuleObject>("SparseCoreInfo");
    module->Set("num_cores", Value::Int(sc.cores));
    module->Set("num_subcores", Value::Int(sc.subcores));
    module->Set("num_lanes", Value::Int(sc.lanes));
    module->Set("vmem_capacity_bytes", Value::Int(sc.vmem_bytes));
    module->Set("dma_granule_size_bytes", Value::Int(sc.granule));
    return Value(module);
  }

  const ChipInfo& chip_;
  int cores_;
  std::vector<std::pair<std::string, Value>> fields_;
};

Value InfoFor(Interpreter& interp, const ChipInfo& chip, int cores) {
  auto object = std::make_shared<TpuInfoObject>(chip, cores);
  interp.Track(object);
  return Value(object);
}

}  // namespace

const std::vector<ChipInfo>& ChipTable() {
  // version, member, generation, cores, lite, megacore, MXU columns, MXUs, accumulators,
  // VMEM, CMEM, SMEM (bytes per core), HBM bytes, HBM bytes/s, bf16 / int8 / fp8 / int4 op/s
  // (per chip; 0: not available).
  static const std::vector<ChipInfo> kChips = {
      {"v2", "TPU_V2", 2, 2, false, false, 128, 1, 0, 16 * kMiB, 0, 16 * 1024, 16e9, 7.16e11,
       4.6e13, 0, 0, 0, false},
      {"v3", "TPU_V3", 3, 2, false, false, 128, 2, 0, 16 * kMiB, 0, 16 * 1024, 34.4e9, 8.25e11,
       1.40e14, 0, 0, 0, false},
      {"v4i", "TPU_V4I", 4, 1, true, false, 128, 4, 0, 16 * kMiB, 134000000, kMiB, 8.59e9, 6.14e11,
       1.37e14, 0, 0, 0, true},
      {"v4", "TPU_V4", 4, 2, false, true, 128, 4, 0, 16 * kMiB, 134000000, kMiB, 34.4e9, 1.23e12,
       2.75e14, 0, 0, 0, true},
      {"v5e", "TPU_V5E", 5, 1, true, false, 128, 4, 0, 128 * kMiB, 0, kMiB, 17.2e9, 8.20e11,
       1.97e14, 3.94e14, 0, 7.88e14, false},
      {"v5p", "TPU_V5P", 5, 2, false, true, 128, 4, 0, 64 * kMiB, 0, kMiB, 103e9, 2.46e12, 4.59e14,
       9.18e14, 0, 1.84e15, false},
      {"v6e", "TPU_V6E", 6, 1, true, false, 256, 2, 0, 128 * kMiB, 0, kMiB, 34.4e9, 1.64e12,
       9.20e14, 1.84e15, 9.20e14, 3.68e15, false},
      {"7", "TPU_7", 7, 2, false, false, 256, 2, 128, 64 * kMiB, 0, kMiB, 206e9, 7.40e12, 2.31e15,
       0, 4.60e15, 0, false},
      {"7x", "TPU_7X", 7, 2, false, false, 256, 2, 128, 64 * kMiB, 0, kMiB, 206e9, 7.40e12, 2.31e15,
       0, 4.60e15, 0, false},
      {"8i", "TPU_8I", 8, 2, false, false, 256, 2, 256, 192 * kMiB, 0, kMiB, 309e9, 8.60e12,
       1.101e15, 0, 8.808e15, 0, false},
  };
  return kChips;
}

const ChipInfo* FindChip(std::string_view version) {
  for (const ChipInfo& chip : ChipTable()) {
    if (chip.version == version) return &chip;
  }
  return nullptr;
}

std::string EmulatedChip(const EmulatorOptions& options) {
  if (!options.chip.empty()) return options.chip;
  return options.cores > 1 ? "v5p" : "v5e";
}

void InstallTpuInfo(Interpreter& interp, EmulatorSession& session) {
  auto pltpu = interp.FindModule("jax.experimental.pallas.tpu");
  auto chip_version = std::make_shared<eval::ModuleObject>("ChipVersion");
  for (const ChipInfo& chip : ChipTable()) chip_version->Set(chip.member, ChipValue(chip));
  pltpu->Set("ChipVersion", Value(chip_version));
  EmulatorSession* s = &session;
  pltpu->Set("get_tpu_info",
             interp.MakeBuiltin("get_tpu_info", [s](Interpreter& interp, CallArgs& args) {
               eval::NoArgs(interp, "get_tpu_info", args);
               const ChipInfo* chip = FindChip(EmulatedChip(s->options));
               return InfoFor(interp, *chip, s->options.cores);
             }));
  pltpu->Set("get_tpu_info_for_chip",
             interp.MakeBuiltin("get_tpu_info_for_chip", [](Interpreter& interp, CallArgs& args) {
               auto b = eval::BindArgs(interp, "get_tpu_info_for_chip", args,
                                       {"chip_version", "num_tensor_cores_per_logical_device"});
               auto* version = b[0]->as<ChipVersionObject>();
               if (version == nullptr) {
                 interp.Raise(interp.types().value_error,
                              fmt::format("Unsupported TPU chip version: {}", interp.Repr(*b[0])));
               }
               int64_t cores = b[1]->is_integral() ? b[1]->integral() : 0;
               const ChipInfo& chip = version->chip;
               if (!chip.megacore && cores != 1) {
                 interp.Raise(interp.types().value_error,
                              fmt::format("Lite chips and dual-core chips that do not support "
                                          "Megacore must have "
                                          "num_tensor_cores_per_logical_device=1, but got {}.",
                                          interp.Repr(*b[1])));
               }
               return InfoFor(interp, chip, static_cast<int>(cores));
             }));
  // The emulator's devices are the CPU's (jax.devices()), as in JAX's interpret mode.
  pltpu->Set("is_tpu_device",
             interp.MakeBuiltin("is_tpu_device", [](Interpreter& interp, CallArgs& args) {
               eval::NoArgs(interp, "is_tpu_device", args);
               return Value::Bool(false);
             }));
}

}  // namespace pz::tpu

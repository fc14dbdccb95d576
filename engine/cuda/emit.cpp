// The CUDA emitter (see emit.h): the kernel's frame (arena, step loop, block fetches and
// write-backs) and control flow; emit_memory.cpp holds windows, loads, stores, DMAs and
// semaphores, emit_prims.cpp the primitives.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <variant>

#include "cuda/emit_internal.h"
#include "cuda/plan.h"
#include "cuda/prelude.h"
#include "support/check.h"

namespace pz::cuda {

namespace detail {

namespace {

// Arena slots start at 16-byte boundaries.
int64_t SlotBytes(int64_t bytes) { return (bytes + 15) / 16 * 16; }

}  // namespace

int64_t Emitter::AddSlot(int64_t bytes, bool is_ref) {
  slots_.push_back({.offset = 0, .bytes = SlotBytes(bytes), .is_ref = is_ref});
  return static_cast<int64_t>(slots_.size()) - 1;
}

void Emitter::NumberRegion(const kernel::Region& region) {
  for (const Instr& instr : region.body) {
    numbers_[&instr] = static_cast<int>(instrs_.size());
    instrs_.push_back(&instr);
    for (const kernel::Region& r : instr.regions) NumberRegion(r);
  }
}

void Emitter::CollectRegion(const kernel::Region& region) {
  for (const Instr& instr : region.body) {
    for (ValueId v : instr.results) {
      const kernel::ValueType& t = TypeOf(v);
      if (t.shape.empty() || register_only_[static_cast<size_t>(v)]) continue;
      value_slot_[static_cast<size_t>(v)] =
          AddSlot(Count(t.shape) * static_cast<int64_t>(array::ItemSize(t.dtype)), false);
    }
    if (instr.op == Op::kFor || instr.op == Op::kWhile) {
      std::vector<int64_t>& carries = carry_slots_[&instr];
      std::vector<int64_t>& temps = temp_slots_[&instr];
      for (ValueId v : instr.results) {
        const kernel::ValueType& t = TypeOf(v);
        int64_t bytes = Count(t.shape) * static_cast<int64_t>(array::ItemSize(t.dtype));
        carries.push_back(t.shape.empty() ? -1 : value_slot_[static_cast<size_t>(v)]);
        temps.push_back(t.shape.empty() ? -1 : AddSlot(bytes, false));
      }
    }
    for (const kernel::Region& r : instr.regions) {
      CollectRegion(r);
    }
  }
}

EmittedKernel Emitter::Run() {
  EmittedKernel out;
  out.name = req_.name;
  NumberRegion(f_.body);
  value_slot_.assign(f_.values.size(), -1);
  ref_slot_.assign(f_.refs.size(), -1);

  uses_.assign(f_.values.size(), 0);
  CountUses(f_.body);
  register_only_.assign(f_.values.size(), false);
  PlanRegion(f_.body);
  // Refs: pipelined block buffers, scratch, scoped buffers and semaphores get arena slots;
  // prefetch arrays and pl.ANY operands are the HBM arrays themselves.
  size_t num_prefetch = mapping_.prefetch.size();
  size_t num_operands = mapping_.inputs.size() + mapping_.outputs.size();
  auto pipelined = [&](size_t r) {
    return r >= num_prefetch && r < num_prefetch + num_operands &&
           f_.refs[r].space != kernel::MemorySpace::kAny;
  };
  // A scalar-prefetch ref the kernel writes gets a copy per CUDA block, filled from HBM when the
  // block starts: the HBM array is every block's, and on a GPU one block's store would reach
  // another's reads of it (SMEM is a TensorCore's own on a TPU).
  // The refs with a buffer of each block's own: scratch, scoped refs and those copies.
  std::vector<bool> local(f_.refs.size());
  for (size_t r = 0; r < f_.refs.size(); ++r) {
    kernel::RefRole role = f_.refs[r].role;
    local[r] = role == kernel::RefRole::kScratch || role == kernel::RefRole::kScoped ||
               (r < num_prefetch && kernel::FirstWriteTo(f_.body, static_cast<kernel::RefId>(r)));
  }
  // Block buffers that do not fit in shared memory: the operands that allow it become direct
  // windows instead of buffers in global memory (one copy less each way).
  direct_.assign(f_.refs.size(), false);
  window_at_.assign(f_.refs.size(), "");
  // (Scratch counts too: when windows and scratch do not fit together, scratch keeps the room.)
  int64_t window_bytes = 0, local_bytes = 0;
  for (size_t r = 0; r < f_.refs.size(); ++r) {
    const kernel::RefType& ref = f_.refs[r];
    if (!pipelined(r) && !local[r]) continue;
    int64_t item = ref.space == kernel::MemorySpace::kSemaphore
                       ? 24
                       : static_cast<int64_t>(array::ItemSize(ref.dtype));
    (local[r] ? local_bytes : window_bytes) +=
        SlotBytes(std::max<int64_t>(Count(ref.shape), 1) * item);
  }
  if (window_bytes + local_bytes > req_.shared_budget) {
    for (size_t r = 0; r < f_.refs.size(); ++r) {
      if (!pipelined(r) || !DirectSafe(static_cast<kernel::RefId>(r))) continue;
      direct_[r] = true;
      ++out.direct_operands;
    }
  }
  for (size_t r = 0; r < f_.refs.size(); ++r) {
    const kernel::RefType& ref = f_.refs[r];
    if ((!pipelined(r) || direct_[r]) && !local[r]) continue;
    int64_t item = ref.space == kernel::MemorySpace::kSemaphore
                       ? 8
                       : static_cast<int64_t>(array::ItemSize(ref.dtype));
    // A semaphore keeps, beside its counts, the instruction and step that last raised each one
    // (for the error when one is left non-zero).
    int64_t copies = ref.space == kernel::MemorySpace::kSemaphore ? 3 : 1;
    ref_slot_[r] = AddSlot(std::max<int64_t>(Count(ref.shape), 1) * item * copies, true);
  }
  CollectRegion(f_.body);
  // The partials of reductions that may take the block form (at most 1024 threads).
  int64_t reduce_slot = -1;
  for (const Instr* instr : instrs_) {
    if (!kernel::IsPrim(instr->op) || FamilyOf(kernel::PrimOf(instr->op)) != Family::kReduction) {
      continue;
    }
    int64_t reduced = Count(TypeOf(instr->operands[0]).shape);
    int64_t results = std::max<int64_t>(Count(TypeOf(instr->results[0]).shape), 1);
    if (ShapeReduce(results, reduced / results, 1024).block && reduce_slot < 0) {
      reduce_slot = AddSlot(kReducePartialBytes, false);
    }
  }
  // Placement: everything in shared memory when it fits; else the refs there when they fit and
  // the values in global memory; else all global.
  int64_t ref_bytes = 0, value_bytes = 0;
  for (const Slot& s : slots_) (s.is_ref ? ref_bytes : value_bytes) += s.bytes;
  bool refs_shared = ref_bytes <= req_.shared_budget;
  bool values_shared = refs_shared && ref_bytes + value_bytes <= req_.shared_budget;
  out.arena_in_shared = refs_shared && values_shared;
  int64_t shared_at = 0, global_at = 0;
  std::vector<bool> in_shared(slots_.size());
  for (size_t s = 0; s < slots_.size(); ++s) {
    in_shared[s] = slots_[s].is_ref ? refs_shared : values_shared;
    int64_t& at = in_shared[s] ? shared_at : global_at;
    slots_[s].offset = at;
    at += slots_[s].bytes;
  }
  ref_shared_.assign(f_.refs.size(), false);
  for (size_t r = 0; r < f_.refs.size(); ++r) {
    if (ref_slot_[r] >= 0) ref_shared_[r] = in_shared[static_cast<size_t>(ref_slot_[r])];
  }
  // Products: kernels with any get fewer threads (their tiles keep more registers); products of
  // 16-bit floats whose operands are in global memory stage tiles of them in shared memory, when
  // there is room (EmitStagedTensorCoreDot).
  // A product stages when an operand is in global memory: a value there, or read (its load
  // folded into the product) from a ref there or a direct window.
  auto operand_in_global = [&](const Instr& dot) {
    auto folded = folded_.find(&dot);
    for (size_t side = 0; side < 2; ++side) {
      const Instr* load = folded == folded_.end() ? nullptr : folded->second[side];
      if (load == nullptr ? !values_shared : !ref_shared_[static_cast<size_t>(load->ref.ref)]) {
        return true;
      }
    }
    return false;
  };
  bool stages = false, wide = true, float_stages = false, tensor_stages = false;
  for (const Instr* instr : instrs_) {
    if (!kernel::IsPrim(instr->op) || kernel::PrimOf(instr->op) != Prim::kDotGeneral) continue;
    out.threads = 512;
    out.tensor_products = out.tensor_products || TensorCoreTypes(*instr);
    stages = stages || (StagesOperands(*instr) && operand_in_global(*instr));
    float_stages = float_stages || (StagesOperands(*instr) && FloatProduct(*instr));
    tensor_stages = tensor_stages || (StagesOperands(*instr) && TensorCoreTypes(*instr));
    if (StagesOperands(*instr) && TensorCoreTypes(*instr)) {
      std::optional<MatrixProduct> p = MatrixForm(*instr, Strides(TypeOf(instr->operands[0]).shape),
                                                  Strides(TypeOf(instr->operands[1]).shape));
      wide = wide && p && p->k % kWideStageK == 0;
    }
  }
  staging_at_ = -1;
  stage_k_ = kStageK;
  if (stages && wide && shared_at + kWideStagingBytes <= req_.shared_budget) {
    staging_at_ = shared_at;
    stage_k_ = kWideStageK;
    shared_at += kWideStagingBytes;
  } else if (stages && shared_at + kStagingBytes <= req_.shared_budget) {
    staging_at_ = shared_at;
    shared_at += kStagingBytes;
  }
  out.staged_products = staging_at_ >= 0;
  // The staged float32 form is written for 512 threads; where it is not in the kernel, the
  // staged tensor-core products set the block's threads by their warp tile.
  if (out.staged_products && !float_stages) out.threads = req_.warp_tile.Threads();
  out.tensor_staged =
      out.staged_products && tensor_stages && out.threads == req_.warp_tile.Threads();
  out.warp_tile = req_.warp_tile;
  PlanResident();
  threads_ = out.threads;
  out.shared_bytes = shared_at;
  out.global_bytes = global_at;
  auto slot_pointer = [&](int64_t s, const std::string& type) {
    return fmt::format("({}*)({} + {})", type,
                       in_shared[static_cast<size_t>(s)] ? "pz_smem" : "pz_gmem",
                       slots_[static_cast<size_t>(s)].offset);
  };

  if (reduce_slot >= 0) reduce_at_ = slot_pointer(reduce_slot, "char");
  // The step table's columns.
  out.layout = LayoutOf(f_, mapping_);

  // ---- the function ----
  w_.Line(fmt::format("// {}", req_.origin));
  w_.Open(
      fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}(const unsigned long "
                  "long* __restrict__ pz_args) {{",
                  out.threads, req_.name));
  w_.Line("PZ_SHARED_DECL");
  w_.Line(
      fmt::format("[[maybe_unused]] long long* const pz_status = (long long*)pz_args[{}] + {} * "
                  "(long long)blockIdx.x;",
                  static_cast<int>(kArgStatus), kStatusWords));
  w_.Line(fmt::format("const long long* const pz_table = (const long long*)pz_args[{}];",
                      static_cast<int>(kArgTable)));
  w_.Line(
      fmt::format("[[maybe_unused]] char* const pz_gmem = (char*)pz_args[{}] + (long "
                  "long)blockIdx.x * (long long)pz_args[{}];",
                  static_cast<int>(kArgGlobalArena), static_cast<int>(kArgArenaStride)));
  w_.Line(fmt::format("const long long pz_chains = (long long)pz_args[{}];",
                      static_cast<int>(kArgChains)));
  // HBM arrays.
  std::vector<std::string> hbm;
  for (size_t i = 0; i < num_prefetch + num_operands; ++i) {
    DType d =
        i < num_prefetch ? mapping_.prefetch[i].dtype : mapping_.operand(i - num_prefetch).dtype;
    hbm.push_back(fmt::format("pz_hbm{}", i));
    w_.Line(fmt::format("[[maybe_unused]] {}* const {} = ({}*)pz_args[{}];", StorageType(d),
                        hbm.back(), StorageType(d),
                        static_cast<int>(kArgOperands) + static_cast<int>(i)));
  }
  // The log of prints, after the HBM arrays.
  if (std::any_of(instrs_.begin(), instrs_.end(),
                  [](const Instr* i) { return i->op == Op::kDebugPrint; })) {
    out.log_arg = static_cast<int64_t>(kArgOperands) + static_cast<int64_t>(hbm.size());
    w_.Line(fmt::format("unsigned long long* const pz_log = (unsigned long long*)pz_args[{}];",
                        out.log_arg));
    w_.Line("unsigned long long pz_print_seq = 0;");
  }
  // Refs.
  for (size_t r = 0; r < f_.refs.size(); ++r) {
    const kernel::RefType& ref = f_.refs[r];
    std::string type =
        ref.space == kernel::MemorySpace::kSemaphore ? "long long" : StorageType(ref.dtype);
    std::string where = ref_slot_[r] >= 0 ? slot_pointer(ref_slot_[r], type) : hbm.at(r);
    w_.Line(fmt::format("[[maybe_unused]] {}* const r{} = {};  // {}{}", type, r, where, ref.name,
                        direct_[r] ? " (direct window)" : ""));
    if (pipelined(r)) EmitWindowAccessors(static_cast<kernel::RefId>(r), out);
  }
  // Values: arrays point into the arena, scalars are registers.
  for (size_t v = 0; v < f_.values.size(); ++v) {
    const kernel::ValueType& t = f_.values[v];
    if (t.shape.empty()) {
      w_.Line(
          fmt::format("[[maybe_unused]] {} v{} = {};", RegType(t.dtype), v, Literal(t.dtype, 0)));
    } else if (value_slot_[v] >= 0) {
      w_.Line(fmt::format("[[maybe_unused]] {}* v{} = {};", StorageType(t.dtype), v,
                          slot_pointer(value_slot_[v], StorageType(t.dtype))));
    } else {
      w_.Line(fmt::format("[[maybe_unused]] {}* v{} = nullptr;", StorageType(t.dtype), v));
    }
  }
  for (auto& [instr, temps] : temp_slots_) {
    for (size_t k = 0; k < temps.size(); ++k) {
      if (temps[k] < 0) continue;
      DType d = TypeOf(instr->results[k]).dtype;
      w_.Line(fmt::format("{}* const t{} = {};", StorageType(d), temps[k],
                          slot_pointer(temps[k], StorageType(d))));
    }
  }
  // Block and scratch buffers start as the emulator's poison (so reading them before writing
  // shows as it does there), semaphores at zero, a block's copies of scalar-prefetch refs as the
  // arrays in HBM.
  for (size_t r = 0; r < f_.refs.size(); ++r) {
    const kernel::RefType& ref = f_.refs[r];
    if (ref_slot_[r] < 0 || ref.space == kernel::MemorySpace::kSemaphore) continue;
    w_.Line(ElementLoop(std::max<int64_t>(Count(ref.shape), 1)) +
            (r < num_prefetch ? fmt::format(" r{}[pz_i] = {}[pz_i];", r, hbm.at(r))
                              : fmt::format(" r{}[pz_i] = {};", r, Fresh(ref.dtype))));
  }
  for (size_t r = 0; r < f_.refs.size(); ++r) {
    if (f_.refs[r].space != kernel::MemorySpace::kSemaphore || ref_slot_[r] < 0) continue;
    w_.Line(ElementLoop(3 * std::max<int64_t>(Count(f_.refs[r].shape), 1)) +
            fmt::format(" r{}[pz_i] = 0;", r));
  }
  Sync();

  // ---- the chains ----
  int64_t columns = out.layout.columns;
  w_.Line(fmt::format("const long long pz_steps = (long long)pz_args[{}];",
                      static_cast<int>(kArgSteps)));
  EmitResidentDeclarations();
  // Random numbers: the unit's helpers, and the core generator's state when the kernel seeds it.
  bool prng = false;
  for (const Instr* instr : instrs_) {
    prng = prng || instr->op == Op::kPrngSeed || instr->op == Op::kPrngRandomBits;
    out.random = out.random || (kernel::IsPrim(instr->op) &&
                                FamilyOf(kernel::PrimOf(instr->op)) == Family::kRandom);
  }
  out.random = out.random || prng;
  if (prng) {
    w_.Line("unsigned pz_prng_k0 = 0u, pz_prng_k1 = 0u;");
    w_.Line("unsigned long long pz_prng_drawn = 0;");
    w_.Line("bool pz_prng_seeded = false;");
  }
  w_.Open("for (long long pz_chain = blockIdx.x; pz_chain < pz_chains; pz_chain += gridDim.x) {");
  if (prng) w_.Line("pz_prng_seeded = false;  // each chain's generator starts unseeded");
  w_.Open("for (long long pz_s = 0; pz_s < pz_steps; ++pz_s) {");
  w_.Line("const long long pz_step = pz_chain * pz_steps + pz_s;");
  // (A table of no columns, a call without a grid or windows, has nothing to read.)
  w_.Line(fmt::format("{}const long long* const pz_e = pz_table + pz_step * {};",
                      columns == 0 ? "[[maybe_unused]] " : "", columns));
  for (size_t a = 0; a < mapping_.grid.size(); ++a) {
    w_.Line(fmt::format("[[maybe_unused]] const int pz_g{} = (int)pz_e[{}];", a, a));
  }
  // A window moved: its starts differ from the neighbouring step's.
  auto moved = [&](int64_t column, size_t rank, int64_t neighbour) {
    std::string e;
    for (size_t d = 0; d < rank; ++d) {
      e += fmt::format("{}pz_e[{}] != pz_e[{}]", d ? " || " : "", column + static_cast<int64_t>(d),
                       column + static_cast<int64_t>(d) + neighbour * columns);
    }
    return e.empty() ? "false" : e;
  };
  // A block buffer filled from its window, or written back to it (EmitWindowAccessors).
  auto window_loop = [&](size_t k, bool fetch) {
    const kernel::BlockMapping& op = mapping_.operand(k);
    int64_t column = out.layout.operand_column[k];
    size_t rank = op.shape.size();
    size_t r = num_prefetch + k;
    // An input the kernel stores into is fetched where the emulated TPU fetches it (the fetch
    // column: the chain's steps need not be consecutive in the grid's order).
    int64_t fetch_column = k < out.layout.fetch_column.size() ? out.layout.fetch_column[k] : -1;
    std::string condition = !fetch ? "pz_s == pz_steps - 1 || " + moved(column, rank, 1)
                            : fetch_column >= 0 ? fmt::format("pz_e[{}] != 0", fetch_column)
                                                : "pz_s == 0 || " + moved(column, rank, -1);
    w_.Open(
        fmt::format("if ({}) {{  // {} {}", condition, fetch ? "fetch" : "write back", op.name));
    w_.Line(
        ElementLoop(Count(WindowShape(op))) +
        (fetch
             ? fmt::format(" r{}[pz_i] = {}_read({}, pz_e, pz_i);", r, window_at_[r], hbm.at(r))
             : fmt::format(" {}_write({}, pz_e, pz_i, r{}[pz_i]);", window_at_[r], hbm.at(r), r)));
    w_.Close();
  };
  for (size_t k = 0; k < mapping_.inputs.size(); ++k) {
    if (out.layout.operand_column[k] >= 0 && !direct_[num_prefetch + k]) window_loop(k, true);
  }
  // An output block's new visit starts as the emulator's poison where a write-back could show
  // what the visit before left (with zeroed memory the buffer keeps it, as the emulator does).
  for (size_t k = mapping_.inputs.size(); k < num_operands && !req_.zero_uninitialized; ++k) {
    size_t r = num_prefetch + k;
    if (out.layout.operand_column[k] < 0 || direct_[r] || LeftoverUnseen(f_, mapping_, k)) continue;
    const kernel::BlockMapping& op = mapping_.operand(k);
    w_.Open(fmt::format("if (pz_s == 0 || {}) {{  // a new visit of {}",
                        moved(out.layout.operand_column[k], op.shape.size(), -1), op.name));
    w_.Line(ElementLoop(Count(WindowShape(op))) +
            fmt::format(" r{}[pz_i] = {};", r, PoisonStorage(op.dtype)));
    w_.Close();
  }
  Sync();
  EmitRegion(f_.body);
  Sync();
  for (size_t k = mapping_.inputs.size(); k < num_operands; ++k) {
    if (out.layout.operand_column[k] >= 0 && !direct_[num_prefetch + k]) window_loop(k, false);
  }
  Sync();
  w_.Close();
  EmitResidentFlush();
  w_.Close();
  // Every semaphore is back at zero when the kernel ends (a TPU crashes otherwise).
  for (size_t r = 0; r < f_.refs.size(); ++r) {
    if (f_.refs[r].space != kernel::MemorySpace::kSemaphore || ref_slot_[r] < 0) continue;
    int64_t n = std::max<int64_t>(Count(f_.refs[r].shape), 1);
    w_.Open(fmt::format("for (long long pz_i = 0; pz_i < {}; ++pz_i) {{", n));
    w_.Open(fmt::format("if (r{}[pz_i] != 0) {{", r));
    w_.Line(fmt::format(
        "if (threadIdx.x == 0) pz_fault(pz_status, {}, r{}[{} + pz_i], r{}[{} + pz_i], {}, pz_i, "
        "r{}[pz_i], 0);",
        static_cast<int64_t>(DeviceFault::kSemaphoreNonzero), r, n, r, 2 * n, r, r));
    w_.Line("return;");
    w_.Close();
    w_.Close();
  }
  w_.Close();
  out.source = tables_.text() + w_.text();
  out.instrs = instrs_;
  return out;
}

std::string Emitter::Fault(const Instr& instr, DeviceFault fault,
                           const std::vector<std::string>& detail) {
  std::string args;
  for (size_t i = 0; i < 4; ++i) {
    args += ", (long long)(" + (i < detail.size() ? detail[i] : std::string("0")) + ")";
  }
  return fmt::format("{{ if (threadIdx.x == 0) pz_fault(pz_status, {}, {}, pz_step{}); return; }}",
                     static_cast<int64_t>(fault), Number(instr), args);
}

void Emitter::EmitInstr(const Instr& instr) {
  if (kernel::IsPrim(instr.op)) {
    EmitPrim(instr);
    return;
  }
  switch (instr.op) {
    case Op::kConstant:
      return EmitConstant(instr);
    case Op::kProgramId:
      w_.Line(fmt::format("{} = pz_g{};", Name(instr.results[0]), instr.axis));
      return;
    case Op::kLoad:
      return EmitLoad(instr);
    case Op::kStore:
      return EmitStore(instr);
    case Op::kCond:
    case Op::kSwitch:
      return EmitCond(instr);
    case Op::kFor:
    case Op::kWhile:
      return EmitLoop(instr);
    case Op::kDmaStart:
    case Op::kDmaWait:
      if (instr.device_operands > 0 || instr.send_sem.ref >= 0) {
        Fail(instr, "the CUDA backend cannot run remote DMAs (pltpu.make_async_remote_copy)",
             "run this kernel on the emulated TPU (without `--backend cuda`)");
      }
      return EmitDma(instr);
    case Op::kSemaphoreSignal:
      if (instr.device_operands > 0) {
        Fail(instr, "the CUDA backend cannot signal a semaphore of another device (device_id=)",
             "run this kernel on the emulated TPU (without `--backend cuda`)");
      }
      return EmitSemaphore(instr);
    case Op::kSemaphoreWait:
    case Op::kSemaphoreRead:
      return EmitSemaphore(instr);
    case Op::kRunScoped:
      // Fresh buffers: poisoned, semaphores at zero.
      for (kernel::RefId r : instr.scoped) {
        const kernel::RefType& ref = f_.refs.at(static_cast<size_t>(r));
        w_.Line(ElementLoop(std::max<int64_t>(Count(ref.shape), 1)) +
                fmt::format(" r{}[pz_i] = {};", r,
                            ref.space == kernel::MemorySpace::kSemaphore ? "0" : Fresh(ref.dtype)));
      }
      Sync();
      EmitRegion(instr.regions[0]);
      for (size_t k = 0; k < instr.results.size(); ++k) {
        w_.Line(fmt::format("{} = {};", Name(instr.results[k]), Name(instr.regions[0].yields[k])));
      }
      return;
    case Op::kDebugPrint:
      return EmitPrint(instr);
    case Op::kPrngSeed:
    case Op::kPrngRandomBits:
      return EmitPrng(instr);
    default:
      Fail(instr, fmt::format("the CUDA backend cannot run `{}`", kernel::OpName(instr.op)));
  }
}

// ---- control flow -----------------------------------------------------------------------------

void Emitter::CopyValue(const std::string& dst_pointer, ValueId src) {
  w_.Line(ElementLoop(Count(TypeOf(src).shape)) +
          fmt::format(" {}[pz_i] = {}[pz_i];", dst_pointer, Name(src)));
}

// targets[k] = sources[k] for loop carries: scalars by value, arrays copied into the carry
// slots (through the staging slots, since a source may be another carry).
void Emitter::AssignCarries(const std::vector<ValueId>& targets,
                            const std::vector<ValueId>& sources,
                            const std::vector<int64_t>& temps) {
  w_.Open("{");
  for (size_t k = 0; k < targets.size(); ++k) {
    if (IsScalar(targets[k])) {
      w_.Line(
          fmt::format("const {} pz_t{} = {};", RegType(TypeOf(targets[k]).dtype), k,
                      Cast(TypeOf(sources[k]).dtype, TypeOf(targets[k]).dtype, Name(sources[k]))));
    } else if (targets[k] != sources[k]) {
      CopyValue(fmt::format("t{}", temps[k]), sources[k]);
    }
  }
  Sync();
  for (size_t k = 0; k < targets.size(); ++k) {
    if (IsScalar(targets[k])) {
      w_.Line(fmt::format("{} = pz_t{};", Name(targets[k]), k));
    } else if (targets[k] != sources[k]) {
      w_.Line(ElementLoop(Count(TypeOf(targets[k]).shape)) +
              fmt::format(" {}[pz_i] = t{}[pz_i];", Name(targets[k]), temps[k]));
    }
  }
  Sync();
  w_.Close();
}

void Emitter::EmitLoop(const Instr& instr) {
  const std::vector<int64_t>& temps = temp_slots_.at(&instr);
  // The carries live in the results' storage; region params alias them.
  std::vector<ValueId> inits(instr.operands.begin() + (instr.op == Op::kFor ? 2 : 0),
                             instr.operands.end());
  AssignCarries(instr.results, inits, temps);
  auto bind_params = [&](const kernel::Region& region, size_t first) {
    for (size_t k = 0; k < instr.results.size(); ++k) {
      w_.Line(fmt::format("{} = {};", Name(region.params[first + k]), Name(instr.results[k])));
    }
  };
  if (instr.op == Op::kFor) {
    const kernel::Region& body = instr.regions[0];
    ValueId index = body.params[0];
    w_.Open(fmt::format("for (long long pz_it = (long long){}; pz_it < (long long){}; ++pz_it) {{",
                        Name(instr.operands[0]), Name(instr.operands[1])));
    w_.Line(fmt::format("{} = ({})pz_it;", Name(index), RegType(TypeOf(index).dtype)));
    bind_params(body, 1);
    EmitRegion(body);
    AssignCarries(instr.results, body.yields, temps);
    w_.Close();
    return;
  }
  const kernel::Region& cond = instr.regions[0];
  const kernel::Region& body = instr.regions[1];
  w_.Open("for (long long pz_it = 0;; ++pz_it) {");
  w_.Line(
      fmt::format("if (pz_it >= {}) {}", kMaxWhileIterations,
                  Fault(instr, DeviceFault::kLoopLimit, {std::to_string(kMaxWhileIterations)})));
  bind_params(cond, 0);
  EmitRegion(cond);
  w_.Line(fmt::format("if (!({})) break;", Name(cond.yields[0])));
  bind_params(body, 0);
  EmitRegion(body);
  AssignCarries(instr.results, body.yields, temps);
  w_.Close();
}

void Emitter::EmitCond(const Instr& instr) {
  // Results take the yields' values: scalars by value, arrays by pointer (a value's storage is
  // never reused, so the yield's storage stays valid).
  auto branch = [&](const kernel::Region& region) {
    EmitRegion(region);
    for (size_t k = 0; k < instr.results.size(); ++k) {
      ValueId y = region.yields[k];
      ValueId r = instr.results[k];
      if (IsScalar(r)) {
        w_.Line(fmt::format("{} = {};", Name(r), Cast(TypeOf(y).dtype, TypeOf(r).dtype, Name(y))));
      } else {
        w_.Line(fmt::format("{} = {};", Name(r), Name(y)));
      }
    }
  };
  ValueId selector = instr.operands[0];
  if (instr.op == Op::kCond) {
    w_.Open(fmt::format("if ({}) {{", Name(selector)));
    branch(instr.regions[0]);
    if (instr.regions.size() > 1) {
      w_.Reopen("} else {");
      branch(instr.regions[1]);
    }
    w_.Close();
    return;
  }
  int64_t n = static_cast<int64_t>(instr.regions.size());
  w_.Open(fmt::format("switch ((int)pz_clampll((long long){}, 0, {})) {{", Name(selector), n - 1));
  for (int64_t k = 0; k < n; ++k) {
    w_.Open(fmt::format("case {}: {{", k));
    branch(instr.regions[static_cast<size_t>(k)]);
    w_.Line("break;");
    w_.Close();
  }
  w_.Close();
}

}  // namespace detail

EmittedKernel EmitKernel(const EmitRequest& request) { return detail::Emitter(request).Run(); }

std::string AssembleUnit(const std::vector<const EmittedKernel*>& kernels) {
  std::string unit(Prelude());
  if (std::any_of(kernels.begin(), kernels.end(),
                  [](const EmittedKernel* k) { return k->random; })) {
    unit += RandomPrelude();
  }
  if (std::any_of(kernels.begin(), kernels.end(),
                  [](const EmittedKernel* k) { return k->log_arg >= 0; })) {
    unit += PrintPrelude();
  }
  for (const EmittedKernel* k : kernels) {
    unit += "\n";
    unit += k->source;
  }
  return unit;
}

std::string KernelName(const std::string& call_name, int serial) {
  std::string name = "pz_";
  for (char c : call_name) {
    name += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  }
  return fmt::format("{}_{}", name, serial);
}

}  // namespace pz::cuda
// Resident accumulators of the CUDA emitter (emit_internal.h): the tiled matmul's
// `acc_ref[...] += jnp.dot(...)`, run once per grid step, keeps its staged tensor-core
// accumulators in registers from one step of a chain to the next instead of reading and writing
// the scratch ref at every step. The ref is written back ("flushed") before anything else reads
// or writes it, and at the end of each chain, so that every other instruction sees it as the
// emulated TPU does.
#include <fmt/format.h>

#include <string>

#include "cuda/emit_internal.h"

namespace pz::cuda::detail {

namespace {

// The path names the whole ref: no indexer, or indexers that each keep every element in place.
bool WholeRef(const kernel::RefPath& path, const Shape& shape) {
  for (const kernel::Indexer& indexer : path.indexers) {
    if (indexer.size() != shape.size()) return false;
    for (size_t d = 0; d < shape.size(); ++d) {
      const kernel::DimIndex& index = indexer[d];
      if (index.is_int || index.dynamic_start != kernel::kNoValue || index.start != 0 ||
          index.size != shape[d] || index.stride != 1) {
        return false;
      }
    }
  }
  return true;
}

// `instr` itself (not its regions) names ref `r`.
bool Touches(const Instr& instr, kernel::RefId r) {
  for (const kernel::RefPath* path : kernel::RefPathsOf(instr)) {
    if (path->ref == r) return true;
  }
  return false;
}

}  // namespace

bool Emitter::TouchesResident(const Instr& instr) const {
  return resident_ref_ >= 0 && Touches(instr, resident_ref_);
}

void Emitter::PlanResident() {
  resident_dot_ = nullptr;
  resident_ref_ = -1;
  if (staging_at_ < 0) return;
  const std::vector<const Instr*>& top = orders_.at(&f_.body);
  for (const Instr* dot : top) {
    // A product of the kernel's body itself (once per grid step), on tensor cores, staged, whose
    // result is one 128 x 128 tile (the block's warps hold it in their fragments); the first
    // in the body's order.
    auto epilogue = epilogue_.find(dot);
    if (epilogue == epilogue_.end()) continue;
    const FusedLoop* loop = epilogue->second;
    if (!TensorCoreTypes(*dot) || !StagesOperands(*dot)) continue;
    std::optional<MatrixProduct> p = MatrixForm(*dot, Strides(TypeOf(dot->operands[0]).shape),
                                                Strides(TypeOf(dot->operands[1]).shape));
    if (!p || p->batches != 1 || p->m != 128 || p->n != 128) continue;
    if (TypeOf(dot->results[0]).dtype != DType::kFloat32) continue;
    // Its epilogue: acc = acc + dot on a whole float32 scratch ref of the result's shape.
    if (!loop->hoisted.empty() || loop->members.size() != 3) continue;
    const Instr& load = *loop->members[0];
    const Instr& add = *loop->members[1];
    const Instr& store = *loop->members[2];
    if (load.op != Op::kLoad || store.op != Op::kStore || !kernel::IsPrim(add.op) ||
        kernel::PrimOf(add.op) != Prim::kAdd) {
      continue;
    }
    kernel::RefId r = load.ref.ref;
    const kernel::RefType& ref = f_.refs.at(static_cast<size_t>(r));
    if (store.ref.ref != r || ref.role != kernel::RefRole::kScratch ||
        ref.dtype != DType::kFloat32 || ref.shape != TypeOf(dot->results[0]).shape ||
        !WholeRef(load.ref, ref.shape) || !WholeRef(store.ref, ref.shape)) {
      continue;
    }
    ValueId loaded = load.results[0], product = dot->results[0];
    bool sums = (add.operands[0] == loaded && add.operands[1] == product) ||
                (add.operands[0] == product && add.operands[1] == loaded);
    if (!sums || store.operands.empty() || store.operands[0] != add.results[0] ||
        TypeOf(add.results[0]).dtype != DType::kFloat32) {
      continue;
    }
    // Nothing else reaches the ref but loads and stores that EmitRegion emits, alone or in a
    // fused loop (where a flush can go before them): none inside another product (folded into
    // its operands or in its epilogue), none hoisted ahead of a fused loop.
    bool plain = true;
    for (const Instr* instr : instrs_) {
      if (Touches(*instr, r) && instr->op != Op::kLoad && instr->op != Op::kStore) plain = false;
    }
    for (const auto& [folding, loads] : folded_) {
      for (const Instr* folded : loads)
        plain = plain && (folded == nullptr || !Touches(*folded, r));
    }
    for (const auto& [other, other_loop] : epilogue_) {
      if (other == dot) continue;
      for (const Instr* member : other_loop->members) plain = plain && !Touches(*member, r);
    }
    for (const auto& [region, loops] : loops_) {
      for (const FusedLoop& other : loops) {
        for (const Instr* hoisted : other.hoisted) plain = plain && !Touches(*hoisted, r);
      }
    }
    if (!plain) continue;
    resident_dot_ = dot;
    resident_ref_ = r;
    return;  // one product at most
  }
}

void Emitter::EmitResidentDeclarations() {
  if (resident_dot_ == nullptr) return;
  w_.Line(fmt::format(
      "// `{}`: its accumulators, in the registers of the product that adds into it at every "
      "grid step while pz_resident",
      f_.refs.at(static_cast<size_t>(resident_ref_)).name));
  w_.Line(fmt::format("[[maybe_unused]] float pz_racc[{}][{}][4];", req_.warp_tile.MTiles(),
                      req_.warp_tile.NTiles()));
  w_.Line("[[maybe_unused]] bool pz_resident = false;");
}

// Element (u, v, q) of a warp's accumulators (EmitMmaResults' layout) in the 128 x 128 ref.
std::string Emitter::ResidentElement() const {
  return fmt::format(
      "r{}[(pz_wm + pz_u * 16 + pz_gid + (pz_q >> 1) * 8) * 128 + pz_wn + pz_v * 8 + pz_tig * 2 + "
      "(pz_q & 1)]",
      resident_ref_);
}

void Emitter::EmitResidentLoop(const std::string& statement) {
  w_.Line("#pragma unroll");
  w_.Open(fmt::format("for (int pz_u = 0; pz_u < {}; ++pz_u) {{", req_.warp_tile.MTiles()));
  w_.Line("#pragma unroll");
  w_.Open(fmt::format("for (int pz_v = 0; pz_v < {}; ++pz_v) {{", req_.warp_tile.NTiles()));
  w_.Line("#pragma unroll");
  w_.Line(fmt::format("for (int pz_q = 0; pz_q < 4; ++pz_q) {}", statement));
  w_.Close();
  w_.Close();
}

void Emitter::EmitResidentFlush() {
  if (resident_dot_ == nullptr) return;
  w_.Open(fmt::format("if (pz_resident) {{  // `{}` back from the registers",
                      f_.refs.at(static_cast<size_t>(resident_ref_)).name));
  EmitWarpTile();
  w_.Line("const int pz_gid = pz_lane >> 2, pz_tig = pz_lane & 3;");
  EmitResidentLoop(ResidentElement() + " = pz_racc[pz_u][pz_v][pz_q];");
  w_.Line("pz_resident = false;");
  Sync();
  w_.Close();
}

void Emitter::EmitResidentAccumulators() {
  // In the staged form's tile loop (one tile): the registers themselves, filled from the ref
  // when they do not hold it yet (the barrier before the product has passed its writers).
  w_.Line(fmt::format("float (&pz_d)[{}][{}][4] = pz_racc;", req_.warp_tile.MTiles(),
                      req_.warp_tile.NTiles()));
  w_.Open("if (!pz_resident) {");
  w_.Line("const int pz_gid = pz_lane >> 2, pz_tig = pz_lane & 3;");
  EmitResidentLoop("pz_d[pz_u][pz_v][pz_q] = " + ResidentElement() + ";");
  w_.Line("pz_resident = true;");
  w_.Close();
}

}  // namespace pz::cuda::detail

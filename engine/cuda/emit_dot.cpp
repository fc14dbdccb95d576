// Products of the CUDA emitter (emit_internal.h): dot_general as (batch,) M x K times K x N in
// register tiles, on tensor cores for 16-bit floats (mma.sync, sm_80 and later), and the fused
// loop that consumes a product run as its epilogue; other products as one loop per result
// element. Products whose operand tiles are staged in shared memory: emit_staged.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <variant>

#include "cuda/emit_internal.h"

namespace pz::cuda::detail {

std::optional<Emitter::MatrixProduct> Emitter::MatrixForm(const Instr& instr, const Shape& lst,
                                                          const Shape& rst) const {
  const array::DotDimensionNumbers& dims = std::get<array::DotAttrs>(instr.prim.attrs).dims;
  ValueId lhs = instr.operands[0], rhs = instr.operands[1];
  const Shape& ls = TypeOf(lhs).shape;
  const Shape& rs = TypeOf(rhs).shape;
  // (batch,) M x K times K x N: one free dimension on each side, one contracting, at most one
  // batch dimension.
  if (dims.lhs_batch.size() > 1 || dims.lhs_contracting.size() != 1 ||
      ls.size() != dims.lhs_batch.size() + 2 || rs.size() != dims.lhs_batch.size() + 2) {
    return std::nullopt;
  }
  auto free_dim = [](const Shape& shape, const std::vector<int>& batch,
                     const std::vector<int>& contracting) {
    for (size_t d = 0; d < shape.size(); ++d) {
      if (std::find(batch.begin(), batch.end(), static_cast<int>(d)) == batch.end() &&
          std::find(contracting.begin(), contracting.end(), static_cast<int>(d)) ==
              contracting.end()) {
        return d;
      }
    }
    return size_t{0};
  };
  size_t lf = free_dim(ls, dims.lhs_batch, dims.lhs_contracting);
  size_t rf = free_dim(rs, dims.rhs_batch, dims.rhs_contracting);
  size_t lc = static_cast<size_t>(dims.lhs_contracting[0]);
  size_t rc = static_cast<size_t>(dims.rhs_contracting[0]);
  MatrixProduct p;
  p.m = ls[lf];
  p.n = rs[rf];
  p.k = ls[lc];
  p.lm = lst[lf];
  p.lk = lst[lc];
  p.rn = rst[rf];
  p.rk = rst[rc];
  if (!dims.lhs_batch.empty()) {
    p.batches = ls[static_cast<size_t>(dims.lhs_batch[0])];
    p.lb = lst[static_cast<size_t>(dims.lhs_batch[0])];
    p.rb = rst[static_cast<size_t>(dims.rhs_batch[0])];
  }
  p.lhs = lhs;
  p.rhs = rhs;
  return p;
}

bool Emitter::TensorCoreTypes(const Instr& instr) const {
  DType ld = TypeOf(instr.operands[0]).dtype;
  return ld == TypeOf(instr.operands[1]).dtype &&
         (ld == DType::kBFloat16 || ld == DType::kFloat16) &&
         IsFloat(TypeOf(instr.results[0]).dtype);
}

bool Emitter::FloatProduct(const Instr& instr) const {
  return TypeOf(instr.operands[0]).dtype == DType::kFloat32 &&
         TypeOf(instr.operands[1]).dtype == DType::kFloat32 &&
         IsFloat(TypeOf(instr.results[0]).dtype);
}

bool Emitter::StagesOperands(const Instr& instr) const {
  bool tensor = TensorCoreTypes(instr);
  if (!tensor && !FloatProduct(instr)) return false;
  std::optional<MatrixProduct> p = MatrixForm(instr, Strides(TypeOf(instr.operands[0]).shape),
                                              Strides(TypeOf(instr.operands[1]).shape));
  return p && p->m % 128 == 0 && p->n % 128 == 0 && p->k % (tensor ? kStageK : kFloatStageK) == 0;
}

std::string Emitter::Operand(const MatrixProduct& p, int side, const std::string& index) const {
  const Access* a = side == 0 ? p.lhs_access : p.rhs_access;
  if (a != nullptr) return RefRaw(*a, "(" + a->offset + ") + " + index);
  return fmt::format("{}[{}]", Name(side == 0 ? p.lhs : p.rhs), index);
}

void Emitter::EmitDot(const Instr& instr) {
  const auto& attrs = std::get<array::DotAttrs>(instr.prim.attrs);
  const array::DotDimensionNumbers& dims = attrs.dims;
  ValueId lhs = instr.operands[0], rhs = instr.operands[1], out = instr.results[0];
  const Shape& ls = TypeOf(lhs).shape;
  const Shape& rs = TypeOf(rhs).shape;
  Shape lst = Strides(ls), rst = Strides(rs);
  // A (batch,) M x K times K x N product; an operand whose load was folded into it is read from
  // the ref, with the access's strides.
  std::optional<Access> folded[2];
  if (auto f = folded_.find(&instr); f != folded_.end()) {
    for (int side = 0; side < 2; ++side) {
      if (f->second[static_cast<size_t>(side)] == nullptr) continue;
      const Instr& load = *f->second[static_cast<size_t>(side)];
      folded[side] = Resolve(load, load.ref);
      (side == 0 ? lst : rst) = folded[side]->strides;
    }
  }
  if (std::optional<MatrixProduct> p = MatrixForm(instr, lst, rst)) {
    if (folded[0]) p->lhs_access = &*folded[0];
    if (folded[1]) p->rhs_access = &*folded[1];
    // The fused loop that reads the result, run element by element as the result is made.
    Fused epilogue;
    if (auto e = epilogue_.find(&instr); e != epilogue_.end()) {
      epilogue = PrepareFused(*e->second);
      epilogue_state_ = &epilogue;
    }
    // 16-bit float operands on a GPU with tensor cores (sm_80 and later): mma.sync.
    bool tensor_cores = EmitTensorCoreDot(instr, *p);
    // float32 operands in global memory: staged in shared memory (sm_80 and later).
    if (!tensor_cores) EmitStagedFloatDot(instr, *p);
    EmitTiledDot(instr, *p);
    if (tensor_cores) w_.Line("#endif");
    epilogue_state_ = nullptr;
    return;
  }
  auto contains = [](const std::vector<int>& v, size_t d) {
    return std::find(v.begin(), v.end(), static_cast<int>(d)) != v.end();
  };
  // Result dimensions: batch, lhs free, rhs free; each with its stride in lhs and rhs.
  Shape out_shape;
  std::vector<int64_t> out_l, out_r;
  for (size_t b = 0; b < dims.lhs_batch.size(); ++b) {
    out_shape.push_back(ls[static_cast<size_t>(dims.lhs_batch[b])]);
    out_l.push_back(lst[static_cast<size_t>(dims.lhs_batch[b])]);
    out_r.push_back(rst[static_cast<size_t>(dims.rhs_batch[b])]);
  }
  for (size_t d = 0; d < ls.size(); ++d) {
    if (contains(dims.lhs_batch, d) || contains(dims.lhs_contracting, d)) continue;
    out_shape.push_back(ls[d]);
    out_l.push_back(lst[d]);
    out_r.push_back(0);
  }
  for (size_t d = 0; d < rs.size(); ++d) {
    if (contains(dims.rhs_batch, d) || contains(dims.rhs_contracting, d)) continue;
    out_shape.push_back(rs[d]);
    out_l.push_back(0);
    out_r.push_back(rst[d]);
  }
  if (out_shape != TypeOf(out).shape) Fail(instr, "internal: dot_general's result shape");
  Shape k_shape;
  std::vector<int64_t> k_l, k_r;
  for (size_t c = 0; c < dims.lhs_contracting.size(); ++c) {
    k_shape.push_back(ls[static_cast<size_t>(dims.lhs_contracting[c])]);
    k_l.push_back(lst[static_cast<size_t>(dims.lhs_contracting[c])]);
    k_r.push_back(rst[static_cast<size_t>(dims.rhs_contracting[c])]);
  }
  DType ld = TypeOf(lhs).dtype, rd = TypeOf(rhs).dtype, od = TypeOf(out).dtype;
  bool float_acc = IsFloat(od) || IsFloat(ld) || IsFloat(rd);
  DType acc = float_acc ? DType::kFloat32 : DType::kInt32;
  ForEachElement(out, [&](Writer& w) -> std::string {
    std::vector<std::string> c;
    if (!out_shape.empty()) c = Unravel(w, out_shape, "pz_i", "o");
    w.Line(fmt::format("const long long pz_lb = {};", Affine("", c, out_l)));
    w.Line(fmt::format("const long long pz_rb = {};", Affine("", c, out_r)));
    w.Line(fmt::format("{} pz_acc = 0;", float_acc ? "float" : "long long"));
    w.Open(fmt::format("for (long long pz_r = 0; pz_r < {}; ++pz_r) {{", Count(k_shape)));
    std::vector<std::string> kc = Unravel(w, k_shape, "pz_r", "r");
    std::string a = Cast(ld, acc, Elem(lhs, "pz_lb + " + Affine("", kc, k_l)));
    std::string b = Cast(rd, acc, Elem(rhs, "pz_rb + " + Affine("", kc, k_r)));
    if (float_acc) {
      w.Line(fmt::format("pz_acc = fmaf({}, {}, pz_acc);", a, b));
    } else {
      w.Line(fmt::format("pz_acc += (long long)({}) * (long long)({});", a, b));
    }
    w.Close();
    return float_acc ? Cast(DType::kFloat32, od, "pz_acc") : Normalize(od, "pz_acc");
  });
}

void Emitter::EmitDotResult(const Instr& instr, const MatrixProduct& p, const std::string& row,
                            const std::string& col, const std::string& value) {
  ValueId out = instr.results[0];
  DType od = TypeOf(out).dtype;
  std::string index = fmt::format("pz_b * {} + ({}) * {} + ({})", p.m * p.n, row, p.n, col);
  if (epilogue_state_ == nullptr) {
    w_.Line(fmt::format("{}[{}] = {};", Name(out), index, StoreExpr(od, value)));
    return;
  }
  // The fused loop reading the product runs here for this element, the element a register.
  w_.Open("{");
  // 64-bit, so that the elements of a thread's tile are one base and constant offsets apart
  // and the compiler may move the epilogue's loads of one ahead of the stores of another.
  w_.Line(fmt::format("const long long pz_i = {};", index));
  w_.Line(fmt::format("const {} pz_dv = {};", RegType(od), value));
  epilogue_state_->registers[out] = "pz_dv";
  fused_ = epilogue_state_;
  for (const Instr* member : epilogue_.at(&instr)->members) EmitInstr(*member);
  fused_ = nullptr;
  w_.Close();
}

void Emitter::EmitTiledDot(const Instr& instr, const MatrixProduct& p) {
  ValueId lhs = instr.operands[0], rhs = instr.operands[1], out = instr.results[0];
  DType ld = TypeOf(lhs).dtype, rd = TypeOf(rhs).dtype, od = TypeOf(out).dtype;
  bool float_acc = IsFloat(od) || IsFloat(ld) || IsFloat(rd);
  DType acc = float_acc ? DType::kFloat32 : DType::kInt32;
  std::string acc_type = float_acc ? "float" : "long long";
  // Each thread a 4 x 4 tile of the result, its rows `pz_ty_n` apart and its columns `pz_tx_n`
  // apart, so that a warp's threads read neighbouring columns of the rhs. Every element still
  // sums its products in order of k, one fused multiply-add at a time.
  constexpr int kTile = 4;
  w_.Open("{  // the product in tiles: each thread a 4 x 4 tile of the result at a time");
  w_.Line("const int pz_tx_n = blockDim.x < 32 ? blockDim.x : 32, pz_ty_n = blockDim.x / pz_tx_n;");
  w_.Line("const int pz_tx = threadIdx.x % pz_tx_n, pz_ty = threadIdx.x / pz_tx_n;");
  w_.Line(fmt::format("const long long pz_bm = pz_ty_n * {0}, pz_bn = pz_tx_n * {0};", kTile));
  w_.Line(fmt::format(
      "const long long pz_tm = ({} + pz_bm - 1) / pz_bm, pz_tn = ({} + pz_bn - 1) / pz_bn;", p.m,
      p.n));
  w_.Open(fmt::format("for (long long pz_tile = 0; pz_tile < {} * pz_tm * pz_tn; ++pz_tile) {{",
                      p.batches));
  w_.Line("const long long pz_b = pz_tile / (pz_tm * pz_tn), pz_mn = pz_tile % (pz_tm * pz_tn);");
  w_.Line(
      "const long long pz_m0 = pz_mn / pz_tn * pz_bm + pz_ty, pz_n0 = pz_mn % pz_tn * pz_bn + "
      "pz_tx;");
  w_.Line(fmt::format("long long pz_row[{0}], pz_col[{0}];", kTile));
  w_.Line("#pragma unroll");
  w_.Open(fmt::format("for (int pz_u = 0; pz_u < {}; ++pz_u) {{", kTile));
  // Rows and columns past the result's edge compute a copy of its last one and store nothing.
  w_.Line(fmt::format("pz_row[pz_u] = pz_m0 + pz_u * pz_ty_n < {0} ? pz_m0 + pz_u * pz_ty_n : {1};",
                      p.m, p.m - 1));
  w_.Line(fmt::format("pz_col[pz_u] = pz_n0 + pz_u * pz_tx_n < {0} ? pz_n0 + pz_u * pz_tx_n : {1};",
                      p.n, p.n - 1));
  w_.Close();
  w_.Line(fmt::format("{} pz_acc[{}][{}] = {{}};", acc_type, kTile, kTile));
  // Four steps of k unrolled: their loads issue together, ahead of the multiply-adds that wait
  // for them.
  w_.Line("#pragma unroll 4");
  w_.Open(fmt::format("for (long long pz_k = 0; pz_k < {}; ++pz_k) {{", p.k));
  w_.Line(fmt::format("{} pz_a[{}], pz_bv[{}];", acc_type, kTile, kTile));
  w_.Line("#pragma unroll");
  w_.Open(fmt::format("for (int pz_u = 0; pz_u < {}; ++pz_u) {{", kTile));
  w_.Line(
      fmt::format("pz_a[pz_u] = {};",
                  Cast(ld, acc,
                       LoadExpr(ld, Operand(p, 0,
                                            fmt::format("pz_b * {} + pz_row[pz_u] * {} + pz_k * {}",
                                                        p.lb, p.lm, p.lk))))));
  w_.Line(
      fmt::format("pz_bv[pz_u] = {};",
                  Cast(rd, acc,
                       LoadExpr(rd, Operand(p, 1,
                                            fmt::format("pz_b * {} + pz_k * {} + pz_col[pz_u] * {}",
                                                        p.rb, p.rk, p.rn))))));
  w_.Close();
  w_.Line("#pragma unroll");
  w_.Open(fmt::format("for (int pz_u = 0; pz_u < {}; ++pz_u) {{", kTile));
  w_.Line("#pragma unroll");
  w_.Open(fmt::format("for (int pz_v = 0; pz_v < {}; ++pz_v) {{", kTile));
  w_.Line(float_acc ? "pz_acc[pz_u][pz_v] = fmaf(pz_a[pz_u], pz_bv[pz_v], pz_acc[pz_u][pz_v]);"
                    : "pz_acc[pz_u][pz_v] += (long long)pz_a[pz_u] * (long long)pz_bv[pz_v];");
  w_.Close();
  w_.Close();
  w_.Close();  // k
  w_.Line("#pragma unroll");
  w_.Open(fmt::format("for (int pz_u = 0; pz_u < {}; ++pz_u) {{", kTile));
  w_.Line("#pragma unroll");
  w_.Open(fmt::format("for (int pz_v = 0; pz_v < {}; ++pz_v) {{", kTile));
  w_.Open(
      fmt::format("if (pz_m0 + pz_u * pz_ty_n < {} && pz_n0 + pz_v * pz_tx_n < {}) {{", p.m, p.n));
  EmitDotResult(instr, p, "pz_row[pz_u]", "pz_col[pz_v]",
                float_acc ? Cast(DType::kFloat32, od, "pz_acc[pz_u][pz_v]")
                          : Normalize(od, "pz_acc[pz_u][pz_v]"));
  w_.Close();
  w_.Close();
  w_.Close();
  w_.Close();  // tiles
  w_.Close();
  Sync();
}

bool Emitter::EmitTensorCoreDot(const Instr& instr, const MatrixProduct& p) {
  // In tiles of the instruction's m16 n8 k16.
  if (!TensorCoreTypes(instr)) return false;
  DType ld = TypeOf(instr.operands[0]).dtype;
  int64_t batches = p.batches, m = p.m, n = p.n, k = p.k;
  if (m % 16 != 0 || n % 8 != 0 || k % 16 != 0) return false;
  int64_t lb = p.lb, lm = p.lm, lk = p.lk, rb = p.rb, rn = p.rn, rk = p.rk;
  int mt = m % 32 == 0 ? 2 : 1, nt = n % 32 == 0 ? 4 : n % 16 == 0 ? 2 : 1;
  int64_t tiles_m = m / (16 * mt), tiles_n = n / (8 * nt);
  std::string type = ld == DType::kBFloat16 ? "bf16" : "f16";
  auto l_at = [&](const std::string& row, const std::string& col) {
    return Operand(p, 0, fmt::format("pz_lo + ({}) * {} + ({}) * {}", row, lm, col, lk));
  };
  auto r_at = [&](const std::string& row, const std::string& col) {
    return Operand(p, 1, fmt::format("pz_ro + ({}) * {} + ({}) * {}", row, rk, col, rn));
  };
  w_.Line("#if PZ_SM80");
  bool staged = EmitStagedTensorCoreDot(instr, p);
  if (staged) w_.Reopen("} else {");
  w_.Open("{  // tensor cores: each warp a tile of the result at a time, mma.sync m16n8k16");
  w_.Line("const int pz_lane = threadIdx.x & 31, pz_gid = pz_lane >> 2, pz_tig = pz_lane & 3;");
  w_.Open(fmt::format(
      "for (long long pz_tile = threadIdx.x >> 5; pz_tile < {}; pz_tile += blockDim.x >> 5) {{",
      batches * tiles_m * tiles_n));
  w_.Line(fmt::format("const long long pz_b = pz_tile / {}, pz_mn = pz_tile % {};",
                      tiles_m * tiles_n, tiles_m * tiles_n));
  w_.Line(fmt::format("const long long pz_m0 = pz_mn / {} * {}, pz_n0 = pz_mn % {} * {};", tiles_n,
                      16 * mt, tiles_n, 8 * nt));
  w_.Line(fmt::format("const long long pz_lo = pz_b * {}, pz_ro = pz_b * {};", lb, rb));
  w_.Line(fmt::format("float pz_d[{}][{}][4] = {{}};", mt, nt));
  w_.Open(fmt::format("for (long long pz_k = 0; pz_k < {}; pz_k += 16) {{", k));
  w_.Line(fmt::format("unsigned pz_af[{}][4], pz_bf[{}][2];", mt, nt));
  w_.Line("#pragma unroll");
  w_.Open(fmt::format("for (int pz_u = 0; pz_u < {}; ++pz_u) {{", mt));
  w_.Line("const long long pz_r = pz_m0 + pz_u * 16 + pz_gid, pz_c = pz_k + pz_tig * 2;");
  for (int q = 0; q < 4; ++q) {
    std::string row = q % 2 ? "pz_r + 8" : "pz_r", col = q >= 2 ? "pz_c + 8" : "pz_c";
    w_.Line(fmt::format("pz_af[pz_u][{}] = pz_pack16({}, {});", q, l_at(row, col),
                        l_at(row, col + " + 1")));
  }
  w_.Close();
  w_.Line("#pragma unroll");
  w_.Open(fmt::format("for (int pz_v = 0; pz_v < {}; ++pz_v) {{", nt));
  w_.Line("const long long pz_c = pz_n0 + pz_v * 8 + pz_gid, pz_r = pz_k + pz_tig * 2;");
  w_.Line(fmt::format("pz_bf[pz_v][0] = pz_pack16({}, {});", r_at("pz_r", "pz_c"),
                      r_at("pz_r + 1", "pz_c")));
  w_.Line(fmt::format("pz_bf[pz_v][1] = pz_pack16({}, {});", r_at("pz_r + 8", "pz_c"),
                      r_at("pz_r + 9", "pz_c")));
  w_.Close();
  EmitMmaTiles(type, mt, nt);
  w_.Close();  // k
  // The accumulators: rows gid and gid + 8, columns 2 tig and 2 tig + 1 of each m16 n8 tile.
  EmitMmaResults(instr, p, mt, nt, "pz_m0", "pz_n0");
  w_.Close();  // tiles
  w_.Close();
  if (staged) w_.Close();
  Sync();
  w_.Line("#else");
  return true;
}

void Emitter::EmitMmaTiles(const std::string& type, int mt, int nt) {
  w_.Line("#pragma unroll");
  w_.Open(fmt::format("for (int pz_u = 0; pz_u < {}; ++pz_u) {{", mt));
  w_.Line("#pragma unroll");
  w_.Open(fmt::format("for (int pz_v = 0; pz_v < {}; ++pz_v) {{", nt));
  w_.Line(fmt::format(
      "pz_mma_{}(pz_d[pz_u][pz_v][0], pz_d[pz_u][pz_v][1], pz_d[pz_u][pz_v][2], "
      "pz_d[pz_u][pz_v][3], pz_af[pz_u][0], pz_af[pz_u][1], pz_af[pz_u][2], pz_af[pz_u][3], "
      "pz_bf[pz_v][0], pz_bf[pz_v][1]);",
      type));
  w_.Close();
  w_.Close();
}

void Emitter::EmitMmaResults(const Instr& instr, const MatrixProduct& p, int mt, int nt,
                             const std::string& row0, const std::string& col0) {
  // The accumulators: rows gid and gid + 8, columns 2 tig and 2 tig + 1 of each m16 n8 tile.
  // With n tiles in fours, lane (gid, tig) takes each four in a turn of its own: n tile
  // (v + gid) % 4 of the four, and of its two columns first the one (gid / 4) says. At each step
  // the 32 lanes then reach 32 distinct columns modulo 32, so the result's rows (of 128 or any
  // multiple of 32 floats) are read and written in shared memory without bank conflicts (else 8
  // lanes share a bank).
  DType od = TypeOf(instr.results[0]).dtype;
  bool turn = nt % 4 == 0;
  // The first n tile of the four pz_v0 is in, and pz_v within them.
  std::string four = nt == 4 ? "" : "(pz_v0 & ~3) + ";
  std::string within = nt == 4 ? "pz_v" : "pz_v & 3";
  w_.Line("#pragma unroll");
  w_.Open(fmt::format("for (int pz_u = 0; pz_u < {}; ++pz_u) {{", mt));
  w_.Line("#pragma unroll");
  w_.Open(fmt::format("for (int pz_v{} = 0; pz_v{} < {}; ++pz_v{}) {{", turn ? "0" : "",
                      turn ? "0" : "", nt, turn ? "0" : ""));
  w_.Line("#pragma unroll");
  w_.Open("for (int pz_q = 0; pz_q < 4; ++pz_q) {");
  std::string value = "pz_d[pz_u][pz_v][pz_q]";
  if (turn) {
    std::string v = nt == 4 ? "(pz_v0 + pz_gid) & 3" : "(pz_v0 & ~3) | ((pz_v0 + pz_gid) & 3)";
    w_.Line(fmt::format("const int pz_v = {}, pz_h = (pz_q & 1) ^ (pz_gid >> 2);", v));
    std::string odd = "(pz_q & 2) | 1", even = "pz_q & 2";
    auto pick = [&](const std::string& q) {
      return fmt::format(
          "pz_pick4(pz_d[pz_u][{0}0][{1}], pz_d[pz_u][{0}1][{1}], pz_d[pz_u][{0}2][{1}], "
          "pz_d[pz_u][{0}3][{1}], {2})",
          four, q, within);
    };
    value = fmt::format("(pz_h ? {} : {})", pick(odd), pick(even));
  }
  w_.Line(
      fmt::format("const long long pz_r = {} + pz_u * 16 + pz_gid + (pz_q >> 1) * 8, "
                  "pz_c = {} + pz_v * 8 + pz_tig * 2 + {};",
                  row0, col0, turn ? "pz_h" : "(pz_q & 1)"));
  EmitDotResult(instr, p, "pz_r", "pz_c", Cast(DType::kFloat32, od, value));
  w_.Close();
  w_.Close();
  w_.Close();
}

}  // namespace pz::cuda::detail

// Staged products of the CUDA emitter (emit_internal.h): on a GPU (sm_80 and later), products of
// 16-bit floats (tensor cores) and of float32 whose operands are in global memory copy tiles of
// both into shared memory with asynchronous copies, two buffers per operand, the next chunk of k
// in flight while the current one is multiplied.
#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

#include "cuda/emit_internal.h"

namespace pz::cuda::detail {

std::string Emitter::RunPointer(const MatrixProduct& p, int side, const std::string& index,
                                int elements) const {
  const Access* a = side == 0 ? p.lhs_access : p.rhs_access;
  int64_t bytes =
      elements * static_cast<int64_t>(array::ItemSize(TypeOf(side == 0 ? p.lhs : p.rhs).dtype));
  if (a == nullptr) {
    // A value: in global memory wherever products stage their operands.
    return fmt::format("pz_aligned({} + {}, {})", Name(side == 0 ? p.lhs : p.rhs), index, bytes);
  }
  if (a->ref < 0) return "";
  size_t r = static_cast<size_t>(a->ref);
  if (direct_[r]) {
    const kernel::BlockMapping& op = mapping_.operand(r - mapping_.prefetch.size());
    Shape window = WindowShape(op);
    if (window.empty() || window.back() % elements != 0) return "";
    return fmt::format("{}_run({}, pz_e, ({}) + {}, {})", window_at_[r], a->base, a->offset, index,
                       elements);
  }
  // A buffer of the arena: asynchronous copies read global memory only.
  if (ref_shared_[r]) return "";
  return fmt::format("pz_aligned({} + ({}) + {}, {})", a->base, a->offset, index, bytes);
}

void Emitter::EmitFastOrigins(const MatrixProduct& p, std::array<int, 2> elements) {
  for (int side = 0; side < 2; ++side) {
    fast_bytes_[static_cast<size_t>(side)] = 0;
    const Access* a = side == 0 ? p.lhs_access : p.rhs_access;
    if (a == nullptr || a->ref < 0 || !direct_[static_cast<size_t>(a->ref)]) continue;
    int n = elements[static_cast<size_t>(side)];
    if (RunPointer(p, side, "0", n).empty()) continue;
    size_t r = static_cast<size_t>(a->ref);
    const kernel::BlockMapping& op = mapping_.operand(r - mapping_.prefetch.size());
    int64_t item = static_cast<int64_t>(array::ItemSize(op.dtype)), bytes = n * item;
    // A run starts at a multiple of n in its row (RunPointer: the row is a multiple of n long),
    // so it is aligned where the origin is when every other dimension the window spans steps
    // through HBM in multiples of its size.
    Shape window = WindowShape(op), strides = Strides(op.shape);
    bool aligned = true;
    for (size_t d = 0; d + 1 < window.size(); ++d) {
      aligned = aligned && (window[d] == 1 || strides[d] * item % bytes == 0);
    }
    if (!aligned) continue;
    std::string type = StorageType(op.dtype);
    w_.Line(fmt::format(
        "const {0}* const pz_f{1} = (const {0}*)pz_aligned({2}_origin({3}, pz_e), {4});", type,
        side == 0 ? 'a' : 'b', window_at_[r], a->base, bytes));
    fast_bytes_[static_cast<size_t>(side)] = bytes;
  }
}

void Emitter::EmitRunCopy(const MatrixProduct& p, int side, int elements, int64_t step, bool fast) {
  DType dtype = TypeOf(side == 0 ? p.lhs : p.rhs).dtype;
  int64_t bytes = elements * static_cast<int64_t>(array::ItemSize(dtype));
  std::string run = step == 1 ? RunPointer(p, side, "pz_at", elements) : "";
  std::string one_by_one =
      elements == 1
          ? fmt::format("*pz_dst = {};", Operand(p, side, "pz_at"))
          : fmt::format("for (int pz_j = 0; pz_j < {}; ++pz_j) pz_dst[pz_j] = {};", elements,
                        Operand(p, side, fmt::format("pz_at + pz_j * {}", step)));
  auto element_by_element = [&] {
    if (elements > 1) w_.Line("#pragma unroll");
    w_.Line(one_by_one);
  };
  if (run.empty()) {
    element_by_element();
    return;
  }
  if (fast) {
    // The whole window lies inside the array (pz_fa or pz_fb, its origin, is not null): the run
    // lies where the window holds it from there, aligned where it starts at a multiple of its
    // size (which the compiler can often prove).
    const Access* a = side == 0 ? p.lhs_access : p.rhs_access;
    w_.Line(fmt::format("const long long pz_w = ({}) + pz_at;", a->offset));
    w_.Open(fmt::format("if (pz_w % {} == 0) {{", elements));
    w_.Line(fmt::format("pz_copy{}_async(pz_dst, pz_f{} + {}_at(pz_w));", bytes,
                        side == 0 ? 'a' : 'b', window_at_[static_cast<size_t>(a->ref)]));
  } else {
    w_.Line(fmt::format("const void* const pz_src = {};", run));
    w_.Open("if (pz_src != nullptr) {");
    w_.Line(fmt::format("pz_copy{}_async(pz_dst, pz_src);", bytes));
  }
  w_.Reopen("} else {");
  element_by_element();
  w_.Close();
}

void Emitter::EmitFastOrSlow(int side, int64_t bytes, const std::function<void(bool)>& copies) {
  if (fast_bytes_[static_cast<size_t>(side)] != bytes) {
    copies(false);
    return;
  }
  w_.Open(fmt::format("if (pz_f{} != nullptr) {{", side == 0 ? 'a' : 'b'));
  copies(true);
  w_.Reopen("} else {");
  copies(false);
  w_.Close();
}

void Emitter::EmitWarpTile() {
  // Warps in row-major order over the block's 128 x 128: 128 / cols of them per row of tiles.
  const WarpTile& tile = req_.warp_tile;
  int across = 128 / tile.cols, shift = across == 4 ? 2 : 1;
  w_.Line("const int pz_warp = threadIdx.x >> 5, pz_lane = threadIdx.x & 31;");
  w_.Line(fmt::format("const int pz_wm = (pz_warp >> {}) * {}, pz_wn = (pz_warp & {}) * {};", shift,
                      tile.rows, across - 1, tile.cols));
}

void Emitter::EmitStageChunk(const MatrixProduct& p, int side, bool k_contiguous,
                             const std::string& buffer, const std::string& k0) {
  // The tile: 128 rows (lhs) or columns (rhs) from pz_lo / pz_ro, by kStageK of k from k0.
  int64_t along = side == 0 ? p.lm : p.rn;  // the stride of the row (lhs) or column (rhs)
  int64_t k_stride = side == 0 ? p.lk : p.rk;
  std::string origin = side == 0 ? "pz_lo" : "pz_ro";
  // Each 32 of the chunk's k: 512 runs of 8 elements, one per thread of a block of 512 (run
  // pz_s of a smaller block's thread t: t, t + threads, ...).
  unsigned threads = req_.warp_tile.Threads();
  EmitFastOrSlow(side, 16, [&](bool fast) {
    std::string half, run = "threadIdx.x";
    if (stage_k_ > kStageK) {
      w_.Line("#pragma unroll");
      w_.Open(fmt::format("for (int pz_h = 0; pz_h < {}; pz_h += {}) {{", stage_k_, kStageK));
      half = " + pz_h";
    } else {
      w_.Open("{");
    }
    if (threads < 512) {
      w_.Line("#pragma unroll");
      w_.Open(fmt::format("for (int pz_sr = 0; pz_sr < {}; ++pz_sr) {{", 512 / threads));
      w_.Line(fmt::format("const int pz_s = threadIdx.x + pz_sr * {};", threads));
      run = "pz_s";
    }
    if (k_contiguous) {
      // [128][k], k contiguous: run r copies row r / 4, k from (r % 4) * 8.
      w_.Line(fmt::format("const int pz_x = {0} >> 2, pz_kq = ({0} & 3) * 8{1};", run, half));
      w_.Line(fmt::format("unsigned short* const pz_dst = {} + pz_x * {} + pz_kq;", buffer,
                          StageRowK()));
      w_.Line(fmt::format("const long long pz_at = {} + pz_x * {} + ({} + pz_kq) * {};", origin,
                          along, k0, k_stride));
    } else {
      // [k][128], the other dimension contiguous: run r copies k r / 16, 8 of the 128 from
      // (r % 16) * 8.
      w_.Line(fmt::format("const int pz_kq = ({0} >> 4){1}, pz_x = ({0} & 15) * 8;", run, half));
      w_.Line(fmt::format("unsigned short* const pz_dst = {} + pz_kq * {} + pz_x;", buffer,
                          kStageRowMN));
      w_.Line(fmt::format("const long long pz_at = {} + pz_x * {} + ({} + pz_kq) * {};", origin,
                          along, k0, k_stride));
    }
    EmitRunCopy(p, side, 8, k_contiguous ? k_stride : along, fast);
    if (threads < 512) w_.Close();
    w_.Close();
  });
}

void Emitter::EmitStagedLoops(const MatrixProduct& p, int64_t chunks, const StagedForm& form) {
  int64_t tiles_m = p.m / 128, tiles_n = p.n / 128;
  w_.Open(fmt::format("for (long long pz_tile = 0; pz_tile < {}; ++pz_tile) {{",
                      p.batches * tiles_m * tiles_n));
  w_.Line(fmt::format("const long long pz_b = pz_tile / {0}, pz_mn = pz_tile % {0};",
                      tiles_m * tiles_n));
  w_.Line(fmt::format("const long long pz_m0 = pz_mn / {} * 128, pz_n0 = pz_mn % {} * 128;",
                      tiles_n, tiles_n));
  w_.Line(
      fmt::format("const long long pz_lo = pz_b * {} + pz_m0 * {}, pz_ro = pz_b * {} + pz_n0 * {};",
                  p.lb, p.lm, p.rb, p.rn));
  form.accumulators();
  form.stage("0");
  w_.Line("pz_copies_commit();");
  w_.Open(fmt::format("for (int pz_kc = 0; pz_kc < {}; ++pz_kc) {{", chunks));
  // The next chunk goes into the other buffers (their last readers passed the barrier that
  // ended the previous iteration) while this one is multiplied.
  w_.Open(fmt::format("if (pz_kc + 1 < {}) {{", chunks));
  form.stage("pz_kc + 1");
  w_.Close();
  w_.Line("pz_copies_commit();");
  w_.Line("pz_copies_wait_all_but_one();");
  Sync();
  w_.Line(fmt::format("const {} const pz_ta = pz_sa + (pz_kc & 1) * {};", form.element_pointer,
                      form.buffer_elements));
  w_.Line(fmt::format("const {} const pz_tb = pz_sb + (pz_kc & 1) * {};", form.element_pointer,
                      form.buffer_elements));
  form.multiply();
  Sync();
  w_.Close();  // chunks
  form.results();
  w_.Close();  // tiles
}

bool Emitter::EmitStagedTensorCoreDot(const Instr& instr, const MatrixProduct& p) {
  if (staging_at_ < 0 || !StagesOperands(instr)) return false;
  DType ld = TypeOf(instr.operands[0]).dtype;
  std::string type = ld == DType::kBFloat16 ? "bf16" : "f16";
  int64_t chunks = p.k / stage_k_, elements = StageBuffer() / 2;  // of one buffer
  // Each operand's tile keeps k contiguous unless the operand's other dimension is the
  // contiguous one (then ldmatrix transposes as it reads).
  bool a_k = !(p.lm == 1 && p.lk != 1), b_k = !(p.rn == 1 && p.rk != 1);
  const WarpTile& tile = req_.warp_tile;
  int mt = tile.MTiles(), nt = tile.NTiles();
  w_.Open(fmt::format(
      "if (blockDim.x == {}) {{  // tensor cores, operand tiles staged in shared memory by "
      "asynchronous copies, two buffers each{}",
      tile.Threads(),
      tile == WarpTile{}
          ? ""
          : fmt::format("; each warp a {} x {} tile of the result", tile.rows, tile.cols)));
  w_.Line(
      fmt::format("unsigned short* const pz_sa = (unsigned short*)(pz_smem + {});", staging_at_));
  w_.Line(fmt::format("unsigned short* const pz_sb = (unsigned short*)(pz_smem + {});",
                      staging_at_ + 2 * StageBuffer()));
  EmitWarpTile();
  // The shared-memory row each lane hands ldmatrix: lanes 8 j to 8 j + 7 give the rows of the
  // j-th 8 x 8 matrix.
  w_.Line("const int pz_lr = pz_lane & 7, pz_lj = pz_lane >> 3;");
  EmitFastOrigins(p, {8, 8});
  StagedForm form;
  bool resident = &instr == resident_dot_;
  form.accumulators = [&] {
    if (resident) {
      EmitResidentAccumulators();
    } else {
      w_.Line(fmt::format("float pz_d[{}][{}][4] = {{}};", mt, nt));
    }
  };
  form.element_pointer = "unsigned short*";
  form.buffer_elements = elements;
  form.stage = [&](const std::string& chunk) {
    std::string k0 = fmt::format("({}) * {}", chunk, stage_k_);
    std::string buffer = fmt::format("(({}) & 1) * {}", chunk, elements);
    EmitStageChunk(p, 0, a_k, "pz_sa + " + buffer, k0);
    EmitStageChunk(p, 1, b_k, "pz_sb + " + buffer, k0);
  };
  form.multiply = [&] {
    w_.Line("#pragma unroll");
    w_.Open(fmt::format("for (int pz_kk = 0; pz_kk < {}; pz_kk += 16) {{", stage_k_));
    w_.Line(fmt::format("unsigned pz_af[{}][4], pz_bf[{}][2];", mt, nt));
    // lhs fragments (m16 x k16): matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k
    // 8-15), (rows 8-15, k 8-15).
    w_.Line("#pragma unroll");
    w_.Open(fmt::format("for (int pz_u = 0; pz_u < {}; ++pz_u) {{", mt));
    if (a_k) {
      w_.Line(fmt::format(
          "pz_ldmatrix4(pz_af[pz_u][0], pz_af[pz_u][1], pz_af[pz_u][2], pz_af[pz_u][3], pz_ta + "
          "(pz_wm + pz_u * 16 + pz_lr + (pz_lj & 1) * 8) * {} + pz_kk + (pz_lj >> 1) * 8);",
          StageRowK()));
    } else {
      w_.Line(fmt::format(
          "pz_ldmatrix4_trans(pz_af[pz_u][0], pz_af[pz_u][1], pz_af[pz_u][2], pz_af[pz_u][3], "
          "pz_ta + (pz_kk + pz_lr + (pz_lj >> 1) * 8) * {} + pz_wm + pz_u * 16 + (pz_lj & 1) * 8);",
          kStageRowMN));
    }
    w_.Close();
    // rhs fragments (k16 x n8), two n tiles per ldmatrix: matrices (n 0-7, k 0-7),
    // (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15).
    w_.Line("#pragma unroll");
    w_.Open(fmt::format("for (int pz_v = 0; pz_v < {}; pz_v += 2) {{", nt));
    if (b_k) {
      w_.Line(fmt::format(
          "pz_ldmatrix4(pz_bf[pz_v][0], pz_bf[pz_v][1], pz_bf[pz_v + 1][0], pz_bf[pz_v + 1][1], "
          "pz_tb + (pz_wn + pz_v * 8 + pz_lr + (pz_lj >> 1) * 8) * {} + pz_kk + (pz_lj & 1) * 8);",
          StageRowK()));
    } else {
      w_.Line(fmt::format(
          "pz_ldmatrix4_trans(pz_bf[pz_v][0], pz_bf[pz_v][1], pz_bf[pz_v + 1][0], pz_bf[pz_v + "
          "1][1], pz_tb + (pz_kk + pz_lr + (pz_lj & 1) * 8) * {} + pz_wn + pz_v * 8 + (pz_lj >> 1) "
          "* 8);",
          kStageRowMN));
    }
    w_.Close();
    EmitMmaTiles(type, mt, nt);
    w_.Close();  // kk
  };
  form.results = [&] {
    if (resident) return;  // the accumulators stay in registers
    w_.Line("const int pz_gid = pz_lane >> 2, pz_tig = pz_lane & 3;");
    EmitMmaResults(instr, p, mt, nt, "pz_m0 + pz_wm", "pz_n0 + pz_wn");
  };
  EmitStagedLoops(p, chunks, form);
  ClearFastOrigins();
  return true;
}

void Emitter::EmitFloatStageChunk(const MatrixProduct& p, int side, const std::string& buffer,
                                  const std::string& k0) {
  // The tile in the buffer: kFloatStageK rows of k by 128 (rows of the lhs, columns of the rhs),
  // rows kFloatStageRow apart.
  int64_t along = side == 0 ? p.lm : p.rn;  // the stride of the row (lhs) or column (rhs)
  int64_t k_stride = side == 0 ? p.lk : p.rk;
  std::string origin = side == 0 ? "pz_lo" : "pz_ro";
  static_assert(kFloatStageK == 16 && 128 * kFloatStageK == 4 * 512);
  int n = FloatRunElements(p, side);
  EmitFastOrSlow(side, 4 * n, [&](bool fast) {
    if (n == 4) {
      // The 128 contiguous: thread t copies k t / 32, 4 elements from (t % 32) * 4 (16 bytes).
      w_.Open("{");
      w_.Line("const int pz_kq = threadIdx.x >> 5, pz_x = (threadIdx.x & 31) * 4;");
    } else {
      // Element by element, transposed into the tile: thread t copies elements t + 512 q, the
      // kFloatStageK of k for each of the 128 (neighbouring threads read neighbouring k).
      w_.Line("#pragma unroll");
      w_.Open("for (int pz_q = 0; pz_q < 4; ++pz_q) {");
      w_.Line("const int pz_e2 = threadIdx.x + 512 * pz_q, pz_kq = pz_e2 & 15, pz_x = pz_e2 >> 4;");
    }
    w_.Line(fmt::format("float* const pz_dst = {} + pz_kq * {} + pz_x;", buffer, kFloatStageRow));
    w_.Line(fmt::format("const long long pz_at = {} + pz_x * {} + ({} + pz_kq) * {};", origin,
                        along, k0, k_stride));
    EmitRunCopy(p, side, n, n == 4 ? along : k_stride, fast);
    w_.Close();
  });
}

int Emitter::FloatRunElements(const MatrixProduct& p, int side) const {
  return (side == 0 ? p.lm : p.rn) == 1 && !RunPointer(p, side, "0", 4).empty() ? 4 : 1;
}

bool Emitter::EmitStagedFloatDot(const Instr& instr, const MatrixProduct& p) {
  if (staging_at_ < 0 || !FloatProduct(instr) || !StagesOperands(instr)) return false;
  DType od = TypeOf(instr.results[0]).dtype;
  int64_t chunks = p.k / kFloatStageK;
  int64_t elements = kFloatStageK * kFloatStageRow;  // of one buffer
  // On the GPU (and the host device running its forms) the block of 512 threads multiplies
  // staged tiles; blocks of other sizes run the register-tiled form after `else`.
  w_.Line("#if PZ_SM80");
  w_.Open(
      "if (blockDim.x == 512) {  // float products, operand tiles staged in shared memory by "
      "asynchronous copies, two buffers each; each thread a 4 x 8 tile of the result");
  w_.Line(fmt::format("float* const pz_sa = (float*)(pz_smem + {});", staging_at_));
  w_.Line(
      fmt::format("float* const pz_sb = (float*)(pz_smem + {});", staging_at_ + 2 * elements * 4));
  w_.Line("const int pz_ty = threadIdx.x >> 4, pz_tx = threadIdx.x & 15;");
  EmitFastOrigins(p, {FloatRunElements(p, 0), FloatRunElements(p, 1)});
  StagedForm form;
  form.accumulators = [&] { w_.Line("float pz_acc[4][8] = {};"); };
  form.element_pointer = "float*";
  form.buffer_elements = elements;
  form.stage = [&](const std::string& chunk) {
    std::string k0 = fmt::format("({}) * {}", chunk, kFloatStageK);
    std::string buffer = fmt::format("(({}) & 1) * {}", chunk, elements);
    EmitFloatStageChunk(p, 0, "pz_sa + " + buffer, k0);
    EmitFloatStageChunk(p, 1, "pz_sb + " + buffer, k0);
  };
  form.multiply = [&] {
    // Rows 4 ty to 4 ty + 3; columns 4 tx to 4 tx + 3 and 64 more. Each element sums its products
    // in order of k, one fused multiply-add at a time, as the register-tiled form does.
    w_.Line("#pragma unroll");
    w_.Open(fmt::format("for (int pz_kk = 0; pz_kk < {}; ++pz_kk) {{", kFloatStageK));
    w_.Line("float pz_a[4], pz_bv[8];");
    w_.Line("#pragma unroll");
    w_.Line(
        fmt::format("for (int pz_u = 0; pz_u < 4; ++pz_u) pz_a[pz_u] = pz_ta[pz_kk * {} + "
                    "pz_ty * 4 + pz_u];",
                    kFloatStageRow));
    w_.Line("#pragma unroll");
    w_.Open("for (int pz_v = 0; pz_v < 4; ++pz_v) {");
    w_.Line(fmt::format("pz_bv[pz_v] = pz_tb[pz_kk * {} + pz_tx * 4 + pz_v];", kFloatStageRow));
    w_.Line(fmt::format("pz_bv[pz_v + 4] = pz_tb[pz_kk * {} + 64 + pz_tx * 4 + pz_v];",
                        kFloatStageRow));
    w_.Close();
    w_.Line("#pragma unroll");
    w_.Open("for (int pz_u = 0; pz_u < 4; ++pz_u) {");
    w_.Line("#pragma unroll");
    w_.Line(
        "for (int pz_v = 0; pz_v < 8; ++pz_v) pz_acc[pz_u][pz_v] = fmaf(pz_a[pz_u], pz_bv[pz_v], "
        "pz_acc[pz_u][pz_v]);");
    w_.Close();
    w_.Close();  // kk
  };
  form.results = [&] {
    w_.Line("#pragma unroll");
    w_.Open("for (int pz_u = 0; pz_u < 4; ++pz_u) {");
    w_.Line("#pragma unroll");
    w_.Open("for (int pz_v = 0; pz_v < 8; ++pz_v) {");
    w_.Line(
        "const long long pz_r = pz_m0 + pz_ty * 4 + pz_u, "
        "pz_c = pz_n0 + (pz_v >> 2) * 64 + pz_tx * 4 + (pz_v & 3);");
    EmitDotResult(instr, p, "pz_r", "pz_c", Cast(DType::kFloat32, od, "pz_acc[pz_u][pz_v]"));
    w_.Close();
    w_.Close();
  };
  EmitStagedLoops(p, chunks, form);
  ClearFastOrigins();
  Sync();
  w_.Close();
  w_.Line("else");
  w_.Line("#endif");
  return true;
}

}  // namespace pz::cuda::detail

namespace pz::cuda {

std::optional<WarpTile> ParseWarpTile(const std::string& text) {
  for (int rows : {32, 64}) {
    for (int cols : {32, 64}) {
      if (text == fmt::format("{}x{}", rows, cols)) return WarpTile{.rows = rows, .cols = cols};
    }
  }
  return std::nullopt;
}

WarpTile WarpTileFromEnvironment() {
  const char* text = std::getenv("PZ_CUDA_WARP_TILE");
  if (text == nullptr || *text == '\0') return {};
  std::optional<WarpTile> tile = ParseWarpTile(text);
  if (!tile) {
    throw std::invalid_argument(fmt::format(
        "PZ_CUDA_WARP_TILE is `{}`; a warp's tile of a staged tensor-core product is one of "
        "32x32 (the default), 32x64, 64x32 or 64x64",
        text));
  }
  return *tile;
}

}  // namespace pz::cuda

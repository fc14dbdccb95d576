// The CUDA emitter's memory (emit_internal.h): block windows and their accessors, loads and
// stores through ref paths, DMAs and semaphores.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "cuda/emit_internal.h"
#include "cuda/plan.h"

namespace pz::cuda::detail {

bool Emitter::DirectSafe(kernel::RefId r) const {
  size_t num_prefetch = mapping_.prefetch.size();
  size_t k = static_cast<size_t>(r) - num_prefetch;  // the operand
  bool input = k < mapping_.inputs.size();
  for (const auto& [in, outp] : mapping_.aliases) {
    if (input ? static_cast<size_t>(in) == k
              : static_cast<size_t>(outp) == k - mapping_.inputs.size()) {
      return false;
    }
  }
  bool loaded = false;
  for (const Instr* instr : instrs_) {
    for (const kernel::RefPath* path : kernel::RefPathsOf(*instr)) {
      if (path->ref != r) continue;
      // Loads of any operand and stores into outputs; a DMA or semaphore reaching it, or a store
      // into an input's buffer, needs the buffer.
      if (instr->op == Op::kLoad) {
        loaded = true;
        continue;
      }
      if (instr->op == Op::kStore && !input) continue;
      return false;
    }
  }
  // With zeroed memory, what a block buffer keeps from an earlier visit must never reach HBM: a
  // window in HBM keeps the array's own values where a visit stores nothing. (Poisoned, each
  // visit starts as poison, which the window in HBM holds where nothing stored.)
  if (!input && req_.zero_uninitialized && !LeftoverUnseen(f_, mapping_, k)) return false;
  if (input || !loaded) return true;
  // An output the kernel reads back. A block buffer keeps what the last block left in it, which
  // a step that reads before writing sees; a window in HBM shows the array there instead.
  if (!WrittenWholeBeforeRead(f_, r)) return false;
  // A block that may overhang the array's end keeps what the kernel stores in its overhang (a
  // load there reads it back), which a window in HBM cannot.
  const kernel::BlockMapping& op = mapping_.operand(k);
  for (size_t d = 0; d < op.block.size(); ++d) {
    const kernel::BlockDim& b = op.block[d];
    if (b.kind == kernel::BlockDim::Kind::kElement) return false;
    if (b.kind == kernel::BlockDim::Kind::kBlocked && op.shape[d] % std::max<int64_t>(b.size, 1)) {
      return false;
    }
  }
  return true;
}

Shape Emitter::WindowShape(const kernel::BlockMapping& op) {
  Shape window(op.shape.size());
  for (size_t d = 0; d < window.size(); ++d) {
    window[d] = op.block[d].kind == kernel::BlockDim::Kind::kSqueezed ? 1 : op.block[d].size;
  }
  return window;
}

void Emitter::EmitWindowAccessors(kernel::RefId r, const EmittedKernel& out) {
  size_t k = static_cast<size_t>(r) - mapping_.prefetch.size();
  const kernel::BlockMapping& op = mapping_.operand(k);
  int64_t column = out.layout.operand_column.at(k);
  size_t rank = op.shape.size();
  Shape window = WindowShape(op);
  Shape window_strides = Strides(window), hbm_strides = Strides(op.shape);
  // Window offset -> HBM coordinates (the window's buffer layout: row-major, squeezed
  // dimensions of size 1), clipped to the array.
  std::string offset_type = Count(window) <= (int64_t{1} << 31) ? "unsigned" : "unsigned long long";
  std::string coords, inside = "true", index;
  // The same from the window's origin: the whole window inside the array, and the offset of a
  // window element from the origin in HBM.
  std::string origin_coords, whole_inside = "true", offset_index;
  for (size_t d = 0; d < rank; ++d) {
    std::string quotient =
        window_strides[d] == 1 ? "pz_o" : fmt::format("pz_o / {}", window_strides[d]);
    std::string within = window[d] == 1 ? "0"
                         : d == 0       ? fmt::format("(long long)({})", quotient)
                                        : fmt::format("(long long)({} % {})", quotient, window[d]);
    coords += fmt::format("  const long long pz_a{} = pz_e[{}] + {};\n", d,
                          column + static_cast<int64_t>(d), within);
    inside += fmt::format(" && pz_a{0} >= 0 && pz_a{0} < {1}", d, op.shape[d]);
    index += fmt::format("{}pz_a{} * {}", d ? " + " : "", d, hbm_strides[d]);
    origin_coords +=
        fmt::format("  const long long pz_a{} = pz_e[{}];\n", d, column + static_cast<int64_t>(d));
    whole_inside +=
        fmt::format(" && pz_a{0} >= 0 && pz_a{0} + {1} <= {2}", d, window[d], op.shape[d]);
    if (window[d] > 1) {
      offset_index +=
          fmt::format("{}{} * {}", offset_index.empty() ? "" : " + ", within, hbm_strides[d]);
    }
  }
  if (index.empty()) index = "0";
  if (offset_index.empty()) offset_index = "0";
  std::string type = StorageType(op.dtype);
  std::string name = fmt::format("{}_r{}", req_.name, r);
  window_at_[static_cast<size_t>(r)] = name;
  tables_.Line(fmt::format("// `{}` of {}: element `pz_off` of its window, in HBM{}", op.name,
                           req_.name, direct_[static_cast<size_t>(r)] ? " (a direct window)" : ""));
  tables_.Line(fmt::format(
      "PZ_DEVICE {0} {1}_read(const {0}* pz_hbm, const long long* pz_e, long long pz_off) {{\n"
      "  [[maybe_unused]] const {2} pz_o = ({2})pz_off;\n{3}"
      "  return ({4}) ? pz_hbm[{5}] : {6};\n}}",
      type, name, offset_type, coords, inside, index, Fresh(op.dtype)));
  // Runs of elements for asynchronous copies into a staging area (EmitStageChunk,
  // EmitFloatStageChunk): the `pz_n` elements from `pz_off` on, when they lie in one row of the
  // window (the caller's runs start at multiples of `pz_n`, which divides the row), inside the
  // array and aligned to their size; else null.
  size_t item = array::ItemSize(op.dtype);
  if (staging_at_ >= 0 && direct_[static_cast<size_t>(r)] && (item == 2 || item == 4) && rank > 0) {
    tables_.Line(fmt::format(
        "PZ_DEVICE const void* {1}_run(const {0}* pz_hbm, const long long* pz_e, long long "
        "pz_off, int pz_n) {{\n"
        "  if (pz_off % pz_n != 0) return nullptr;\n"
        "  [[maybe_unused]] const {2} pz_o = ({2})pz_off;\n{3}"
        "  if (!({4} && pz_a{5} + pz_n <= {6})) return nullptr;\n"
        "  return pz_aligned(pz_hbm + {7}, pz_n * {8});\n}}",
        type, name, offset_type, coords, inside, rank - 1, op.shape.back(), index, item));
    // What the staged products' copies hoist out of their loops (FastOrigin): the window's
    // element 0 in HBM when the whole window lies inside the array, else null; and where element
    // `pz_off` of the window lies from there.
    tables_.Line(fmt::format(
        "PZ_DEVICE const {0}* {1}_origin(const {0}* pz_hbm, const long long* pz_e) {{\n{2}"
        "  return ({3}) ? pz_hbm + {4} : nullptr;\n}}\n"
        "PZ_DEVICE long long {1}_at(long long pz_off) {{\n"
        "  [[maybe_unused]] const {5} pz_o = ({5})pz_off;\n"
        "  return {6};\n}}",
        type, name, origin_coords, whole_inside, index, offset_type, offset_index));
  }
  if (k < mapping_.inputs.size()) return;  // inputs are only read
  tables_.Line(fmt::format(
      "PZ_DEVICE void {1}_write({0}* pz_hbm, const long long* pz_e, long long pz_off, {0} pz_v) "
      "{{\n  [[maybe_unused]] const {2} pz_o = ({2})pz_off;\n{3}"
      "  if ({4}) pz_hbm[{5}] = pz_v;\n}}",
      type, name, offset_type, coords, inside, index));
}

std::string Emitter::RefRaw(const Access& a, const std::string& offset) const {
  if (a.ref >= 0 && direct_[static_cast<size_t>(a.ref)]) {
    return fmt::format("{}_read({}, pz_e, {})", window_at_[static_cast<size_t>(a.ref)], a.base,
                       offset);
  }
  return a.base + "[" + offset + "]";
}

std::string Emitter::RefWrite(const Access& a, const std::string& offset,
                              const std::string& value) const {
  if (a.ref >= 0 && direct_[static_cast<size_t>(a.ref)]) {
    return fmt::format("{}_write({}, pz_e, {}, {});", window_at_[static_cast<size_t>(a.ref)],
                       a.base, offset, StoreExpr(a.dtype, value));
  }
  return fmt::format("{}[{}] = {};", a.base, offset, StoreExpr(a.dtype, value));
}

Access Emitter::Resolve(const Instr& instr, const kernel::RefPath& path) {
  const kernel::RefType& ref = f_.refs.at(static_cast<size_t>(path.ref));
  Access a;
  a.ref = path.ref;
  a.base = fmt::format("r{}", path.ref);
  a.dtype = ref.dtype;
  a.semaphore = ref.space == kernel::MemorySpace::kSemaphore;
  if (a.semaphore) sem_ref_ = path.ref;
  a.shape = ref.shape;
  a.strides = Strides(ref.shape);
  int64_t constant = 0;
  std::string dynamic;
  for (const kernel::Indexer& indexer : path.indexers) {
    Shape shape;
    std::vector<int64_t> strides;
    for (size_t d = 0; d < indexer.size(); ++d) {
      const kernel::DimIndex& dim = indexer[d];
      int64_t extent = dim.is_int ? 1 : dim.size;
      int64_t last = (extent - 1) * dim.stride;  // the window's last element, from its start
      if (dim.dynamic_start != kernel::kNoValue) {
        std::string s = "(long long)" + Name(dim.dynamic_start);
        w_.Line(fmt::format(
            "if ({} < 0 || {} + {} >= {}) {}", s, s, last, a.shape[d],
            Fault(instr, DeviceFault::kIndexOutOfBounds,
                  {std::to_string(d), s, std::to_string(last + 1), std::to_string(a.shape[d])})));
        std::string term = a.strides[d] == 1 ? s : fmt::format("{} * {}", s, a.strides[d]);
        dynamic += " + " + term;
      } else {
        constant += dim.start * a.strides[d];
      }
      if (!dim.is_int) {
        shape.push_back(dim.size);
        strides.push_back(a.strides[d] * dim.stride);
      }
    }
    a.shape = std::move(shape);
    a.strides = std::move(strides);
  }
  a.offset = std::to_string(constant) + dynamic;
  return a;
}

void Emitter::EmitLoad(const Instr& instr) {
  ValueId out = instr.results[0];
  if (fused_ != nullptr) {
    const Access& a = fused_->accesses.at(&instr);
    ForEachElement(out, [&](Writer& w) {
      return RefRead(a, ElementOffset(w, a.offset, a.shape, a.strides, "pz_i"));
    });
    return;
  }
  Access a = Resolve(instr, instr.ref);
  if (a.semaphore) Fail(instr, "a semaphore is read with pl.semaphore_read, not loaded");
  if (IsScalar(out)) {
    w_.Line(fmt::format("{} = {};", Name(out), RefRead(a, a.offset)));
    return;
  }
  w_.Open(ElementLoop(Count(a.shape)) + " {");
  w_.Line(fmt::format("{}[pz_i] = {};", Name(out),
                      RefRaw(a, ElementOffset(w_, a.offset, a.shape, a.strides, "pz_i"))));
  w_.Close();
  Sync();
}

void Emitter::EmitStore(const Instr& instr) {
  ValueId value = instr.operands[0];
  DType from = TypeOf(value).dtype;
  // The element of `value` stored at the access's element with coordinates `c`.
  // A value of the access's shape is stored element for element; another is broadcast.
  auto write = [&](const Access& a) {
    if (TypeOf(value).shape == a.shape) {
      return RefWrite(a, ElementOffset(w_, a.offset, a.shape, a.strides, "pz_i"),
                      Cast(from, a.dtype, Elem(value, "pz_i")));
    }
    std::vector<std::string> c = Unravel(w_, a.shape, "pz_i", "c");
    std::string index = Affine("", c, BroadcastStrides(TypeOf(value).shape, a.shape));
    return RefWrite(a, Affine(a.offset, c, a.strides), Cast(from, a.dtype, Elem(value, index)));
  };
  if (fused_ != nullptr) {
    const Access& a = fused_->accesses.at(&instr);
    w_.Open("{");
    w_.Line(write(a));
    w_.Close();
    return;
  }
  Access a = Resolve(instr, instr.ref);
  Sync();  // every thread has read what it needs of this memory (scalar loads included)
  if (a.shape.empty()) {
    w_.Line("if (threadIdx.x == 0) " +
            RefWrite(a, a.offset, Cast(from, a.dtype, Elem(value, "0"))));
  } else {
    w_.Open(ElementLoop(Count(a.shape)) + " {");
    w_.Line(write(a));
    w_.Close();
  }
  Sync();
}

void Emitter::CopyBetween(const Access& src, const Access& dst, bool add) {
  w_.Open(ElementLoop(Count(src.shape)) + " {");
  std::vector<std::string> c = Unravel(w_, src.shape, "pz_i", "c");
  std::string from = src.base + "[" + Affine(src.offset, c, src.strides) + "]";
  std::string to = dst.base + "[" + Affine(dst.offset, c, dst.strides) + "]";
  if (add) {
    w_.Line(fmt::format("{} = {};", to,
                        StoreExpr(dst.dtype, Normalize(dst.dtype, LoadExpr(dst.dtype, to) + " + " +
                                                                      LoadExpr(src.dtype, from)))));
  } else {
    w_.Line(fmt::format("{} = {};", to, from));
  }
  w_.Close();
}

void Emitter::EmitDma(const Instr& instr) {
  // DMAs complete at their start (a copy may land any time before its wait; landing at once is
  // one of the orders hardware allows). The semaphore counts bytes as on a TPU.
  Access sem = Resolve(instr, instr.ref);
  std::string count = sem.base + "[" + sem.offset + "]";
  if (instr.op == Op::kDmaStart) {
    Access src = Resolve(instr, instr.copy[0]);
    Access dst = Resolve(instr, instr.copy[1]);
    int64_t bytes = Count(src.shape) * static_cast<int64_t>(array::ItemSize(src.dtype));
    Sync();
    CopyBetween(src, dst, instr.add);
    w_.Line(fmt::format("if (threadIdx.x == 0) {{ {} += {}; {} }}", count, bytes,
                        NoteRaise(instr, sem)));
    Sync();
    return;
  }
  Sync();
  w_.Line(
      fmt::format("if ({} < {}) {}", count, instr.bytes,
                  Fault(instr, DeviceFault::kDmaWaitBlocks, {count, std::to_string(instr.bytes)})));
  Sync();
  w_.Line(fmt::format("if (threadIdx.x == 0) {} -= {};", count, instr.bytes));
  Sync();
}

void Emitter::EmitSemaphore(const Instr& instr) {
  Access sem = Resolve(instr, instr.ref);
  std::string count = sem.base + "[" + sem.offset + "]";
  Sync();
  if (instr.op == Op::kSemaphoreRead) {
    w_.Line(fmt::format("{} = (int){};", Name(instr.results[0]), count));
    Sync();
    return;
  }
  std::string amount = "(long long)" + Name(instr.operands[0]);
  if (instr.op == Op::kSemaphoreSignal) {
    w_.Line(fmt::format("if (threadIdx.x == 0) {{ {} += {}; {} }}", count, amount,
                        NoteRaise(instr, sem)));
    Sync();
    return;
  }
  w_.Line(fmt::format("if ({} < {}) {}", count, amount,
                      Fault(instr, DeviceFault::kSemaphoreWaitBlocks, {count, amount})));
  Sync();
  if (instr.decrement) {
    w_.Line(fmt::format("if (threadIdx.x == 0) {} -= {};", count, amount));
    Sync();
  }
}

}  // namespace pz::cuda::detail

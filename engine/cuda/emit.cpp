// The CUDA emitter (see emit.h): one kernel per call, one C++ statement group per IR instruction.
#include "cuda/emit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <variant>

#include "array/creation.h"
#include "array/prims.h"
#include "cuda/prelude.h"
#include "support/check.h"

namespace pz::cuda {

namespace {

using array::DType;
using array::Prim;
using array::Shape;
using kernel::Instr;
using kernel::Op;
using kernel::ValueId;

// ---- dtypes as C types -----------------------------------------------------------------------

bool IsFloat(DType d) {
  return d == DType::kFloat32 || d == DType::kBFloat16 || d == DType::kFloat16;
}
bool IsUnsignedInt(DType d) {
  return d == DType::kUInt8 || d == DType::kUInt16 || d == DType::kUInt32;
}
bool IsSignedInt(DType d) { return d == DType::kInt8 || d == DType::kInt16 || d == DType::kInt32; }
int Bits(DType d) { return static_cast<int>(array::ItemSize(d)) * 8; }

// The type an element is stored as in memory.
std::string StorageType(DType d) {
  switch (d) {
    case DType::kBool:
    case DType::kUInt8:
      return "unsigned char";
    case DType::kInt8:
      return "signed char";
    case DType::kInt16:
      return "short";
    case DType::kUInt16:
    case DType::kBFloat16:
    case DType::kFloat16:
      return "unsigned short";
    case DType::kInt32:
      return "int";
    case DType::kUInt32:
      return "unsigned";
    case DType::kFloat32:
      return "float";
  }
  PZ_UNREACHABLE();
}

// The type a value is computed in (16-bit floats as float, rounded to their precision).
std::string RegType(DType d) {
  if (IsFloat(d)) return "float";
  if (d == DType::kBool) return "bool";
  return IsUnsignedInt(d) ? "unsigned" : "int";
}

// Memory -> register.
std::string LoadExpr(DType d, const std::string& lvalue) {
  switch (d) {
    case DType::kBFloat16:
      return "pz_bf16_f32(" + lvalue + ")";
    case DType::kFloat16:
      return "pz_f16_f32(" + lvalue + ")";
    case DType::kBool:
      return "(" + lvalue + " != 0)";
    default:
      return lvalue;
  }
}

// Register -> memory.
std::string StoreExpr(DType d, const std::string& value) {
  switch (d) {
    case DType::kBFloat16:
      return "pz_f32_bf16(" + value + ")";
    case DType::kFloat16:
      return "pz_f32_f16(" + value + ")";
    case DType::kFloat32:
      return value;
    default:
      return "(" + StorageType(d) + ")(" + value + ")";
  }
}

// A register value wrapped into dtype d's range (integers) or rounded to its precision.
std::string Normalize(DType d, const std::string& x) {
  switch (d) {
    case DType::kBFloat16:
      return "pz_round_bf16(" + x + ")";
    case DType::kFloat16:
      return "pz_round_f16(" + x + ")";
    case DType::kFloat32:
      return "(float)(" + x + ")";
    case DType::kBool:
      return "((" + x + ") != 0)";
    default:
      return "(" + RegType(d) + ")(" + StorageType(d) + ")(" + x + ")";
  }
}

int64_t MinOf(DType d) {
  switch (d) {
    case DType::kInt8:
      return std::numeric_limits<int8_t>::min();
    case DType::kInt16:
      return std::numeric_limits<int16_t>::min();
    case DType::kInt32:
      return std::numeric_limits<int32_t>::min();
    default:
      return 0;
  }
}
int64_t MaxOf(DType d) {
  switch (d) {
    case DType::kInt8:
      return std::numeric_limits<int8_t>::max();
    case DType::kUInt8:
      return std::numeric_limits<uint8_t>::max();
    case DType::kInt16:
      return std::numeric_limits<int16_t>::max();
    case DType::kUInt16:
      return std::numeric_limits<uint16_t>::max();
    case DType::kInt32:
      return std::numeric_limits<int32_t>::max();
    case DType::kUInt32:
      return std::numeric_limits<uint32_t>::max();
    default:
      return 1;
  }
}

std::string IntLit(int64_t v) {
  if (v == std::numeric_limits<int64_t>::min()) return "(-9223372036854775807LL - 1)";
  return fmt::format("{}LL", v);
}

std::string FloatLit(float f) {
  if (!std::isfinite(f)) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return fmt::format("pz_f32_from_bits(0x{:08x}u)", bits);
  }
  return fmt::format("{:a}f", f);
}

// A register literal of dtype d holding `v` (already representable).
std::string Literal(DType d, double v) {
  if (IsFloat(d)) return FloatLit(static_cast<float>(v));
  if (d == DType::kBool) return v != 0 ? "true" : "false";
  return "(" + RegType(d) + ")" + IntLit(static_cast<int64_t>(v));
}

// A register value of dtype `from` as dtype `to` (convert_element_type).
std::string Cast(DType from, DType to, const std::string& x) {
  if (from == to) return x;
  if (to == DType::kBool) return "((" + x + ") != 0)";
  if (from == DType::kBool) {
    return IsFloat(to) ? "((" + x + ") ? 1.0f : 0.0f)"
                       : "(" + RegType(to) + ")((" + x + ") ? 1 : 0)";
  }
  if (IsFloat(to)) {
    std::string f = IsFloat(from) ? x : "(float)(" + x + ")";
    return to == DType::kFloat32 ? f : Normalize(to, f);
  }
  if (IsFloat(from)) {
    return fmt::format("({})pz_f2i({}, {}, {})", RegType(to), x, IntLit(MinOf(to)),
                       IntLit(MaxOf(to)));
  }
  return Normalize(to, x);
}

// The poison uninitialised block memory holds (tpu semantics): NaN, the minimum, True.
std::string PoisonStorage(DType d) {
  switch (d) {
    case DType::kFloat32:
      return "pz_f32_from_bits(0x7fc00000u)";
    case DType::kBFloat16:
      return "(unsigned short)0x7fc0u";
    case DType::kFloat16:
      return "(unsigned short)0x7e00u";
    case DType::kBool:
      return "(unsigned char)1";
    default:
      return "(" + StorageType(d) + ")" + IntLit(MinOf(d));
  }
}

Shape Strides(const Shape& shape) {
  Shape s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

int64_t Count(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// ---- a writer with indentation ---------------------------------------------------------------

class Writer {
 public:
  void Line(const std::string& s) {
    text_.append(static_cast<size_t>(indent_) * 2, ' ');
    text_ += s;
    text_ += '\n';
  }
  void Open(const std::string& s) {
    Line(s);
    ++indent_;
  }
  void Close(const std::string& s = "}") {
    --indent_;
    Line(s);
  }
  // Closes a block and opens the next on one line ("} else {").
  void Reopen(const std::string& s) {
    --indent_;
    Line(s);
    ++indent_;
  }
  std::string& text() { return text_; }

 private:
  std::string text_;
  int indent_ = 0;
};

// The coordinates of linear index `i` in `shape` as declarations `c<prefix><d>` (size-1
// dimensions are 0 and get none); returns the names ("0" for those).
std::vector<std::string> Unravel(Writer& w, const Shape& shape, const std::string& i,
                                 const std::string& prefix) {
  std::vector<std::string> names(shape.size(), "0");
  Shape strides = Strides(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    names[d] = fmt::format("pz_{}{}", prefix, d);
    std::string e = strides[d] == 1 ? i : fmt::format("({} / {})", i, strides[d]);
    if (d > 0) e = fmt::format("{} % {}", e, shape[d]);
    w.Line(fmt::format("[[maybe_unused]] const long long {} = {};", names[d], e));
  }
  return names;
}

// base + Σ coordinate * stride, skipping zero terms.
std::string Affine(const std::string& base, const std::vector<std::string>& coords,
                   const std::vector<int64_t>& strides) {
  std::string e = base.empty() ? "" : base;
  for (size_t d = 0; d < coords.size(); ++d) {
    if (coords[d] == "0" || strides[d] == 0) continue;
    std::string term = strides[d] == 1 ? coords[d] : fmt::format("{} * {}", coords[d], strides[d]);
    e = e.empty() ? term : e + " + " + term;
  }
  return e.empty() ? "0" : e;
}

// Broadcast strides of an operand of `shape` inside a result of `out` (numpy alignment).
std::vector<int64_t> BroadcastStrides(const Shape& shape, const Shape& out) {
  std::vector<int64_t> strides(out.size(), 0);
  Shape own = Strides(shape);
  size_t shift = out.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] != 1) strides[d + shift] = own[d];
  }
  return strides;
}

// ---- the emitter -----------------------------------------------------------------------------

struct Slot {
  int64_t offset = 0;
  int64_t bytes = 0;
  bool is_ref = false;
};

// A view of memory: element (c_0, ..., c_n) is at base[offset + Σ c_d * strides_d].
struct Access {
  std::string base;
  DType dtype = DType::kFloat32;
  bool semaphore = false;
  Shape shape;
  std::vector<int64_t> strides;
  std::string offset;
};

class Emitter {
 public:
  explicit Emitter(const EmitRequest& request)
      : req_(request), f_(*request.kernel), mapping_(*request.mapping) {}

  EmittedKernel Run();

 private:
  const kernel::ValueType& TypeOf(ValueId v) const { return f_.values[static_cast<size_t>(v)]; }
  bool IsScalar(ValueId v) const { return TypeOf(v).shape.empty(); }
  std::string Name(ValueId v) const { return fmt::format("v{}", v); }
  // The register value of element `index` of `v` (a scalar ignores the index).
  std::string Elem(ValueId v, const std::string& index) const {
    if (IsScalar(v)) return Name(v);
    return LoadExpr(TypeOf(v).dtype, Name(v) + "[" + index + "]");
  }
  int Number(const Instr& instr) const { return numbers_.at(&instr); }
  [[noreturn]] void Fail(const Instr& instr, const std::string& what,
                         const std::string& hint = "") const {
    throw Unmappable(what, instr.span, hint);
  }

  // Layout.
  void NumberRegion(const kernel::Region& region);
  void CollectRegion(const kernel::Region& region);
  int64_t AddSlot(int64_t bytes, bool is_ref);
  // Emission.
  void EmitRegion(const kernel::Region& region);
  void EmitInstr(const Instr& instr);
  void EmitPrim(const Instr& instr);
  void Sync() { w_.Line("__syncthreads();"); }
  // Writes each element of `out` (loop over its elements, or all threads alike for a scalar):
  // `body` returns the register value of element `pz_i` (given the writer for declarations).
  template <typename Body>
  void ForEachElement(ValueId out, Body&& body);
  void EmitElementwise(const Instr& instr);
  std::string UnaryExpr(const Instr& instr, Prim prim, DType d, const std::string& x);
  std::string BinaryExpr(const Instr& instr, Prim prim, DType d, const std::string& a,
                         const std::string& b);
  void EmitReduce(const Instr& instr);
  void EmitDot(const Instr& instr);
  void EmitMove(const Instr& instr);
  void EmitGatherMap(ValueId out, ValueId in, const array::Array& map);
  void EmitConstant(const Instr& instr);
  void EmitLoad(const Instr& instr);
  void EmitStore(const Instr& instr);
  void EmitDma(const Instr& instr);
  void EmitSemaphore(const Instr& instr);
  void EmitLoop(const Instr& instr);
  void EmitCond(const Instr& instr);
  void AssignCarries(const std::vector<ValueId>& targets, const std::vector<ValueId>& sources,
                     const std::vector<int64_t>& slots);
  void CopyValue(const std::string& dst_pointer, ValueId src);
  Access Resolve(const Instr& instr, const kernel::RefPath& path);
  void CopyBetween(const Access& src, const Access& dst, bool add);
  std::string Fault(const Instr& instr, DeviceFault fault, const std::vector<std::string>& detail);
  // Records `instr` and the step as the last to raise the semaphore element `sem` reaches.
  std::string NoteRaise(const Instr& instr, const Access& sem) const {
    int64_t n = std::max<int64_t>(Count(f_.refs.at(static_cast<size_t>(sem_ref_)).shape), 1);
    return fmt::format("{0}[{1} + {2}] = {3}; {0}[{4} + {2}] = pz_step;", sem.base, n, sem.offset,
                       Number(instr), 2 * n);
  }
  kernel::RefId sem_ref_ = -1;  // the semaphore ref Resolve last resolved

  const EmitRequest& req_;
  const kernel::Function& f_;
  const kernel::GridMapping& mapping_;
  Writer w_;
  Writer tables_;
  std::map<const Instr*, int> numbers_;
  std::vector<const Instr*> instrs_;
  std::vector<Slot> slots_;
  std::vector<int64_t> value_slot_;                           // per value: slot index or -1
  std::vector<int64_t> ref_slot_;                             // per ref: slot index or -1
  std::map<const Instr*, std::vector<int64_t>> carry_slots_;  // loops: per array carry
  std::map<const Instr*, std::vector<int64_t>> temp_slots_;   // loops: staging for swaps
  std::vector<std::string> coords_;                           // the current element's coordinates
};

int64_t Emitter::AddSlot(int64_t bytes, bool is_ref) {
  slots_.push_back({.offset = 0, .bytes = (bytes + 15) / 16 * 16, .is_ref = is_ref});
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
      if (t.shape.empty()) continue;
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

  // Refs: pipelined block buffers, scratch, scoped buffers and semaphores get arena slots;
  // prefetch arrays and pl.ANY operands are the HBM arrays themselves.
  size_t num_prefetch = mapping_.prefetch.size();
  size_t num_operands = mapping_.inputs.size() + mapping_.outputs.size();
  for (size_t r = 0; r < f_.refs.size(); ++r) {
    const kernel::RefType& ref = f_.refs[r];
    bool pipelined = r >= num_prefetch && r < num_prefetch + num_operands &&
                     ref.space != kernel::MemorySpace::kAny;
    bool local = ref.role == kernel::RefRole::kScratch || ref.role == kernel::RefRole::kScoped;
    if (!pipelined && !local) continue;
    int64_t item = ref.space == kernel::MemorySpace::kSemaphore
                       ? 8
                       : static_cast<int64_t>(array::ItemSize(ref.dtype));
    // A semaphore keeps, beside its counts, the instruction and step that last raised each one
    // (for the error when one is left non-zero).
    int64_t copies = ref.space == kernel::MemorySpace::kSemaphore ? 3 : 1;
    ref_slot_[r] = AddSlot(std::max<int64_t>(Count(ref.shape), 1) * item * copies, true);
  }
  CollectRegion(f_.body);
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
  out.shared_bytes = shared_at;
  out.global_bytes = global_at;
  auto slot_pointer = [&](int64_t s, const std::string& type) {
    return fmt::format("({}*)({} + {})", type,
                       in_shared[static_cast<size_t>(s)] ? "pz_smem" : "pz_gmem",
                       slots_[static_cast<size_t>(s)].offset);
  };

  // The step table's columns.
  out.table_columns = static_cast<int64_t>(mapping_.grid.size());
  for (size_t k = 0; k < num_operands; ++k) {
    const kernel::BlockMapping& op = mapping_.operand(k);
    if (op.space == kernel::MemorySpace::kAny) {
      out.operand_column.push_back(-1);
      continue;
    }
    out.operand_column.push_back(out.table_columns);
    out.table_columns += static_cast<int64_t>(op.shape.size());
  }

  // ---- the function ----
  w_.Line(fmt::format("// {}", req_.origin));
  w_.Open(fmt::format(
      "extern \"C\" __global__ void {}(const unsigned long long* __restrict__ pz_args) {{",
      req_.name));
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
  // Refs.
  for (size_t r = 0; r < f_.refs.size(); ++r) {
    const kernel::RefType& ref = f_.refs[r];
    std::string type =
        ref.space == kernel::MemorySpace::kSemaphore ? "long long" : StorageType(ref.dtype);
    std::string where = ref_slot_[r] >= 0 ? slot_pointer(ref_slot_[r], type) : hbm.at(r);
    w_.Line(fmt::format("[[maybe_unused]] {}* const r{} = {};  // {}", type, r, where, ref.name));
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
  // shows as it does there), semaphores at zero.
  for (size_t r = 0; r < f_.refs.size(); ++r) {
    const kernel::RefType& ref = f_.refs[r];
    if (ref_slot_[r] < 0 || ref.space == kernel::MemorySpace::kSemaphore) continue;
    w_.Line(fmt::format(
        "for (long long pz_i = threadIdx.x; pz_i < {}; pz_i += blockDim.x) r{}[pz_i] = {};",
        std::max<int64_t>(Count(ref.shape), 1), r, PoisonStorage(ref.dtype)));
  }
  for (size_t r = 0; r < f_.refs.size(); ++r) {
    if (f_.refs[r].space != kernel::MemorySpace::kSemaphore || ref_slot_[r] < 0) continue;
    w_.Line(fmt::format(
        "for (long long pz_i = threadIdx.x; pz_i < {}; pz_i += blockDim.x) r{}[pz_i] = 0;",
        3 * std::max<int64_t>(Count(f_.refs[r].shape), 1), r));
  }
  Sync();

  // ---- the chains ----
  int64_t columns = out.table_columns;
  w_.Line(fmt::format("const long long pz_steps = (long long)pz_args[{}];",
                      static_cast<int>(kArgSteps)));
  w_.Open("for (long long pz_chain = blockIdx.x; pz_chain < pz_chains; pz_chain += gridDim.x) {");
  w_.Open("for (long long pz_s = 0; pz_s < pz_steps; ++pz_s) {");
  w_.Line("const long long pz_step = pz_chain * pz_steps + pz_s;");
  w_.Line(fmt::format("const long long* const pz_e = pz_table + pz_step * {};", columns));
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
  auto window_loop = [&](size_t k, bool fetch) {
    const kernel::BlockMapping& op = mapping_.operand(k);
    int64_t column = out.operand_column[k];
    size_t rank = op.shape.size();
    Shape window(rank);
    for (size_t d = 0; d < rank; ++d) {
      window[d] = op.block[d].kind == kernel::BlockDim::Kind::kSqueezed ? 1 : op.block[d].size;
    }
    Shape hbm_strides = Strides(op.shape);
    std::string ref = fmt::format("r{}", num_prefetch + k);
    std::string condition = fetch ? "pz_s == 0 || " + moved(column, rank, -1)
                                  : "pz_s == pz_steps - 1 || " + moved(column, rank, 1);
    w_.Open(
        fmt::format("if ({}) {{  // {} {}", condition, fetch ? "fetch" : "write back", op.name));
    w_.Open(fmt::format("for (long long pz_i = threadIdx.x; pz_i < {}; pz_i += blockDim.x) {{",
                        Count(window)));
    std::vector<std::string> c = Unravel(w_, window, "pz_i", "w");
    std::string inside = "true", offset;
    for (size_t d = 0; d < rank; ++d) {
      w_.Line(fmt::format("const long long pz_a{} = pz_e[{}] + {};", d,
                          column + static_cast<int64_t>(d), c[d]));
      inside += fmt::format(" && pz_a{} >= 0 && pz_a{} < {}", d, d, op.shape[d]);
      offset += fmt::format("{}pz_a{} * {}", d ? " + " : "", d, hbm_strides[d]);
    }
    if (offset.empty()) offset = "0";
    if (fetch) {
      w_.Line(fmt::format("{}[pz_i] = ({}) ? {}[{}] : {};", ref, inside, hbm.at(num_prefetch + k),
                          offset, PoisonStorage(op.dtype)));
    } else {
      w_.Line(
          fmt::format("if ({}) {}[{}] = {}[pz_i];", inside, hbm.at(num_prefetch + k), offset, ref));
    }
    w_.Close();
    w_.Close();
  };
  for (size_t k = 0; k < mapping_.inputs.size(); ++k) {
    if (out.operand_column[k] >= 0) window_loop(k, true);
  }
  Sync();
  EmitRegion(f_.body);
  Sync();
  for (size_t k = mapping_.inputs.size(); k < num_operands; ++k) {
    if (out.operand_column[k] >= 0) window_loop(k, false);
  }
  Sync();
  w_.Close();
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

void Emitter::EmitRegion(const kernel::Region& region) {
  for (const Instr& instr : region.body) EmitInstr(instr);
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
      return EmitDma(instr);
    case Op::kSemaphoreSignal:
    case Op::kSemaphoreWait:
    case Op::kSemaphoreRead:
      return EmitSemaphore(instr);
    case Op::kRunScoped:
      // Fresh buffers: poisoned, semaphores at zero.
      for (kernel::RefId r : instr.scoped) {
        const kernel::RefType& ref = f_.refs.at(static_cast<size_t>(r));
        w_.Line(fmt::format(
            "for (long long pz_i = threadIdx.x; pz_i < {}; pz_i += blockDim.x) r{}[pz_i] = {};",
            std::max<int64_t>(Count(ref.shape), 1), r,
            ref.space == kernel::MemorySpace::kSemaphore ? "0" : PoisonStorage(ref.dtype)));
      }
      Sync();
      EmitRegion(instr.regions[0]);
      for (size_t k = 0; k < instr.results.size(); ++k) {
        w_.Line(fmt::format("{} = {};", Name(instr.results[k]), Name(instr.regions[0].yields[k])));
      }
      return;
    case Op::kDebugPrint:
      Fail(instr, "the CUDA backend cannot print from a kernel (jax.debug.print / pl.debug_print)",
           "remove the print, or run without `--backend cuda` to see it");
    case Op::kPrngSeed:
    case Op::kPrngRandomBits:
      Fail(instr,
           "the CUDA backend has no core random number generator (pltpu.prng_seed / "
           "prng_random_bits)",
           "run this kernel on the emulated TPU (without `--backend cuda`)");
    default:
      Fail(instr, fmt::format("the CUDA backend cannot run `{}`", kernel::OpName(instr.op)));
  }
}

// ---- memory -----------------------------------------------------------------------------------

Access Emitter::Resolve(const Instr& instr, const kernel::RefPath& path) {
  const kernel::RefType& ref = f_.refs.at(static_cast<size_t>(path.ref));
  Access a;
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
  Access a = Resolve(instr, instr.ref);
  ValueId out = instr.results[0];
  if (a.semaphore) Fail(instr, "a semaphore is read with pl.semaphore_read, not loaded");
  if (IsScalar(out)) {
    w_.Line(fmt::format("{} = {};", Name(out), LoadExpr(a.dtype, a.base + "[" + a.offset + "]")));
    return;
  }
  w_.Open(fmt::format("for (long long pz_i = threadIdx.x; pz_i < {}; pz_i += blockDim.x) {{",
                      Count(a.shape)));
  std::vector<std::string> c = Unravel(w_, a.shape, "pz_i", "c");
  w_.Line(fmt::format("{}[pz_i] = {}[{}];", Name(out), a.base, Affine(a.offset, c, a.strides)));
  w_.Close();
  Sync();
}

void Emitter::EmitStore(const Instr& instr) {
  Access a = Resolve(instr, instr.ref);
  ValueId value = instr.operands[0];
  DType from = TypeOf(value).dtype;
  Sync();  // every thread has read what it needs of this memory (scalar loads included)
  if (a.shape.empty()) {
    w_.Line(fmt::format("if (threadIdx.x == 0) {}[{}] = {};", a.base, a.offset,
                        StoreExpr(a.dtype, Cast(from, a.dtype, Elem(value, "0")))));
  } else {
    std::vector<int64_t> src = BroadcastStrides(TypeOf(value).shape, a.shape);
    w_.Open(fmt::format("for (long long pz_i = threadIdx.x; pz_i < {}; pz_i += blockDim.x) {{",
                        Count(a.shape)));
    std::vector<std::string> c = Unravel(w_, a.shape, "pz_i", "c");
    std::string index = TypeOf(value).shape == a.shape ? "pz_i" : Affine("", c, src);
    w_.Line(fmt::format("{}[{}] = {};", a.base, Affine(a.offset, c, a.strides),
                        StoreExpr(a.dtype, Cast(from, a.dtype, Elem(value, index)))));
    w_.Close();
  }
  Sync();
}

void Emitter::CopyBetween(const Access& src, const Access& dst, bool add) {
  w_.Open(fmt::format("for (long long pz_i = threadIdx.x; pz_i < {}; pz_i += blockDim.x) {{",
                      Count(src.shape)));
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

// ---- control flow -----------------------------------------------------------------------------

void Emitter::CopyValue(const std::string& dst_pointer, ValueId src) {
  w_.Line(fmt::format(
      "for (long long pz_i = threadIdx.x; pz_i < {}; pz_i += blockDim.x) {}[pz_i] = {}[pz_i];",
      Count(TypeOf(src).shape), dst_pointer, Name(src)));
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
      w_.Line(fmt::format(
          "for (long long pz_i = threadIdx.x; pz_i < {}; pz_i += blockDim.x) {}[pz_i] = t{}[pz_i];",
          Count(TypeOf(targets[k]).shape), Name(targets[k]), temps[k]));
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

// ---- primitives -------------------------------------------------------------------------------

template <typename Body>
void Emitter::ForEachElement(ValueId out, Body&& body) {
  const kernel::ValueType& t = TypeOf(out);
  if (t.shape.empty()) {
    w_.Open("{");
    std::string value = body(w_);
    w_.Line(fmt::format("{} = {};", Name(out), value));
    w_.Close();
    return;
  }
  w_.Open(fmt::format("for (long long pz_i = threadIdx.x; pz_i < {}; pz_i += blockDim.x) {{",
                      Count(t.shape)));
  std::string value = body(w_);
  w_.Line(fmt::format("{}[pz_i] = {};", Name(out), StoreExpr(t.dtype, value)));
  w_.Close();
  Sync();
}

void Emitter::EmitPrim(const Instr& instr) {
  Prim prim = kernel::PrimOf(instr.op);
  switch (array::PrimCostKind(prim)) {
    case array::PrimCost::kElementwise:
    case array::PrimCost::kTranscendental:
      if (prim >= Prim::kRandomSeed && prim <= Prim::kRandomRandint) break;
      return EmitElementwise(instr);
    case array::PrimCost::kReduction:
      return EmitReduce(instr);
    case array::PrimCost::kDot:
      return EmitDot(instr);
    case array::PrimCost::kMove:
      return EmitMove(instr);
  }
  Fail(instr, fmt::format("the CUDA backend cannot run `{}` yet", array::PrimName(prim)),
       "run this kernel on the emulated TPU (without `--backend cuda`)");
}

std::string Emitter::UnaryExpr(const Instr& instr, Prim prim, DType d, const std::string& x) {
  bool f = IsFloat(d);
  auto float_only = [&](const char* fn) {
    if (!f)
      Fail(instr, fmt::format("`{}` of {} on the CUDA backend", array::PrimName(prim),
                              array::DTypeName(d)));
    return fmt::format("{}({})", fn, x);
  };
  switch (prim) {
    case Prim::kNeg:
      if (d == DType::kBool) return x;
      return f ? "-(" + x + ")" : "(long long)0 - (long long)(" + x + ")";
    case Prim::kCopy:
      return x;
    case Prim::kAbs:
      if (f) return "fabsf(" + x + ")";
      return IsUnsignedInt(d) || d == DType::kBool
                 ? x
                 : "((" + x + ") < 0 ? -(long long)(" + x + ") : (long long)(" + x + "))";
    case Prim::kNot:
      return d == DType::kBool ? "!(" + x + ")" : "~(" + x + ")";
    case Prim::kLogicalNot:
      return "!(" + x + ")";
    case Prim::kExp:
      return float_only("expf");
    case Prim::kExp2:
      return float_only("exp2f");
    case Prim::kLog:
      return float_only("logf");
    case Prim::kLog1p:
      return float_only("log1pf");
    case Prim::kExpm1:
      return float_only("expm1f");
    case Prim::kSqrt:
      return float_only("sqrtf");
    case Prim::kRsqrt:
      return float_only("pz_rsqrt");
    case Prim::kTanh:
      return float_only("tanhf");
    case Prim::kSin:
      return float_only("sinf");
    case Prim::kCos:
      return float_only("cosf");
    case Prim::kTan:
      return float_only("tanf");
    case Prim::kErf:
      return float_only("erff");
    case Prim::kLogistic:
      return float_only("pz_logistic");
    case Prim::kSign:
      if (f) return "pz_fsign(" + x + ")";
      if (IsUnsignedInt(d)) return "((" + x + ") > 0 ? 1 : 0)";
      return "(((" + x + ") > 0) - ((" + x + ") < 0))";
    case Prim::kFloor:
      return f ? "floorf(" + x + ")" : x;
    case Prim::kCeil:
      return f ? "ceilf(" + x + ")" : x;
    case Prim::kRound:
      return f ? "rintf(" + x + ")" : x;
    case Prim::kIsNan:
      return f ? "isnan(" + x + ")" : "false";
    case Prim::kIsInf:
      return f ? "isinf(" + x + ")" : "false";
    case Prim::kIsFinite:
      return f ? "isfinite(" + x + ")" : "true";
    case Prim::kSquare:
      return f ? "(" + x + ") * (" + x + ")" : "(long long)(" + x + ") * (long long)(" + x + ")";
    case Prim::kReciprocal:
      return float_only("1.0f / ");
    default:
      Fail(instr, fmt::format("the CUDA backend cannot run `{}` yet", array::PrimName(prim)));
  }
}

std::string Emitter::BinaryExpr(const Instr& instr, Prim prim, DType d, const std::string& a,
                                const std::string& b) {
  bool f = IsFloat(d);
  bool boolean = d == DType::kBool;
  std::string la = "(long long)(" + a + ")", lb = "(long long)(" + b + ")";
  std::string ua = "(unsigned long long)(" + a + ")", ub = "(unsigned long long)(" + b + ")";
  auto infix = [&](const char* op) { return fmt::format("({}) {} ({})", a, op, b); };
  switch (prim) {
    case Prim::kAdd:
      return f ? infix("+") : boolean ? infix("||") : ua + " + " + ub;
    case Prim::kSub:
      return f ? infix("-") : ua + " - " + ub;
    case Prim::kMul:
      return f ? infix("*") : boolean ? infix("&&") : ua + " * " + ub;
    case Prim::kDiv:
      if (f) return infix("/");
      return IsUnsignedInt(d) ? fmt::format("({} == 0 ? ~0ull : {} / {})", ub, ua, ub)
                              : fmt::format("pz_idiv({}, {})", la, lb);
    case Prim::kFloorDivide:
      if (f) return fmt::format("pz_ffloordiv({}, {})", a, b);
      return IsUnsignedInt(d) ? fmt::format("({} == 0 ? ~0ull : {} / {})", ub, ua, ub)
                              : fmt::format("pz_ifloordiv({}, {}, true)", la, lb);
    case Prim::kRemainder:
      if (f) return fmt::format("pz_fmod({}, {})", a, b);
      return IsUnsignedInt(d) ? fmt::format("({} == 0 ? {} : {} % {})", ub, ua, ua, ub)
                              : fmt::format("pz_imod({}, {})", la, lb);
    case Prim::kPow:
      if (f) return fmt::format("powf({}, {})", a, b);
      return fmt::format("pz_ipow({}, {}, {}, {}, {})", la, lb,
                         IntLit(static_cast<int64_t>((uint64_t{1} << Bits(d)) - 1)),
                         IsSignedInt(d) ? "true" : "false", Bits(d));
    case Prim::kMax:
      if (f) return fmt::format("pz_fmax({}, {})", a, b);
      return fmt::format("(({}) > ({}) ? ({}) : ({}))", a, b, a, b);
    case Prim::kMin:
      if (f) return fmt::format("pz_fmin({}, {})", a, b);
      return fmt::format("(({}) < ({}) ? ({}) : ({}))", a, b, a, b);
    case Prim::kAnd:
      return boolean ? infix("&&") : infix("&");
    case Prim::kOr:
      return boolean ? infix("||") : infix("|");
    case Prim::kXor:
      return boolean ? infix("!=") : infix("^");
    case Prim::kShiftLeft:
      return fmt::format("pz_shl({}, {}, {})", la, lb, Bits(d));
    case Prim::kShiftRightArithmetic:
      return fmt::format("pz_sar({}, {}, {})", la, lb, Bits(d));
    case Prim::kShiftRightLogical:
      return fmt::format("pz_shr({} & {}, {}, {})", ua,
                         IntLit(static_cast<int64_t>((uint64_t{1} << Bits(d)) - 1)), lb, Bits(d));
    case Prim::kEq:
      return infix("==");
    case Prim::kNe:
      return infix("!=");
    case Prim::kLt:
      return infix("<");
    case Prim::kLe:
      return infix("<=");
    case Prim::kGt:
      return infix(">");
    case Prim::kGe:
      return infix(">=");
    case Prim::kLogicalAnd:
      return infix("&&");
    case Prim::kLogicalOr:
      return infix("||");
    case Prim::kAtan2:
      return fmt::format("atan2f({}, {})", a, b);
    default:
      Fail(instr, fmt::format("the CUDA backend cannot run `{}` yet", array::PrimName(prim)));
  }
}

bool IsComparison(Prim p) {
  return p == Prim::kEq || p == Prim::kNe || p == Prim::kLt || p == Prim::kLe || p == Prim::kGt ||
         p == Prim::kGe;
}

void Emitter::EmitElementwise(const Instr& instr) {
  Prim prim = kernel::PrimOf(instr.op);
  ValueId out = instr.results[0];
  DType rd = TypeOf(out).dtype;
  const Shape& shape = TypeOf(out).shape;
  // The register value of operand k at the current element, converted to dtype `to`.
  auto operand = [&](Writer&, size_t k, DType to) {
    ValueId v = instr.operands[k];
    std::string index = "pz_i";
    if (!IsScalar(v) && TypeOf(v).shape != shape) {
      index = Affine("", coords_, BroadcastStrides(TypeOf(v).shape, shape));
    }
    return Cast(TypeOf(v).dtype, to, Elem(v, index));
  };
  auto needs_coords = [&] {
    for (ValueId v : instr.operands) {
      if (!IsScalar(v) && TypeOf(v).shape != shape) return true;
    }
    return false;
  };
  ForEachElement(out, [&](Writer& w) -> std::string {
    coords_.clear();
    if (!shape.empty() && needs_coords()) coords_ = Unravel(w, shape, "pz_i", "c");
    if (std::optional<array::UnaryOp> op = array::UnaryOpOf(prim); op || prim == Prim::kCopy) {
      DType in = TypeOf(instr.operands[0]).dtype;
      bool to_bool = prim == Prim::kIsNan || prim == Prim::kIsInf || prim == Prim::kIsFinite ||
                     prim == Prim::kLogicalNot;
      DType compute = to_bool ? in : rd;
      std::string x = operand(w, 0, compute);
      return Cast(compute, rd, Normalize(compute, UnaryExpr(instr, prim, compute, x)));
    }
    switch (prim) {
      case Prim::kIntegerPow: {
        int64_t y = std::get<array::IntegerPowAttrs>(instr.prim.attrs).y;
        std::string x = operand(w, 0, rd);
        if (IsFloat(rd)) return Normalize(rd, fmt::format("pz_fpow_int({}, {})", x, IntLit(y)));
        return Normalize(rd,
                         fmt::format("pz_ipow((long long)({}), {}, {}, {}, {})", x, IntLit(y),
                                     IntLit(static_cast<int64_t>((uint64_t{1} << Bits(rd)) - 1)),
                                     IsSignedInt(rd) ? "true" : "false", Bits(rd)));
      }
      case Prim::kConvertElementType:
        return operand(w, 0, rd);
      case Prim::kBitcastConvertType: {
        DType in = TypeOf(instr.operands[0]).dtype;
        if (array::ItemSize(in) != array::ItemSize(rd)) {
          Fail(instr, "the CUDA backend bitcasts only between dtypes of one width");
        }
        std::string x = Elem(instr.operands[0], "pz_i");
        if (in == DType::kFloat32) x = "pz_bits_of_f32(" + x + ")";
        if (in == DType::kBFloat16) x = "pz_f32_bf16(" + x + ")";
        if (in == DType::kFloat16) x = "pz_f32_f16(" + x + ")";
        if (rd == DType::kFloat32) return "pz_f32_from_bits((unsigned)(" + x + "))";
        if (rd == DType::kBFloat16) return "pz_bf16_f32((unsigned short)(" + x + "))";
        if (rd == DType::kFloat16) return "pz_f16_f32((unsigned short)(" + x + "))";
        return Normalize(rd, x);
      }
      case Prim::kSelectN: {
        std::string p = operand(w, 0, DType::kBool);
        return fmt::format("({}) ? ({}) : ({})", p, operand(w, 2, rd), operand(w, 1, rd));
      }
      case Prim::kClamp: {
        std::string lo = operand(w, 0, rd), x = operand(w, 1, rd), hi = operand(w, 2, rd);
        if (IsFloat(rd)) return fmt::format("pz_fmin(pz_fmax({}, {}), {})", x, lo, hi);
        return fmt::format("(({0}) < ({1}) ? ({1}) : ({0}) > ({2}) ? ({2}) : ({0}))", x, lo, hi);
      }
      default:
        break;
    }
    if (array::BinaryOpOf(prim) || prim == Prim::kShiftRightLogical) {
      DType compute = rd;
      if (IsComparison(prim) || prim == Prim::kLogicalAnd || prim == Prim::kLogicalOr) {
        ValueId a = instr.operands[0], b = instr.operands[1];
        compute =
            array::Promote({TypeOf(a).dtype, TypeOf(a).weak}, {TypeOf(b).dtype, TypeOf(b).weak})
                .dtype;
        if (prim == Prim::kLogicalAnd || prim == Prim::kLogicalOr) compute = DType::kBool;
      }
      std::string a = operand(w, 0, compute), b = operand(w, 1, compute);
      std::string e = BinaryExpr(instr, prim, compute, a, b);
      return compute == rd ? Normalize(rd, e) : Cast(compute, rd, Normalize(compute, e));
    }
    Fail(instr, fmt::format("the CUDA backend cannot run `{}` yet", array::PrimName(prim)),
         "run this kernel on the emulated TPU (without `--backend cuda`)");
  });
}

void Emitter::EmitReduce(const Instr& instr) {
  Prim prim = kernel::PrimOf(instr.op);
  if (prim == Prim::kCumsum || prim == Prim::kSort || prim == Prim::kArgsort) {
    Fail(instr, fmt::format("the CUDA backend cannot run `{}` yet", array::PrimName(prim)),
         "run this kernel on the emulated TPU (without `--backend cuda`)");
  }
  ValueId in = instr.operands[0], out = instr.results[0];
  const Shape& shape = TypeOf(in).shape;
  DType id = TypeOf(in).dtype, od = TypeOf(out).dtype;
  std::vector<bool> reduced(shape.size(), true);
  bool arg = prim == Prim::kArgmax || prim == Prim::kArgmin;
  if (arg) {
    const auto& attrs = std::get<array::ReduceAttrs>(instr.prim.attrs);
    if (attrs.axes && attrs.axes->size() == 1) {
      int axis = (*attrs.axes)[0];
      if (axis < 0) axis += static_cast<int>(shape.size());
      reduced.assign(shape.size(), false);
      reduced[static_cast<size_t>(axis)] = true;
    }
  } else {
    const auto& attrs = std::get<array::ReduceAttrs>(instr.prim.attrs);
    if (attrs.axes) {
      reduced.assign(shape.size(), false);
      for (int axis : *attrs.axes) {
        if (axis < 0) axis += static_cast<int>(shape.size());
        reduced[static_cast<size_t>(axis)] = true;
      }
    }
  }
  Shape kept_shape, red_shape;
  std::vector<int64_t> kept_strides, red_strides;
  Shape strides = Strides(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    (reduced[d] ? red_shape : kept_shape).push_back(shape[d]);
    (reduced[d] ? red_strides : kept_strides).push_back(strides[d]);
  }
  bool f = IsFloat(id);
  std::string acc_type, init, combine;
  std::string x = "pz_x";
  switch (prim) {
    case Prim::kReduceSum:
      acc_type = IsFloat(od) ? "float" : "long long";
      init = "0";
      combine = IsFloat(od)
                    ? "pz_acc += " + Cast(id, od, x) + ";"
                    : "pz_acc = (long long)((unsigned long long)pz_acc + (unsigned long long)(" +
                          Cast(id, od, x) + "));";
      break;
    case Prim::kReduceProd:
      acc_type = IsFloat(od) ? "float" : "long long";
      init = "1";
      combine = IsFloat(od)
                    ? "pz_acc *= " + Cast(id, od, x) + ";"
                    : "pz_acc = (long long)((unsigned long long)pz_acc * (unsigned long long)(" +
                          Cast(id, od, x) + "));";
      break;
    case Prim::kReduceMax:
    case Prim::kReduceMin: {
      bool max = prim == Prim::kReduceMax;
      acc_type = RegType(id);
      if (f) {
        init = max ? "-INFINITY" : "INFINITY";
        init = FloatLit(max ? -std::numeric_limits<float>::infinity()
                            : std::numeric_limits<float>::infinity());
        combine = fmt::format("pz_acc = {}(pz_acc, {});", max ? "pz_fmax" : "pz_fmin", x);
      } else {
        init = id == DType::kBool ? (max ? "false" : "true") : IntLit(max ? MinOf(id) : MaxOf(id));
        combine = fmt::format("if ({} {} pz_acc) pz_acc = {};", x, max ? ">" : "<", x);
      }
      break;
    }
    case Prim::kReduceOr:
      acc_type = "bool";
      init = "false";
      combine = "pz_acc = pz_acc || (" + x + ");";
      break;
    case Prim::kReduceAnd:
      acc_type = "bool";
      init = "true";
      combine = "pz_acc = pz_acc && (" + x + ");";
      break;
    case Prim::kArgmax:
    case Prim::kArgmin: {
      bool max = prim == Prim::kArgmax;
      acc_type = "long long";
      init = "0";
      // The first maximum; a NaN wins at once (numpy).
      std::string best_init = f ? FloatLit(max ? -std::numeric_limits<float>::infinity()
                                               : std::numeric_limits<float>::infinity())
                                : IntLit(max ? MinOf(id) : MaxOf(id));
      if (id == DType::kBool) best_init = max ? "false" : "true";
      combine = fmt::format(
          "if (!pz_nan) {{ if ({}) {{ pz_acc = pz_r; pz_nan = true; }} else if (pz_r == 0 || {} {} "
          "pz_best) {{ pz_best = {}; pz_acc = pz_r; }} }}",
          f ? "isnan(" + x + ")" : "false", x, max ? ">" : "<", x);
      combine = "{ " + combine + " }";
      init =
          "0; " + RegType(id) + " pz_best = " + best_init + "; bool pz_nan = false; (void)pz_nan";
      break;
    }
    default:
      Fail(instr, fmt::format("the CUDA backend cannot run `{}` yet", array::PrimName(prim)));
  }
  ForEachElement(out, [&](Writer& w) -> std::string {
    std::vector<std::string> kc;
    if (!TypeOf(out).shape.empty())
      kc = Unravel(w, kept_shape, "pz_i", "k");
    else
      kc.assign(kept_shape.size(), "0");
    w.Line(fmt::format("const long long pz_base = {};", Affine("", kc, kept_strides)));
    w.Line(fmt::format("{} pz_acc = {};", acc_type, init));
    w.Open(fmt::format("for (long long pz_r = 0; pz_r < {}; ++pz_r) {{", Count(red_shape)));
    std::vector<std::string> rc = Unravel(w, red_shape, "pz_r", "r");
    w.Line(fmt::format(
        "const {} pz_x = {};", RegType(id),
        LoadExpr(id, fmt::format("{}[pz_base + {}]", Name(in), Affine("", rc, red_strides)))));
    w.Line(combine);
    w.Close();
    if (arg) return Cast(DType::kInt32, od, "(int)pz_acc");
    if (acc_type == "long long") return Normalize(od, "pz_acc");
    return Cast(acc_type == "bool" ? DType::kBool : (IsFloat(od) ? DType::kFloat32 : id), od,
                "pz_acc");
  });
}

void Emitter::EmitDot(const Instr& instr) {
  const auto& attrs = std::get<array::DotAttrs>(instr.prim.attrs);
  const array::DotDimensionNumbers& dims = attrs.dims;
  ValueId lhs = instr.operands[0], rhs = instr.operands[1], out = instr.results[0];
  const Shape& ls = TypeOf(lhs).shape;
  const Shape& rs = TypeOf(rhs).shape;
  Shape lst = Strides(ls), rst = Strides(rs);
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

void Emitter::EmitConstant(const Instr& instr) {
  const array::Array& c = *instr.constant;
  ValueId out = instr.results[0];
  DType d = TypeOf(out).dtype;
  array::Array values = c.AsType(d).Contiguous();
  auto element = [&](int64_t i) { return values.GetDouble(i); };
  if (IsScalar(out)) {
    w_.Line(fmt::format("{} = {};", Name(out), Literal(d, element(0))));
    return;
  }
  int64_t n = values.size();
  bool uniform = true;
  for (int64_t i = 1; i < n && uniform; ++i) {
    uniform = std::memcmp(reinterpret_cast<const char*>(values.raw()) + i * array::ItemSize(d),
                          reinterpret_cast<const char*>(values.raw()), array::ItemSize(d)) == 0;
  }
  if (uniform) {
    ForEachElement(out, [&](Writer&) { return Literal(d, element(0)); });
    return;
  }
  if (n > (int64_t{1} << 20))
    Fail(instr, "a constant array of more than 2^20 elements in a kernel");
  std::string table = fmt::format("pz_{}_c{}", req_.name, out);
  std::string text = fmt::format("__device__ const {} {}[{}] = {{", StorageType(d), table, n);
  for (int64_t i = 0; i < n; ++i) {
    if (i % 8 == 0) text += "\n  ";
    std::string lit;
    if (d == DType::kFloat32) {
      lit = FloatLit(static_cast<float>(element(i)));
    } else if (d == DType::kBFloat16 || d == DType::kFloat16) {
      uint16_t bits;
      std::memcpy(&bits, reinterpret_cast<const char*>(values.raw()) + i * 2, 2);
      lit = fmt::format("0x{:04x}", bits);
    } else {
      lit = IntLit(static_cast<int64_t>(element(i)));
    }
    text += lit + ",";
  }
  tables_.Line(text + "\n};");
  w_.Line(fmt::format(
      "for (long long pz_i = threadIdx.x; pz_i < {}; pz_i += blockDim.x) {}[pz_i] = ({}){}[pz_i];",
      n, Name(out), StorageType(d), table));
  Sync();
}

// out[i] = in[map[i]]: the map is what the primitive computes from an iota of the input's
// shape, emitted as an affine function of the output coordinates when it is one, else a table.
void Emitter::EmitGatherMap(ValueId out, ValueId in, const array::Array& map) {
  const Shape& shape = TypeOf(out).shape;
  array::Array m = map.AsType(DType::kInt32).Contiguous();
  const auto* idx = reinterpret_cast<const int32_t*>(m.raw());
  int64_t n = m.size();
  if (IsScalar(out)) {
    w_.Line(fmt::format("{} = {};", Name(out),
                        IsScalar(in) ? Name(in) : Elem(in, std::to_string(idx[0]))));
    return;
  }
  if (IsScalar(in)) {
    ForEachElement(out, [&](Writer&) { return Name(in); });
    return;
  }
  // Fit base + Σ c_d * s_d.
  Shape strides = Strides(shape);
  std::vector<int64_t> fit(shape.size(), 0);
  int64_t base = n ? idx[0] : 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] > 1) fit[d] = idx[strides[d]] - base;
  }
  bool affine = true;
  for (int64_t i = 0; i < n && affine; ++i) {
    int64_t expect = base, r = i;
    for (size_t d = shape.size(); d-- > 0;) {
      expect += (r % shape[d]) * fit[d];
      r /= shape[d];
    }
    affine = expect == idx[i];
  }
  DType d = TypeOf(out).dtype;
  if (affine) {
    ForEachElement(out, [&](Writer& w) {
      std::vector<std::string> c = Unravel(w, shape, "pz_i", "c");
      return Elem(in, Affine(std::to_string(base), c, fit));
    });
    return;
  }
  std::string table = fmt::format("pz_{}_m{}", req_.name, out);
  std::string text = fmt::format("__device__ const int {}[{}] = {{", table, n);
  for (int64_t i = 0; i < n; ++i) {
    if (i % 16 == 0) text += "\n  ";
    text += std::to_string(idx[i]) + ",";
  }
  tables_.Line(text + "\n};");
  (void)d;
  ForEachElement(out, [&](Writer&) { return Elem(in, table + "[pz_i]"); });
}

void Emitter::EmitMove(const Instr& instr) {
  Prim prim = kernel::PrimOf(instr.op);
  ValueId out = instr.results.empty() ? kernel::kNoValue : instr.results[0];
  switch (prim) {
    case Prim::kIota: {
      const auto& attrs = std::get<array::IotaAttrs>(instr.prim.attrs);
      DType d = TypeOf(out).dtype;
      ForEachElement(out, [&](Writer& w) {
        std::vector<std::string> c = Unravel(w, attrs.shape, "pz_i", "c");
        return Cast(DType::kInt32, d, "(int)" + c[static_cast<size_t>(attrs.dimension)]);
      });
      return;
    }
    case Prim::kConcatenate: {
      int axis = std::get<array::ConcatAttrs>(instr.prim.attrs).axis;
      const Shape& shape = TypeOf(out).shape;
      if (axis < 0) axis += static_cast<int>(shape.size());
      Shape out_strides = Strides(shape);
      int64_t at = 0;
      DType d = TypeOf(out).dtype;
      for (ValueId part : instr.operands) {
        const Shape& ps = TypeOf(part).shape;
        w_.Open(fmt::format("for (long long pz_i = threadIdx.x; pz_i < {}; pz_i += blockDim.x) {{",
                            Count(ps)));
        std::vector<std::string> c = Unravel(w_, ps, "pz_i", "c");
        std::vector<int64_t> st(out_strides.begin(), out_strides.end());
        w_.Line(
            fmt::format("{}[{}] = {};", Name(out),
                        Affine(std::to_string(at * out_strides[static_cast<size_t>(axis)]), c, st),
                        StoreExpr(d, Cast(TypeOf(part).dtype, d, Elem(part, "pz_i")))));
        w_.Close();
        at += ps[static_cast<size_t>(axis)];
      }
      Sync();
      return;
    }
    case Prim::kPad: {
      const auto& attrs = std::get<array::PadAttrs>(instr.prim.attrs);
      ValueId in = instr.operands[0];
      const Shape& shape = TypeOf(out).shape;
      const Shape& is = TypeOf(in).shape;
      Shape ist = Strides(is);
      DType d = TypeOf(out).dtype;
      ForEachElement(out, [&](Writer& w) {
        std::vector<std::string> c = Unravel(w, shape, "pz_i", "c");
        std::string inside = "true", offset = "0";
        for (size_t k = 0; k < shape.size(); ++k) {
          std::string src = fmt::format("({} - {})", c[k], attrs.widths[k].first);
          inside += fmt::format(" && {} >= 0 && {} < {}", src, src, is[k]);
          offset += fmt::format(" + {} * {}", src, ist[k]);
        }
        return fmt::format("({}) ? {} : {}", inside, Cast(TypeOf(in).dtype, d, Elem(in, offset)),
                           Literal(d, attrs.value));
      });
      return;
    }
    case Prim::kDynamicSlice: {
      ValueId in = instr.operands[0];
      const Shape& is = TypeOf(in).shape;
      const Shape& shape = TypeOf(out).shape;
      Shape ist = Strides(is);
      std::string base = "0";
      for (size_t k = 0; k < is.size(); ++k) {
        base += fmt::format(" + pz_clampll((long long){}, 0, {}) * {}", Name(instr.operands[k + 1]),
                            is[k] - shape[k], ist[k]);
      }
      ForEachElement(out, [&](Writer& w) {
        std::vector<std::string> c = Unravel(w, shape, "pz_i", "c");
        return Elem(in, Affine("(" + base + ")", c, ist));
      });
      return;
    }
    case Prim::kSplit: {
      const auto& attrs = std::get<array::SplitAttrs>(instr.prim.attrs);
      ValueId in = instr.operands[0];
      const Shape& is = TypeOf(in).shape;
      int axis = attrs.axis < 0 ? attrs.axis + static_cast<int>(is.size()) : attrs.axis;
      Shape ist = Strides(is);
      int64_t at = 0;
      for (ValueId part : instr.results) {
        const Shape& ps = TypeOf(part).shape;
        ForEachElement(part, [&](Writer& w) {
          std::vector<std::string> c = Unravel(w, ps, "pz_i", "c");
          return Elem(in, Affine(std::to_string(at * ist[static_cast<size_t>(axis)]), c, ist));
        });
        at += ps[static_cast<size_t>(axis)];
      }
      return;
    }
    case Prim::kGather:
    case Prim::kScatter:
    case Prim::kRandomShuffle:
      Fail(instr, fmt::format("the CUDA backend cannot run `{}` yet", array::PrimName(prim)),
           "run this kernel on the emulated TPU (without `--backend cuda`)");
    default:
      break;
  }
  // The other moves permute, repeat or drop elements: learn which from an iota.
  ValueId in = instr.operands.at(0);
  int64_t n = Count(TypeOf(in).shape);
  if (n >= (int64_t{1} << 24))
    Fail(instr, "an operand of more than 2^24 elements on the CUDA backend");
  array::Array iota =
      array::Arange({0, DType::kInt32}, array::ScalarArg{static_cast<double>(n), DType::kInt32},
                    std::nullopt, DType::kInt32);
  if (!TypeOf(in).shape.empty())
    iota = array::Reshape(iota, TypeOf(in).shape);
  else
    iota = array::Array::Scalar(DType::kInt32, 0);
  std::vector<array::Array> results = array::RunPrim(instr.prim, {iota});
  EmitGatherMap(out, in, results.at(0));
}

}  // namespace

EmittedKernel EmitKernel(const EmitRequest& request) { return Emitter(request).Run(); }

std::string AssembleUnit(const std::vector<const EmittedKernel*>& kernels) {
  std::string unit(Prelude());
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

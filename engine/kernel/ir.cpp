// Names, printing and verification of the kernel IR.
#include "kernel/ir.h"

#include <fmt/format.h>

#include <iterator>
#include <unordered_set>

#include "array/elementwise.h"

namespace pz::kernel {

std::string_view OpName(Op op) {
  switch (op) {
#define PZ_OP(name, doc) \
  case Op::k##name:      \
    return #name;
#include "kernel/ops.def"
#undef PZ_OP
  }
  return "?";
}

namespace {

std::string_view ShortDType(array::DType dtype) {
  switch (dtype) {
    case array::DType::kBool:
      return "bool";
    case array::DType::kInt8:
      return "i8";
    case array::DType::kInt16:
      return "i16";
    case array::DType::kInt32:
      return "i32";
    case array::DType::kUInt8:
      return "u8";
    case array::DType::kUInt16:
      return "u16";
    case array::DType::kUInt32:
      return "u32";
    case array::DType::kFloat16:
      return "f16";
    case array::DType::kBFloat16:
      return "bf16";
    case array::DType::kFloat32:
      return "f32";
  }
  return "?";
}

constexpr const char* kBinaryNames[] = {
    "add", "sub", "mul", "div", "floor_divide", "remainder",   "pow",  "max",
    "min", "and", "or",  "xor", "shift_left",   "shift_right", "eq",   "ne",
    "lt",  "le",  "gt",  "ge",  "logical_and",  "logical_or",  "atan2"};
constexpr const char* kUnaryNames[] = {
    "neg",   "pos",   "abs",   "invert", "not",   "exp",   "exp2",     "log",    "log1p",
    "expm1", "sqrt",  "rsqrt", "tanh",   "sin",   "cos",   "tan",      "erf",    "sigmoid",
    "sign",  "floor", "ceil",  "round",  "isnan", "isinf", "isfinite", "square", "reciprocal"};

static_assert(std::size(kBinaryNames) == static_cast<size_t>(array::BinaryOp::kAtan2) + 1);
static_assert(std::size(kUnaryNames) == static_cast<size_t>(array::UnaryOp::kReciprocal) + 1);

template <size_t N>
const char* NameOf(const char* const (&names)[N], int64_t index) {
  return index >= 0 && static_cast<size_t>(index) < N ? names[index] : "?";
}

}  // namespace

std::string TypeToString(const ValueType& type) {
  std::string dims;
  for (size_t i = 0; i < type.shape.size(); ++i) {
    dims += (i ? "," : "") + std::to_string(type.shape[i]);
  }
  return fmt::format("{}[{}]{}", ShortDType(type.dtype), dims, type.weak ? "~" : "");
}

std::string_view MemorySpaceName(MemorySpace space) {
  switch (space) {
    case MemorySpace::kVmem:
      return "VMEM";
    case MemorySpace::kSmem:
      return "SMEM";
    case MemorySpace::kAny:
      return "ANY";
    case MemorySpace::kSemaphore:
      return "SEMAPHORE";
  }
  return "?";
}

std::string_view SemaphoreKindName(SemaphoreKind kind) {
  switch (kind) {
    case SemaphoreKind::kRegular:
      return "REGULAR";
    case SemaphoreKind::kDma:
      return "DMA";
    case SemaphoreKind::kBarrier:
      return "BARRIER";
  }
  return "?";
}

std::vector<const RefPath*> RefPathsOf(const Instr& instr) {
  std::vector<const RefPath*> paths;
  if (instr.ref.ref >= 0) paths.push_back(&instr.ref);
  for (const RefPath& path : instr.copy) paths.push_back(&path);
  return paths;
}

std::vector<ValueId> DynamicOperands(const RefPath& path) {
  std::vector<ValueId> ids;
  for (const Indexer& indexer : path.indexers) {
    for (const DimIndex& dim : indexer) {
      if (dim.dynamic_start != kNoValue) ids.push_back(dim.dynamic_start);
    }
  }
  return ids;
}

array::Shape IndexedShape(array::Shape shape, const std::vector<Indexer>& indexers) {
  for (const Indexer& indexer : indexers) {
    array::Shape next;
    for (const DimIndex& dim : indexer) {
      if (!dim.is_int) next.push_back(dim.size);
    }
    shape = std::move(next);
  }
  return shape;
}

namespace {

class Verifier {
 public:
  explicit Verifier(const Function& f) : f_(f) {}

  std::optional<std::string> Run() {
    std::vector<ValueId> scope;
    VerifyRegion(f_.body, scope);
    return error_;
  }

 private:
  bool Fail(std::string message) {
    if (!error_) error_ = std::move(message);
    return false;
  }
  bool Known(ValueId id) const { return id >= 0 && static_cast<size_t>(id) < f_.values.size(); }
  bool Check(ValueId id, const char* what, const Instr* instr) {
    if (!Known(id)) return Fail(fmt::format("{}: {} %{} has no type", Where(instr), what, id));
    if (!defined_.count(id)) {
      return Fail(fmt::format("{}: {} %{} used before its definition or outside its region",
                              Where(instr), what, id));
    }
    return true;
  }
  static std::string Where(const Instr* instr) {
    return instr ? std::string(OpName(instr->op)) : std::string("region");
  }
  void Define(ValueId id, std::vector<ValueId>& scope, const Instr* instr) {
    if (!Known(id)) {
      Fail(fmt::format("{}: result %{} has no type", Where(instr), id));
      return;
    }
    if (ever_defined_.count(id)) Fail(fmt::format("{}: %{} defined twice", Where(instr), id));
    ever_defined_.insert(id);
    defined_.insert(id);
    scope.push_back(id);
  }

  void VerifyRegion(const Region& region, std::vector<ValueId>& outer) {
    std::vector<ValueId> scope;
    for (ValueId id : region.params) Define(id, scope, nullptr);
    for (const Instr& instr : region.body) VerifyInstr(instr, scope);
    for (ValueId id : region.yields) Check(id, "yield", nullptr);
    for (ValueId id : scope) defined_.erase(id);
  }

  void VerifyInstr(const Instr& instr, std::vector<ValueId>& scope) {
    for (ValueId id : instr.operands) Check(id, "operand", &instr);
    bool needs_ref = instr.op == Op::kLoad || instr.op == Op::kStore || instr.op == Op::kDmaStart ||
                     instr.op == Op::kDmaWait || instr.op == Op::kSemaphoreSignal ||
                     instr.op == Op::kSemaphoreWait || instr.op == Op::kSemaphoreRead;
    if (needs_ref && instr.ref.ref < 0) Fail(fmt::format("{}: no ref", OpName(instr.op)));
    if ((instr.op == Op::kDmaStart || instr.op == Op::kDmaWait) && instr.copy.size() != 2) {
      Fail(fmt::format("{}: needs a source and a destination", OpName(instr.op)));
    }
    for (const RefPath* path : RefPathsOf(instr)) {
      if (static_cast<size_t>(path->ref) >= f_.refs.size()) {
        Fail(fmt::format("{}: unknown ref {}", OpName(instr.op), path->ref));
      }
      for (ValueId id : DynamicOperands(*path)) Check(id, "index", &instr);
    }
    if (instr.op == Op::kRunScoped) {
      for (int64_t ref : instr.attrs) {
        if (ref < 0 || static_cast<size_t>(ref) >= f_.refs.size()) {
          Fail(fmt::format("RunScoped: unknown ref {}", ref));
        }
      }
    }
    if (instr.op == Op::kConstant && !instr.constant) Fail("Constant without a value");
    if ((instr.op == Op::kApply) && !instr.apply) Fail("Apply without a function");
    for (const Region& region : instr.regions) {
      VerifyRegion(region, scope);
      if (instr.op == Op::kCond || instr.op == Op::kSwitch || instr.op == Op::kRunScoped) {
        if (region.yields.size() != instr.results.size()) {
          Fail(fmt::format("{}: a branch yields {} values for {} results", OpName(instr.op),
                           region.yields.size(), instr.results.size()));
        }
      }
    }
    for (ValueId id : instr.results) Define(id, scope, &instr);
  }

  const Function& f_;
  std::unordered_set<ValueId> defined_;
  std::unordered_set<ValueId> ever_defined_;
  std::optional<std::string> error_;
};

class Printer {
 public:
  Printer(const Function& f, const std::function<std::string(SourceSpan)>& line_of)
      : f_(f), line_of_(line_of) {}

  std::string Run() {
    out_ += fmt::format("kernel {}(", f_.name);
    for (size_t i = 0; i < f_.refs.size(); ++i) {
      const RefType& ref = f_.refs[i];
      out_ += fmt::format("{}\n    #{} {}: {} {}", i ? "," : "", i, ref.name,
                          ref.space == MemorySpace::kSemaphore ? SemaphoreKindName(ref.semaphore)
                                                               : MemorySpaceName(ref.space),
                          TypeToString({.shape = ref.shape, .dtype = ref.dtype}));
      if (ref.role == RefRole::kScoped) out_ += " scoped";
    }
    out_ += ")";
    if (!f_.body.params.empty()) out_ += " params " + Values(f_.body.params);
    out_ += " {\n";
    PrintBody(f_.body, 1);
    out_ += "}\n";
    return out_;
  }

 private:
  std::string Value(ValueId id) const { return "%" + std::to_string(id); }
  std::string Values(const std::vector<ValueId>& ids) const {
    std::string s;
    for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", " : "") + Value(ids[i]);
    return s;
  }
  std::string Path(const RefPath& path) const {
    std::string s = "#" + std::to_string(path.ref);
    for (const Indexer& indexer : path.indexers) {
      s += "[";
      for (size_t d = 0; d < indexer.size(); ++d) {
        const DimIndex& dim = indexer[d];
        std::string start = dim.dynamic_start != kNoValue
                                ? Value(dim.dynamic_start) +
                                      (dim.start ? fmt::format("+{}", dim.start) : std::string())
                                : std::to_string(dim.start);
        s += d ? ", " : "";
        if (dim.is_int) {
          s += start;
        } else {
          s += fmt::format("{}:+{}", start, dim.size);
          if (dim.stride != 1) s += fmt::format(":{}", dim.stride);
        }
      }
      s += "]";
    }
    return s;
  }

  void PrintBody(const Region& region, int depth) {
    for (const Instr& instr : region.body) PrintInstr(instr, depth);
    if (!region.yields.empty()) {
      out_ += std::string(depth * 2, ' ') + "yield " + Values(region.yields) + "\n";
    }
  }

  void PrintInstr(const Instr& instr, int depth) {
    std::string indent(depth * 2, ' ');
    std::string line = indent;
    if (!instr.results.empty()) {
      std::vector<std::string> typed;
      for (ValueId id : instr.results) {
        line += (typed.empty() ? "" : ", ") + Value(id);
        typed.push_back(TypeToString(f_.values[id]));
      }
      line += " = ";
    }
    line += OpName(instr.op);
    switch (instr.op) {
      case Op::kConstant:
        if (instr.constant->size() == 1) {
          line += fmt::format(" {}", instr.constant->GetDouble(0));
        } else {
          line += " <array>";
        }
        break;
      case Op::kProgramId:
        line += fmt::format(" axis={}", instr.attrs[0]);
        break;
      case Op::kUnary:
        line += fmt::format(" {}", NameOf(kUnaryNames, instr.attrs[0]));
        break;
      case Op::kBinary:
        line += fmt::format(" {}", NameOf(kBinaryNames, instr.attrs[0]));
        break;
      case Op::kCast:
        line += fmt::format(" {}", array::DTypeName(static_cast<array::DType>(instr.attrs[0])));
        break;
      case Op::kApply:
        line += " " + instr.text;
        break;
      case Op::kLoad:
      case Op::kStore:
        line += " " + Path(instr.ref);
        break;
      case Op::kDebugPrint:
        line += fmt::format(" \"{}\"", instr.text);
        break;
      case Op::kDmaStart:
      case Op::kDmaWait:
        line += fmt::format(" {} -> {} sem {}", Path(instr.copy[0]), Path(instr.copy[1]),
                            Path(instr.ref));
        if (instr.op == Op::kDmaWait) line += fmt::format(" bytes={}", instr.attrs[0]);
        if (instr.op == Op::kDmaStart && instr.attrs[0]) line += " add";
        break;
      case Op::kSemaphoreSignal:
      case Op::kSemaphoreRead:
        line += " " + Path(instr.ref);
        break;
      case Op::kSemaphoreWait:
        line += " " + Path(instr.ref) + (instr.attrs[0] ? "" : " no-decrement");
        break;
      case Op::kRunScoped:
        for (int64_t ref : instr.attrs) line += fmt::format(" #{}", ref);
        break;
      default:
        break;
    }
    if (!instr.operands.empty()) line += " (" + Values(instr.operands) + ")";
    if (!instr.results.empty()) {
      line += " :";
      for (ValueId id : instr.results) line += " " + TypeToString(f_.values[id]);
    }
    if (line_of_ && instr.span.valid()) line += "  # " + line_of_(instr.span);
    out_ += line + "\n";
    for (size_t r = 0; r < instr.regions.size(); ++r) {
      const Region& region = instr.regions[r];
      out_ += indent + fmt::format("  region {}", r);
      if (!region.params.empty()) out_ += " (" + Values(region.params) + ")";
      out_ += ":\n";
      PrintBody(region, depth + 2);
    }
  }

  const Function& f_;
  const std::function<std::string(SourceSpan)>& line_of_;
  std::string out_;
};

}  // namespace

std::optional<std::string> Verify(const Function& function) { return Verifier(function).Run(); }

std::string Print(const Function& function, const std::function<std::string(SourceSpan)>& line_of) {
  return Printer(function, line_of).Run();
}

}  // namespace pz::kernel

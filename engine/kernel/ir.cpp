// Names, printing and verification of the kernel IR.
#include "kernel/ir.h"

#include <fmt/format.h>

#include <cstdlib>
#include <iterator>
#include <unordered_set>

#include "array/elementwise.h"
#include "array/linalg.h"
#include "array/shape_ops.h"

namespace pz::kernel {

std::string_view OpName(Op op) {
  if (IsPrim(op)) return array::PrimName(PrimOf(op));
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
    case array::DType::kInt4:
      return "i4";
    case array::DType::kUInt4:
      return "u4";
  }
  return "?";
}

// Stand-ins of the operand types for running a primitive to learn its result types: a scalar
// broadcast to the shape (no storage of that size).
array::Array StandIn(const ValueType& type) {
  array::Array one = array::Array::Scalar(type.dtype, 1);
  array::Array a = type.shape.empty() ? one : array::BroadcastTo(one, type.shape);
  a.set_weak_type(type.weak);
  return a;
}

// Operands above this many elements are not run for type checking (the products' types are
// computed directly instead).
constexpr int64_t kMaxCheckedElements = int64_t{1} << 20;

}  // namespace

std::optional<std::vector<ValueType>> InferPrimTypes(const array::PrimCall& call,
                                                     const std::vector<ValueType>& operands) {
  if (call.prim == array::Prim::kDotGeneral) {  // planned, not run: products can be large
    const auto& attrs = std::get<array::DotAttrs>(call.attrs);
    array::DotPlan plan =
        array::PlanDotGeneral(operands.at(0).shape, operands.at(0).dtype, operands.at(1).shape,
                              operands.at(1).dtype, attrs.dims, attrs.preferred_element_type);
    return std::vector<ValueType>{{.shape = plan.shape, .dtype = plan.dtype}};
  }
  std::vector<array::Array> inputs;
  for (const ValueType& type : operands) {
    if (array::NumElements(type.shape) > kMaxCheckedElements) return std::nullopt;
    inputs.push_back(StandIn(type));
  }
  std::vector<ValueType> types;
  for (const array::Array& a : array::RunPrim(call, inputs)) {
    types.push_back({.shape = a.shape(), .dtype = a.dtype(), .weak = a.weak_type()});
  }
  return types;
}

Cost PrimCostOf(const array::PrimCall& call, const std::vector<ValueType>& operands,
                const std::vector<ValueType>& results) {
  Cost cost;
  auto bytes = [](const ValueType& t) {
    return array::NumElements(t.shape) * static_cast<int64_t>(array::ItemSize(t.dtype));
  };
  for (const ValueType& t : operands) cost.bytes += bytes(t);
  for (const ValueType& t : results) cost.bytes += bytes(t);
  int64_t out = results.empty() ? 0 : array::NumElements(results[0].shape);
  switch (array::PrimCostKind(call.prim)) {
    case array::PrimCost::kElementwise:
      cost.flops = out;
      break;
    case array::PrimCost::kTranscendental:
      cost.flops = out;
      cost.transcendentals = out;
      break;
    case array::PrimCost::kReduction:
      cost.flops = operands.empty() ? 0 : array::NumElements(operands[0].shape);
      break;
    case array::PrimCost::kDot: {
      // 2 x batch x M x N x K = 2 x (result elements) x (contracted elements).
      int64_t k = 1;
      const auto& dims = std::get<array::DotAttrs>(call.attrs).dims;
      const array::Shape& lhs = operands.at(0).shape;
      for (int axis : dims.lhs_contracting) {
        k *= lhs.at(static_cast<size_t>(axis < 0 ? axis + static_cast<int>(lhs.size()) : axis));
      }
      cost.flops = 2 * out * k;
      cost.mxu_flops = cost.flops;
      break;
    }
    case array::PrimCost::kMove:
      break;
  }
  return cost;
}

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
  if (instr.send_sem.ref >= 0) paths.push_back(&instr.send_sem);
  return paths;
}

const Instr* FirstWriteTo(const Region& region, RefId ref) {
  for (const Instr& instr : region.body) {
    if (instr.op == Op::kStore && instr.ref.ref == ref) return &instr;
    if (instr.op == Op::kDmaStart && instr.copy.size() == 2 && instr.copy[1].ref == ref) {
      return &instr;
    }
    for (const Region& inner : instr.regions) {
      if (const Instr* found = FirstWriteTo(inner, ref)) return found;
    }
  }
  return nullptr;
}

const Instr* FirstOfOp(const Region& region, Op op) {
  for (const Instr& instr : region.body) {
    if (instr.op == op) return &instr;
    for (const Region& inner : instr.regions) {
      if (const Instr* found = FirstOfOp(inner, op)) return found;
    }
  }
  return nullptr;
}

const Instr* FirstReadOf(const Region& region, RefId ref) {
  for (const Instr& instr : region.body) {
    if (instr.op == Op::kLoad && instr.ref.ref == ref) return &instr;
    if (instr.op == Op::kDmaStart && !instr.copy.empty() && instr.copy[0].ref == ref) {
      return &instr;
    }
    for (const Region& inner : instr.regions) {
      if (const Instr* found = FirstReadOf(inner, ref)) return found;
    }
  }
  return nullptr;
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

bool CoversDimension(const DimIndex& index, int64_t size) {
  if (index.dynamic_start != kNoValue || index.start != 0) return false;
  return index.is_int ? size == 1 : index.size == size && (index.stride == 1 || size <= 1);
}

bool CoversRef(const Function& function, const RefPath& path) {
  if (path.indexers.empty()) return true;
  if (path.indexers.size() != 1) return false;
  const array::Shape& shape = function.refs.at(static_cast<size_t>(path.ref)).shape;
  const Indexer& index = path.indexers[0];
  if (index.size() != shape.size()) return false;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!CoversDimension(index[d], shape[d])) return false;
  }
  return true;
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
  Verifier(const Function& f, VerifyDepth depth) : f_(f), depth_(depth) {}

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
    if (IsPrim(instr.op)) VerifyPrim(instr);
    if (instr.op == Op::kRunScoped) {
      for (RefId ref : instr.scoped) {
        if (ref < 0 || static_cast<size_t>(ref) >= f_.refs.size()) {
          Fail(fmt::format("RunScoped: unknown ref {}", ref));
        }
      }
    }
    if (instr.op == Op::kConstant && !instr.constant) Fail("Constant without a value");
    if (instr.op == Op::kDebugPrint && !instr.callback) Fail("DebugPrint without a callback");
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

  // The primitive's operand and result types against what the primitive makes of them.
  void VerifyPrim(const Instr& instr) {
    if (instr.prim.prim != PrimOf(instr.op)) {
      Fail(fmt::format("{}: carries the attributes of {}", OpName(instr.op),
                       array::PrimName(instr.prim.prim)));
      return;
    }
    std::vector<ValueType> operands;
    for (ValueId id : instr.operands) {
      if (!Known(id)) return;
      operands.push_back(f_.values[id]);
    }
    std::optional<std::vector<ValueType>> expected;
    try {
      if (depth_ == VerifyDepth::kTypes) expected = InferPrimTypes(instr.prim, operands);
    } catch (const array::ArrayError& error) {
      Fail(fmt::format("{}: rejects its operands: {}", OpName(instr.op), error.message));
      return;
    } catch (const std::bad_variant_access&) {
      Fail(fmt::format("{}: attributes of the wrong kind", OpName(instr.op)));
      return;
    } catch (const std::out_of_range&) {
      Fail(fmt::format("{}: too few operands ({})", OpName(instr.op), operands.size()));
      return;
    }
    std::vector<ValueType> results;
    for (ValueId id : instr.results) {
      if (!Known(id)) return;
      results.push_back(f_.values[id]);
    }
    Cost cost = PrimCostOf(instr.prim, operands, results);
    if (cost.flops != instr.cost.flops || cost.transcendentals != instr.cost.transcendentals ||
        cost.bytes != instr.cost.bytes) {
      Fail(
          fmt::format("{}: carries a cost of {} flops, {} transcendentals, {} bytes; its types "
                      "give {}, {}, {}",
                      OpName(instr.op), instr.cost.flops, instr.cost.transcendentals,
                      instr.cost.bytes, cost.flops, cost.transcendentals, cost.bytes));
      return;
    }
    if (!expected) return;
    if (expected->size() != instr.results.size()) {
      Fail(fmt::format("{}: {} results, the primitive gives {}", OpName(instr.op),
                       instr.results.size(), expected->size()));
      return;
    }
    for (size_t i = 0; i < expected->size(); ++i) {
      if (!Known(instr.results[i])) return;
      const ValueType& have = f_.values[instr.results[i]];
      const ValueType& want = (*expected)[i];
      if (have.shape != want.shape || have.dtype != want.dtype) {
        Fail(fmt::format("{}: result %{} is {}, the primitive gives {}", OpName(instr.op),
                         instr.results[i], TypeToString(have), TypeToString(want)));
      }
    }
  }

  const Function& f_;
  VerifyDepth depth_;
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
    if (IsPrim(instr.op)) {
      std::string attrs = array::AttrsToString(instr.prim);
      if (!attrs.empty()) line += " " + attrs;
    }
    switch (instr.op) {
      case Op::kConstant:
        if (instr.constant->size() == 1) {
          line += fmt::format(" {}", instr.constant->GetDouble(0));
        } else {
          line += " <array>";
        }
        break;
      case Op::kProgramId:
        line += fmt::format(" axis={}", instr.axis);
        break;
      case Op::kFor:
        if (instr.unroll != 1) line += fmt::format(" unroll={}", instr.unroll);
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
        if (instr.op == Op::kDmaWait) line += fmt::format(" bytes={}", instr.bytes);
        if (instr.op == Op::kDmaStart && instr.add) line += " add";
        if (instr.send_sem.ref >= 0) line += " send " + Path(instr.send_sem);
        if (instr.device_operands > 0) line += " remote";
        break;
      case Op::kSemaphoreSignal:
      case Op::kSemaphoreRead:
        line += " " + Path(instr.ref);
        if (instr.device_operands > 0) line += " remote";
        break;
      case Op::kSemaphoreWait:
        line += " " + Path(instr.ref) + (instr.decrement ? "" : " no-decrement");
        break;
      case Op::kRunScoped:
        for (RefId ref : instr.scoped) line += fmt::format(" #{}", ref);
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

std::optional<std::string> Verify(const Function& function, VerifyDepth depth) {
  return Verifier(function, depth).Run();
}

VerifyDepth TracedVerifyDepth() {
  static const VerifyDepth depth = [] {
    const char* value = std::getenv("PZ_CHECK_IR_TYPES");
    return value != nullptr && std::string_view(value) == "1" ? VerifyDepth::kTypes
                                                              : VerifyDepth::kStructure;
  }();
  return depth;
}

std::string Print(const Function& function, const std::function<std::string(SourceSpan)>& line_of) {
  return Printer(function, line_of).Run();
}

}  // namespace pz::kernel

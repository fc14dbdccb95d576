// Fuzz bytes to a Pallas program: the grid, the operands (shapes, dtypes, BlockSpecs and index
// maps, scalar prefetch, scratch), then the kernel body (kernel_body.cpp), then the host code
// that builds the inputs, calls pl.pallas_call and prints the results.
#include <fmt/format.h>

#include <algorithm>

#include "kernel_generator.h"

namespace pz::fuzz {

std::string KernelProgram::CommandLine(const std::string& file) const {
  std::string line = "pallas-puzzles run";
  if (flags.interpret) line += " --semantics interpret";
  if (flags.two_cores) line += " --cores 2";
  if (flags.lint) line += " --lint";
  if (flags.stats) line += " --stats";
  if (flags.eager_dma) line += " --dma eager";
  return line + " " + file;
}

std::string DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "jnp.float32";
    case DType::kBF16:
      return "jnp.bfloat16";
    case DType::kF16:
      return "jnp.float16";
    case DType::kI16:
      return "jnp.int16";
    case DType::kI8:
      return "jnp.int8";
    case DType::kU8:
      return "jnp.uint8";
    case DType::kU16:
      return "jnp.uint16";
    case DType::kU32:
      return "jnp.uint32";
    case DType::kI32:
      return "jnp.int32";
    case DType::kBool:
      return "jnp.bool_";
  }
  return "jnp.float32";
}

std::string ShapeText(const Shape& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

int64_t Elements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

bool IsFloat(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kBF16 || dtype == DType::kF16;
}

bool IsUnsigned(DType dtype) {
  return dtype == DType::kU8 || dtype == DType::kU16 || dtype == DType::kU32;
}

bool Is32Bit(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kI32 || dtype == DType::kU32;
}

// NumPy broadcasting of two shapes, or nullopt when they do not broadcast.
std::optional<Shape> Broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t k = 0; k < out.size(); ++k) {
    int64_t da = k < out.size() - a.size() ? 1 : a[k - (out.size() - a.size())];
    int64_t db = k < out.size() - b.size() ? 1 : b[k - (out.size() - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[k] = std::max(da, db);
  }
  return out;
}

std::string Cast(const std::string& expr, DType from, DType to) {
  return from == to ? expr : fmt::format("{}.astype({})", expr, DTypeName(to));
}

std::string Tuple(const std::vector<int>& items) {
  if (items.size() == 1) return fmt::format("({},)", items[0]);
  return fmt::format("({})", fmt::join(items, ", "));
}

int Generator::Pick(int n) { return n <= 1 ? 0 : in_.Pick(n); }

int SeededChoices::Pick(int n) {
  state_ += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<int>(z % static_cast<uint64_t>(n));
}

DType Generator::PickDType() {
  // float32 most often: it is what kernels compute in; the others exercise promotion and casts.
  // One pick in six is one of the rarer types (float16, 8- and 16-bit and unsigned integers).
  constexpr DType kChoices[] = {DType::kF32, DType::kF32,  DType::kF32,
                                DType::kI32, DType::kBF16, DType::kBool};
  constexpr DType kRarer[] = {DType::kF16, DType::kI8,  DType::kU8,
                              DType::kU32, DType::kI16, DType::kU16};
  if (Rare(6)) return kRarer[Pick(6)];
  return kChoices[Pick(6)];
}

int64_t Generator::PickDim(int64_t budget) {
  // Small extents mostly; 8, 16 and 128 meet the (8, 128) tiling rule the lint checks.
  constexpr int64_t kDims[] = {1, 2, 3, 4, 2, 4, 8, 16, 128};
  int64_t dim = kDims[Pick(9)];
  while (dim > 1 && dim > budget) dim = dim == 128 ? 16 : dim / 2;
  return std::max<int64_t>(dim, 1);
}

std::string Generator::GridName(int axis) const { return axis == 0 ? "i" : "j"; }

// One dimension of a blocked operand: its index-map expression, block entry and array extent.
void Generator::PlanBlockedDim(Operand& op, int dim, int64_t& budget, bool output) {
  int rank = static_cast<int>(grid_.size());
  std::string expr = "0";
  int64_t reach = 1;  // block positions the expression can take
  int axis = -1;
  if (output && !Rare(10)) {
    // Outputs depend on the leading grid axes only, so revisits are consecutive.
    if (dim < rank && dim < output_axes_) axis = dim;
  } else if (rank > 0) {
    int choice = Pick(prefetch_ ? 6 : 5);
    if (choice <= 1) axis = Pick(rank);
    if (choice == 2) {
      axis = Pick(rank);
      expr = fmt::format("{} - {}", grid_[axis] - 1, GridName(axis));
      reach = grid_[axis];
    }
    if (choice == 5) {
      expr = fmt::format("s[{}]", GridName(0));
      reach = prefetch_range_;
    }
  }
  if (axis >= 0 && expr == "0") {
    expr = GridName(axis);
    reach = grid_[axis];
  }
  bool squeezed = Rare(6);
  int64_t block = 1;
  int64_t extent = reach;
  if (!squeezed) {
    block = PickDim(std::max<int64_t>(budget / reach, 1));
    extent = reach * block;
    if (block > 1 && reach > 1 && !Often(3)) extent -= 1 + Pick(static_cast<int>(block) - 1);
  }
  if (Rare(12)) extent += block;  // a block no grid step visits
  if (Rare(64)) expr = fmt::format("{}", (extent + block - 1) / block);  // out of range
  budget = std::max<int64_t>(budget / std::max<int64_t>(extent, 1), 1);
  op.array.push_back(extent);
  op.block.push_back(squeezed ? (Rare(3) ? "pl.squeezed" : "None") : fmt::format("{}", block));
  op.index.push_back(expr);
  if (!squeezed) op.ref.push_back(block);
}

Operand Generator::PlanOperand(std::string name, bool output) {
  Operand op{.name = std::move(name), .dtype = PickDType()};
  int rank = 1 + Pick(3);
  int64_t budget = Rare(8) ? kMaxElements : kSoftElements;
  int kind = Pick(16);
  if (kind == 15 || (grid_.empty() && kind >= 10)) {
    op.kind = OperandKind::kWhole;
  } else if (kind == 14 && !output) {
    op.kind = OperandKind::kSmem;
    rank = std::min(rank, 2);
    if (op.dtype != DType::kI32 && !Rare(6)) op.dtype = DType::kF32;
    budget = 64;
  } else if (kind == 13 || (kind == 14 && output)) {
    op.kind = output && kind == 14 ? OperandKind::kSmem : OperandKind::kAny;
    if (op.kind == OperandKind::kSmem) {
      rank = 1;
      budget = 16;
      if (op.dtype != DType::kI32) op.dtype = DType::kF32;
    }
  }
  if (op.kind == OperandKind::kAny && op.dtype == DType::kBool && Often(4)) {
    op.dtype = DType::kI32;  // DMAs of bool are not supported
  }
  if (op.kind == OperandKind::kBlocked) {
    for (int d = 0; d < rank; ++d) PlanBlockedDim(op, d, budget, output);
  } else {
    for (int d = 0; d < rank; ++d) {
      op.array.push_back(PickDim(budget));
      budget = std::max<int64_t>(budget / op.array.back(), 1);
    }
    op.ref = op.array;
  }
  return op;
}

Operand Generator::PlanMatrix(std::string name) {
  // bfloat16 most often (tensor cores), float16 (their other form) and float32 (the staged
  // float form) too.
  constexpr DType kMatrixTypes[] = {DType::kBF16, DType::kBF16, DType::kF16, DType::kF32};
  Operand op{.name = std::move(name), .dtype = kMatrixTypes[Pick(4)]};
  constexpr int64_t kColumns[] = {32, 64, 128};
  int64_t columns = kColumns[Pick(3)];
  if (grid_.empty() || Rare(4)) {
    op.kind = OperandKind::kWhole;
    op.array = {128, columns};
    op.ref = op.array;
    return op;
  }
  // Row blocks of 128 along grid axis 0; the columns whole.
  op.array = {128 * grid_[0], columns};
  op.block = {"128", fmt::format("{}", columns)};
  op.index = {GridName(0), "0"};
  op.ref = {128, columns};
  return op;
}

std::string Generator::SpecText(const Operand& op) const {
  switch (op.kind) {
    case OperandKind::kWhole:
      return "pl.BlockSpec(memory_space=pltpu.VMEM)";
    case OperandKind::kSmem:
      return "pl.BlockSpec(memory_space=pltpu.SMEM)";
    case OperandKind::kAny:
      return "pl.BlockSpec(memory_space=pl.ANY)";
    case OperandKind::kBlocked:
      break;
  }
  std::vector<std::string> params;
  for (size_t a = 0; a < grid_.size(); ++a) params.push_back(GridName(static_cast<int>(a)));
  if (prefetch_) params.push_back("s");
  std::string index =
      op.index.size() == 1 ? op.index[0] + "," : fmt::format("{}", fmt::join(op.index, ", "));
  std::string block =
      op.block.size() == 1 ? op.block[0] + "," : fmt::format("{}", fmt::join(op.block, ", "));
  return fmt::format("pl.BlockSpec(({}), lambda{}{}: ({}))", block, params.empty() ? "" : " ",
                     fmt::join(params, ", "), index);
}

// An expression building an input array of `op`'s shape and dtype.
std::string Generator::InputText(const Operand& op, int seed) {
  int64_t n = Elements(op.array);
  std::string shape = ShapeText(op.array);
  switch (op.dtype) {
    case DType::kF32:
    case DType::kBF16:
    case DType::kF16: {
      std::string base;
      switch (Pick(3)) {
        case 0:
          base = fmt::format("jax.random.normal(jax.random.key({}), {}, jnp.float32)", seed, shape);
          break;
        case 1:
          base = fmt::format("(jnp.arange({}, dtype=jnp.float32).reshape({}) / {})", n, shape, n);
          break;
        default:
          base =
              fmt::format("jax.random.uniform(jax.random.PRNGKey({}), {}, minval=-2.0, maxval=2.0)",
                          seed, shape);
      }
      return op.dtype == DType::kF32 ? base : Cast(base, DType::kF32, op.dtype);
    }
    case DType::kI32:
    case DType::kI16:
    case DType::kI8:
    case DType::kU8:
    case DType::kU16:
    case DType::kU32: {
      // (Negative values wrap into the unsigned types.)
      std::string base =
          Often(2) ? fmt::format("(jnp.arange({}, dtype=jnp.int32) % 7 - 3).reshape({})", n, shape)
                   : fmt::format("jax.random.randint(jax.random.key({}), {}, -5, 6, jnp.int32)",
                                 seed, shape);
      return Cast(base, DType::kI32, op.dtype);
    }
    case DType::kBool:
      if (Often(2)) return fmt::format("(jnp.arange({}) % 3 == 0).reshape({})", n, shape);
      return fmt::format("jax.random.bernoulli(jax.random.key({}), 0.5, {})", seed, shape);
  }
  return "None";
}

KernelProgram Generator::Generate() {
  KernelProgram program;
  int grid_rank = Rare(8) ? 0 : 1 + Pick(2);
  for (int a = 0; a < grid_rank; ++a) grid_.push_back(1 + Pick(4));
  output_axes_ = grid_rank - (grid_rank > 0 && Rare(3) ? 1 : 0);
  prefetch_ = grid_rank > 0 && Rare(5);
  if (prefetch_) {
    prefetch_range_ = 1 + Pick(4);
    for (int64_t k = 0; k < grid_[0]; ++k) {
      int64_t value = Pick(static_cast<int>(prefetch_range_));
      if (Rare(32)) value = prefetch_range_ + 1;  // an index map that leaves the array
      prefetch_table_.push_back(value);
    }
  }
  int inputs = 1 + Pick(3);
  int outputs = Often(3) ? 1 : 2;
  for (int k = 0; k < inputs; ++k) {
    std::string name = fmt::format("x{}", k);
    inputs_.push_back(k == 0 && options_.matrices ? PlanMatrix(name) : PlanOperand(name, false));
  }
  for (int k = 0; k < outputs; ++k) outputs_.push_back(PlanOperand(fmt::format("o{}", k), true));
  int scratch = Often(2) ? 0 : 1 + Pick(2);
  for (int k = 0; k < scratch; ++k) {
    Scratch s{.name = fmt::format("t{}_ref", k), .dtype = PickDType()};
    if (s.dtype == DType::kBool) s.dtype = DType::kF32;
    s.smem = Rare(5);
    int rank = s.smem ? 1 : 1 + Pick(2);
    for (int d = 0; d < rank; ++d) s.shape.push_back(PickDim(s.smem ? 8 : 256));
    if (s.smem && !Is32Bit(s.dtype)) s.dtype = DType::kI32;
    scratch_.push_back(s);
  }
  // The accumulator, for a 16-bit matrix (whose products may stage, and keep their sum in the
  // tensor cores' registers).
  if (options_.matrices && inputs_[0].dtype != DType::kF32 && Rare(3)) {
    accumulator_ = true;
    scratch_.push_back({.name = "tacc_ref", .dtype = DType::kF32, .shape = {128, 128}});
  }

  program.flags = {.interpret = Rare(4), .lint = Rare(8), .stats = Rare(8), .eager_dma = Rare(4)};
  std::vector<std::string> semantics;
  if (grid_rank > 0 && Often(2)) {
    for (int a = 0; a < grid_rank; ++a) {
      // An axis is "parallel" only if every output's blocks depend on it: otherwise two cores
      // would write the same output block (a race the megacore checker reports).
      bool used = true;
      for (const Operand& op : outputs_) {
        bool uses = false;
        for (const std::string& e : op.index) uses |= e.find(GridName(a)) != std::string::npos;
        used &= uses;
      }
      bool parallel = (used && Often(2)) || Rare(16);
      semantics.push_back(parallel ? "\"parallel\"" : "\"arbitrary\"");
    }
    if (Rare(6)) semantics[0] = "pltpu.PARALLEL";
    program.flags.two_cores = Often(2);
  }

  std::string body = KernelBody();

  std::string& out = program.source;
  out +=
      "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n"
      "from jax.experimental import pallas as pl\n"
      "from jax.experimental.pallas import tpu as pltpu\n\n\n";
  out += "def kernel(" + fmt::format("{}", fmt::join(params_, ", ")) + "):\n" + body + "\n\n";

  std::vector<std::string> args;
  if (prefetch_) {
    out += fmt::format("s = jnp.array([{}], dtype=jnp.int32)\n", fmt::join(prefetch_table_, ", "));
    args.push_back("s");
  }
  for (size_t k = 0; k < inputs_.size(); ++k) {
    out += fmt::format("{} = {}\n", inputs_[k].name, InputText(inputs_[k], static_cast<int>(k)));
    args.push_back(inputs_[k].name);
  }
  std::vector<std::string> out_shapes, in_specs, out_specs, scratch_specs;
  for (const Operand& op : outputs_) {
    out_shapes.push_back(
        fmt::format("jax.ShapeDtypeStruct({}, {})", ShapeText(op.array), DTypeName(op.dtype)));
    out_specs.push_back(SpecText(op));
  }
  for (const Operand& op : inputs_) in_specs.push_back(SpecText(op));
  for (const Scratch& s : scratch_) {
    scratch_specs.push_back(fmt::format("pltpu.{}({}, {})", s.smem ? "SMEM" : "VMEM",
                                        ShapeText(s.shape), DTypeName(s.dtype)));
  }
  for (const Operand& op : outputs_) {
    if (op.kind == OperandKind::kAny) {
      scratch_specs.push_back(
          fmt::format("pltpu.VMEM({}, {})", ShapeText(op.array), DTypeName(op.dtype)));
    }
  }
  for (const Operand& op : inputs_) {
    if (op.kind == OperandKind::kAny) {
      scratch_specs.push_back(
          fmt::format("pltpu.VMEM({}, {})", ShapeText(op.array), DTypeName(op.dtype)));
    }
  }
  if (uses_semaphore_) scratch_specs.push_back("pltpu.SemaphoreType.DMA");

  bool single = outputs_.size() == 1 && Often(3);
  std::string out_shape =
      single ? out_shapes[0] : fmt::format("({},)", fmt::join(out_shapes, ", "));
  std::string out_spec = single ? out_specs[0] : fmt::format("({},)", fmt::join(out_specs, ", "));
  bool all_whole = true;
  for (const Operand& op : inputs_) all_whole &= op.kind == OperandKind::kWhole;
  std::string grid = fmt::format("({}{})", fmt::join(grid_, ", "), grid_.size() == 1 ? "," : "");
  std::string specs;
  if (!(all_whole && Often(2))) specs += fmt::format("in_specs=[{}], ", fmt::join(in_specs, ", "));
  specs += fmt::format("out_specs={}, ", out_spec);
  if (!scratch_specs.empty()) {
    specs += fmt::format("scratch_shapes=[{}], ", fmt::join(scratch_specs, ", "));
  }
  std::string call = "pl.pallas_call(\n    kernel,\n    out_shape=" + out_shape + ",\n    ";
  if (prefetch_) {
    call += fmt::format(
        "grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid={}, {}),\n    ", grid,
        specs.substr(0, specs.size() - 2));
  } else {
    if (!grid_.empty()) call += "grid=" + grid + ",\n    ";
    call += specs + "\n    ";
  }
  if (!semantics.empty()) {
    call += fmt::format("compiler_params=pltpu.CompilerParams(dimension_semantics=({},)),\n    ",
                        fmt::join(semantics, ", "));
  }
  if (Often(2)) call += "interpret=True,\n";
  call += ")";
  std::vector<std::string> results;
  for (size_t k = 0; k < outputs_.size(); ++k) results.push_back(fmt::format("r{}", k));
  std::string target = single ? "r0" : fmt::format("{},", fmt::join(results, ", "));
  out += fmt::format("{} = {}({})\n", target, call, fmt::join(args, ", "));
  for (size_t k = 0; k < outputs_.size(); ++k) {
    out += fmt::format("print(r{}.shape, r{}.dtype)\n", k, k);
    if (Elements(outputs_[k].array) <= 64 && Often(2)) {
      out += fmt::format("print(r{})\n", k);
    } else {
      out += fmt::format("print(jnp.sum(r{}.astype(jnp.float32)))\n", k);
    }
  }
  return program;
}

KernelProgram GenerateKernelProgram(Choices& choices, const GeneratorOptions& options) {
  return Generator(choices, options).Generate();
}

}  // namespace pz::fuzz

// The state of one generated kernel program, shared by kernel_program.cpp (operands, specs, host
// code) and kernel_body.cpp (the kernel's statements). Every value the kernel computes is tracked
// with its shape and dtype, so operations can be chosen that fit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernel_program.h"

namespace pz::fuzz {

enum class DType { kF32, kBF16, kF16, kI32, kI16, kI8, kU8, kU16, kU32, kBool };
using Shape = std::vector<int64_t>;

// Arrays stay small so each run is fast: most at most kSoftElements, none above kMaxElements.
constexpr int64_t kSoftElements = 1024;
constexpr int64_t kMaxElements = int64_t{1} << 16;

std::string DTypeName(DType dtype);
std::string ShapeText(const Shape& shape);  // Python tuple: "()", "(3,)", "(2, 4)"
int64_t Elements(const Shape& shape);
bool IsFloat(DType dtype);
bool IsUnsigned(DType dtype);
// Whether SMEM may hold it (32-bit words): float32 and 32-bit integers.
bool Is32Bit(DType dtype);
// NumPy broadcasting of two shapes, or nullopt when they do not broadcast.
std::optional<Shape> Broadcast(const Shape& a, const Shape& b);
// `expr` converted with `.astype` when the dtypes differ.
std::string Cast(const std::string& expr, DType from, DType to);
std::string Tuple(const std::vector<int>& items);  // "(1,)", "(0, 2)"

enum class OperandKind {
  kBlocked,  // pl.BlockSpec(block_shape, index_map)
  kWhole,    // pl.BlockSpec(memory_space=pltpu.VMEM): the whole array in VMEM
  kSmem,     // pl.BlockSpec(memory_space=pltpu.SMEM): the whole array, read as scalars
  kAny,      // pl.BlockSpec(memory_space=pl.ANY): copied through a VMEM buffer with sync_copy
};

struct Operand {
  std::string name;  // host array name: "x0", "o1"
  DType dtype = DType::kF32;
  OperandKind kind = OperandKind::kBlocked;
  Shape array;                     // the whole array
  std::vector<std::string> block;  // kBlocked: block_shape entries ("4", "None", "pl.squeezed")
  std::vector<std::string> index;  // kBlocked: index-map result expressions
  Shape ref;                       // the kernel's view of the operand
};

struct Scratch {
  std::string name;
  DType dtype = DType::kF32;
  Shape shape;
  bool smem = false;
};

// A value in the kernel: a Python name and what it holds.
struct Value {
  std::string name;
  Shape shape;
  DType dtype;
};

// A ref the kernel may read or write.
struct RefInfo {
  std::string name;
  Shape shape;
  DType dtype;
  bool smem = false;      // scalar accesses only
  bool output = false;    // an output's block (or its buffer, for pl.ANY outputs)
  int output_index = -1;  // which output
};

class Generator {
 public:
  Generator(Choices& in, const GeneratorOptions& options) : in_(in), options_(options) {}
  KernelProgram Generate();

 private:
  // ---- Choices (running out of bytes gives 0: the first choice, `Often` true, `Rare` false).
  // `Rare(n)` is one value in n, the middle one: a run of 0xff bytes (n - 1 for every power of
  // two) would otherwise take every rare branch at once.
  int Pick(int n);
  bool Rare(int n) { return Pick(n) == n / 2; }
  bool Often(int n) { return !Rare(n); }
  DType PickDType();
  int64_t PickDim(int64_t budget);

  // ---- Operands and host code (kernel_program.cpp).
  std::string GridName(int axis) const;
  Operand PlanOperand(std::string name, bool output);
  Operand PlanMatrix(std::string name);
  void PlanBlockedDim(Operand& op, int dim, int64_t& budget, bool output);
  std::string SpecText(const Operand& op) const;
  std::string InputText(const Operand& op, int seed);

  // ---- The kernel body (kernel_body.cpp).
  std::string KernelBody();
  void Line(const std::string& text);
  std::string NewName(const char* prefix);
  Value& Add(std::string expr, Shape shape, DType dtype);
  const Value& PickValue();
  std::optional<Value> PickBroadcastable(const Shape& shape);
  std::string Literal(DType dtype);
  std::string Fit(const Value& value, const Shape& shape, DType dtype);
  std::string ScalarIndex(int64_t extent);
  std::string Index(const Shape& shape, Shape& result, bool ref);
  std::string Predicate();
  void Statement(int depth);
  bool Unary();
  bool Binary();
  bool Compare();
  bool Where();
  bool Reduce();
  bool Dot(bool first_matrix = false);  // first_matrix: of the first 2-D value
  // A product with a batch dimension: of a 3-D value and another (or its own transpose), or
  // (first_matrix) of the first 2-D value split into two batches of 64 rows.
  bool BatchedDot(bool first_matrix = false);
  bool Reshape();
  bool Transpose();
  bool Expand();
  bool Concatenate();
  bool SliceValue();
  bool ProgramId();
  bool Load();
  bool Store(bool top_level);
  bool When(int depth);
  bool ForiLoop(int depth);
  bool Cond();
  bool Constant();
  bool Random();
  bool Unsupported();

  Choices& in_;
  GeneratorOptions options_;
  std::vector<int64_t> grid_;
  int output_axes_ = 0;  // outputs' index maps use grid axes [0, output_axes_)
  bool prefetch_ = false;
  int64_t prefetch_range_ = 1;  // prefetched block indices are in [0, prefetch_range_)
  std::vector<int64_t> prefetch_table_;
  std::vector<Operand> inputs_, outputs_;
  std::vector<Scratch> scratch_;
  bool uses_semaphore_ = false;
  // The matrices option's accumulator (`tacc_ref`, 128 x 128 float32 scratch): zeroed at the
  // first step of the last grid axis, the product of the matrix added into it at every step,
  // and stored to the first output (the epilogue the CUDA backend keeps in registers).
  bool accumulator_ = false;

  std::vector<std::string> params_;  // the kernel's parameters
  std::vector<RefInfo> refs_;
  std::vector<Value> values_;  // in scope now (nested blocks truncate it when they end)
  std::vector<bool> stored_;   // per output: stored at the kernel's top level
  std::string body_;
  int indent_ = 1;
  int next_name_ = 0;
};

}  // namespace pz::fuzz

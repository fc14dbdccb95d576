// The kernel IR: what tracing produces for the Pallas constructs (seen through --dump-ir and
// through a kernel traced directly), that the verifier accepts traced kernels and rejects
// malformed hand-built functions, and that the executor runs a hand-built function.
#include "kernel/ir.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "array/elementwise.h"
#include "eval/array_object.h"
#include "kernel/trace.h"
#include "tpu/executor.h"
#include "unit/tpu/run_kernel.h"

namespace pz::kernel {
namespace {

using array::Array;
using array::DType;

// ---- Tracing, seen through --dump-ir -----------------------------------------------------------

// A kernel using every structured construct: program_id, a pl.when (Cond), a fori_loop (For)
// reading a dynamic slice, loads and stores.
constexpr std::string_view kKernel = R"(
def kernel(x_ref, o_ref):
    i = pl.program_id(0)

    @pl.when(i == 0)
    def _():
        o_ref[...] = jnp.zeros((2, 4), jnp.float32)

    def body(j, acc):
        return acc + x_ref[pl.ds(j, 1), :]

    total = lax.fori_loop(0, 2, body, jnp.zeros((1, 4), jnp.float32))
    o_ref[...] += total


x = jnp.arange(16, dtype=jnp.float32).reshape(4, 4)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2, 4), jnp.float32), grid=(2,),
                     in_specs=[pl.BlockSpec((2, 4), lambda i: (i, 0))],
                     out_specs=pl.BlockSpec((2, 4), lambda i: (0, 0)))(x)
print(out.astype(jnp.int32).tolist())
)";

// Lines of `text` (trailing location comments kept).
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Index of the first line at or after `from` containing `needle`, or -1.
int Find(const std::vector<std::string>& lines, std::string_view needle, int from = 0) {
  for (int i = from; i < static_cast<int>(lines.size()); ++i) {
    if (lines[i].find(needle) != std::string::npos) return i;
  }
  return -1;
}

int Indent(const std::string& line) { return static_cast<int>(line.find_first_not_of(' ')); }

TEST(KernelIr, DumpShowsTheStructuredOps) {
  tpu::EmulatorOptions options = tpu::testing::Tpu();
  options.dump_ir = true;
  tpu::testing::KernelRun r = tpu::testing::RunKernelProgram(kKernel, options);
  ASSERT_FALSE(r.error) << r.rendered;
  // Step 0 adds rows 0 + 1 of x, step 1 rows 2 + 3, both broadcast over the one output block.
  EXPECT_NE(r.output.find("[[24, 28, 32, 36], [24, 28, 32, 36]]\n"), std::string::npos) << r.output;
  std::vector<std::string> lines = Lines(r.output);
  ASSERT_EQ(Find(lines, "kernel kernel("), 0) << r.output;
  EXPECT_NE(Find(lines, "#0 x_ref: VMEM f32[2,4]"), -1) << r.output;
  EXPECT_NE(Find(lines, "#1 o_ref: VMEM f32[2,4]"), -1) << r.output;

  int program_id = Find(lines, "ProgramId axis=0");
  int cond = Find(lines, "Cond (");  // no results: pl.when yields nothing
  int for_loop = Find(lines, "= For");
  ASSERT_NE(program_id, -1) << r.output;
  ASSERT_NE(cond, -1) << r.output;
  ASSERT_NE(for_loop, -1) << r.output;
  EXPECT_LT(program_id, cond);
  EXPECT_LT(cond, for_loop);
  EXPECT_NE(lines[program_id].find(": i32[]"), std::string::npos) << lines[program_id];
  // The zeros store happens in region 0 of the Cond (the taken branch), nested deeper.
  int region0 = Find(lines, "region 0", cond);
  int zero_store = Find(lines, "Store #1", cond);
  ASSERT_EQ(region0, cond + 1) << r.output;
  ASSERT_NE(zero_store, -1) << r.output;
  EXPECT_GT(Indent(lines[zero_store]), Indent(lines[cond]));
  // The loop body (region 0 with the index and the carry as params) loads x_ref dynamically.
  int body = Find(lines, "region 0 (", for_loop);
  ASSERT_EQ(body, for_loop + 1) << r.output;
  int load = Find(lines, "Load #0[", body);
  ASSERT_NE(load, -1) << r.output;
  EXPECT_GT(Indent(lines[load]), Indent(lines[for_loop]));
  EXPECT_NE(lines[load].find(": f32[1,4]"), std::string::npos) << lines[load];
  EXPECT_NE(lines[for_loop].find(": f32[1,4]"), std::string::npos) << lines[for_loop];
  // After the loop: load the output, add, store it back, at the kernel's top level.
  int last_store = Find(lines, "Store #1", load);
  ASSERT_NE(last_store, -1) << r.output;
  EXPECT_EQ(Indent(lines[last_store]), 2);
  // Location comments give file lines: user line 3 (after the 6-line prelude) is line 9.
  EXPECT_NE(lines[program_id].find("# line 9:9"), std::string::npos) << lines[program_id];
  // The index maps are dumped too.
  EXPECT_NE(Find(lines, "index map of x_ref: kernel"), -1) << r.output;
  EXPECT_NE(Find(lines, "index map of o_ref: kernel"), -1) << r.output;
}

TEST(KernelIr, NoDumpWithoutTheOption) {
  tpu::testing::KernelRun r = tpu::testing::RunKernelProgram(kKernel);
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[[24, 28, 32, 36], [24, 28, 32, 36]]\n");
}

// ---- Tracing directly --------------------------------------------------------------------------

// Runs `program` with a module `irtest` whose `trace(fn, *shapes)` traces `fn` on f32 VMEM refs
// of the given shapes (grid (2, 3)) and keeps the resulting functions.
std::vector<Function> TraceProgram(std::string_view program, std::string* error = nullptr) {
  std::vector<Function> functions;
  SourceManager sources;
  FileId id = sources.Add(
      "trace.py", std::string(tpu::testing::kPrelude) + "import irtest\n" + std::string(program));
  DiagnosticSink sink;
  lang::Module module = lang::ParseModule(sources.Get(id), id, sink);
  EXPECT_FALSE(sink.HasErrors());
  eval::Interpreter interp(sources, {.output = [](std::string_view) {}});
  tpu::InstallPallas(interp, {});
  auto irtest = std::make_shared<eval::ModuleObject>("irtest");
  irtest->Set("trace", interp.MakeBuiltin("trace", [&functions](eval::Interpreter& interp,
                                                                eval::CallArgs& args) {
    auto trace = std::make_shared<Trace>(interp, "traced", TraceOptions{.grid = {2, 3}});
    {
      TraceScope scope(*trace);
      std::vector<eval::Value> refs;
      for (size_t i = 1; i < args.positional.size(); ++i) {
        RefType type{.name = fmt::format("r{}", i - 1),
                     .shape = eval::ToShape(interp, args.positional[i]),
                     .role = RefRole::kInput,
                     .operand = static_cast<int>(i - 1)};
        refs.push_back(trace->MakeRef(trace->AddRef(type)));
      }
      interp.Call(args.positional[0], refs);
    }
    functions.push_back(std::move(trace->function()));
    return eval::Value();
  }));
  interp.RegisterModule("irtest", irtest);
  if (std::optional<Diagnostic> d = interp.RunModule(std::move(module))) {
    if (error) *error = Render(*d, sources);
    ADD_FAILURE() << Render(*d, sources);
  }
  return functions;
}

TEST(KernelIr, TracedFunctionsVerify) {
  std::vector<Function> functions = TraceProgram(R"(
def copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def structured(x_ref, o_ref):
    i = pl.program_id(1)

    @pl.when(i > 0)
    def _():
        o_ref[0, :] = x_ref[1, :] * 2.0

    def body(j, carry):
        a, b = carry
        return a + x_ref[pl.ds(j, 1), :], b * 2

    a, b = lax.fori_loop(0, 2, body, (jnp.zeros((1, 4), jnp.float32), 1))
    o_ref[pl.ds(i, 1), :] = lax.cond(i == 1, lambda: a, lambda: -a) + b.astype(jnp.float32)

    def cond_fn(c):
        return c < 10

    n = lax.while_loop(cond_fn, lambda c: c + i + 1, 0)
    o_ref[1, 0] = n.astype(jnp.float32)


irtest.trace(copy, (2, 4), (2, 4))
irtest.trace(structured, (2, 4), (2, 4))
)");
  ASSERT_EQ(functions.size(), 2u);
  for (const Function& f : functions) {
    EXPECT_EQ(Verify(f), std::nullopt) << Print(f);
    EXPECT_EQ(f.refs.size(), 2u);
  }
  // copy: exactly a Load of ref 0 and a Store of ref 1.
  const Function& copy = functions[0];
  ASSERT_EQ(copy.body.body.size(), 2u) << Print(copy);
  EXPECT_EQ(copy.body.body[0].op, Op::kLoad);
  EXPECT_EQ(copy.body.body[0].ref.ref, 0);
  EXPECT_EQ(copy.body.body[1].op, Op::kStore);
  EXPECT_EQ(copy.body.body[1].ref.ref, 1);
  EXPECT_EQ(copy.body.body[1].operands.at(0), copy.body.body[0].results.at(0));
  // structured: the top level holds ProgramId, Cond, For, Cond (lax.cond) and While.
  std::string ops;
  for (const Instr& instr : functions[1].body.body) {
    if (instr.op == Op::kProgramId || instr.op == Op::kCond || instr.op == Op::kFor ||
        instr.op == Op::kWhile) {
      ops += std::string(OpName(instr.op)) + " ";
    }
  }
  EXPECT_EQ(ops, "ProgramId Cond For Cond While ") << Print(functions[1]);
  for (const Instr& instr : functions[1].body.body) {
    if (instr.op == Op::kProgramId) {
      EXPECT_EQ(instr.axis, 1);
    }
    if (instr.op == Op::kFor) {
      EXPECT_EQ(instr.results.size(), 2u);               // two carries
      EXPECT_EQ(instr.regions.at(0).params.size(), 3u);  // index + carries
    }
    if (instr.op == Op::kWhile) {
      EXPECT_EQ(instr.regions.size(), 2u);
    }
  }
}

TEST(KernelIr, StaticPythonControlFlowLeavesNoTrace) {
  // Python `for` over a static range and `if` on static values unroll at trace time.
  std::vector<Function> functions = TraceProgram(R"(
def kernel(x_ref, o_ref):
    for r in range(x_ref.shape[0]):
        if r % 2 == 0:
            o_ref[r, :] = x_ref[r, :]


irtest.trace(kernel, (4, 4), (4, 4))
)");
  ASSERT_EQ(functions.size(), 1u);
  EXPECT_EQ(Verify(functions[0]), std::nullopt);
  std::string ops;
  for (const Instr& instr : functions[0].body.body) ops += std::string(OpName(instr.op)) + " ";
  EXPECT_EQ(ops, "Load Store Load Store ");
}

// ---- Verify on hand-built functions ------------------------------------------------------------

ValueType F32() { return {.shape = {}, .dtype = DType::kFloat32}; }
ValueType I32() { return {.shape = {}, .dtype = DType::kInt32}; }

Instr ConstantInstr(ValueId result, double value, DType dtype = DType::kFloat32) {
  return Instr{.op = Op::kConstant,
               .results = {result},
               .constant = std::make_shared<const Array>(Array::Scalar(dtype, value))};
}

Instr AddInstr(ValueId result, ValueId a, ValueId b) {
  return Instr{.op = Op::kAdd,
               .results = {result},
               .operands = {a, b},
               .prim = {array::Prim::kAdd, array::NoAttrs{}},
               .cost = {.flops = 1, .bytes = 12}};  // one f32 add: two 4-byte reads, one write
}

TEST(KernelIrVerify, AcceptsAWellFormedFunction) {
  Function f{.name = "ok", .values = {F32(), F32()}};
  f.body.body.push_back(ConstantInstr(0, 1.5));
  f.body.body.push_back(AddInstr(1, 0, 0));
  f.body.yields = {1};
  EXPECT_EQ(Verify(f), std::nullopt);
}

TEST(KernelIrVerify, ChecksResultTypesAtTypesDepthOnly) {
  // add of two f32 scalars declared to give an i32: only running the primitive tells.
  Function f{.name = "bad", .values = {F32(), I32()}};
  f.body.body.push_back(ConstantInstr(0, 1.5));
  Instr add = AddInstr(1, 0, 0);
  add.cost.bytes = 12;
  f.body.body.push_back(add);
  EXPECT_EQ(Verify(f, VerifyDepth::kStructure), std::nullopt);
  std::optional<std::string> problem = Verify(f, VerifyDepth::kTypes);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(*problem, "add: result %1 is i32[], the primitive gives f32[]");
  // The test suites run with PZ_CHECK_IR_TYPES=1, so traced kernels get the full check.
  EXPECT_EQ(TracedVerifyDepth(), VerifyDepth::kTypes)
      << "run the tests through ctest, which sets PZ_CHECK_IR_TYPES=1";
}

TEST(KernelIrVerify, PlansDotGeneralResultsInsteadOfRunningThem) {
  // f32[2,3] . f32[3,4] contracting 1 with 0 gives f32[2,4], not the declared f32[2,3].
  ValueType lhs{.shape = {2, 3}, .dtype = DType::kFloat32};
  ValueType rhs{.shape = {3, 4}, .dtype = DType::kFloat32};
  Function f{.name = "dot", .values = {lhs, rhs, lhs}};
  f.refs.push_back(RefType{.name = "a_ref", .shape = {2, 3}});
  f.refs.push_back(RefType{.name = "b_ref", .shape = {3, 4}});
  f.body.body.push_back(Instr{.op = Op::kLoad, .results = {0}, .ref = {.ref = 0}});
  f.body.body.push_back(Instr{.op = Op::kLoad, .results = {1}, .ref = {.ref = 1}});
  array::PrimCall call{array::Prim::kDotGeneral,
                       array::DotAttrs{.dims = {.lhs_contracting = {1}, .rhs_contracting = {0}}}};
  Instr dot{.op = Op::kDotGeneral, .results = {2}, .operands = {0, 1}, .prim = call};
  dot.cost = PrimCostOf(call, {lhs, rhs}, {lhs});
  f.body.body.push_back(dot);
  std::optional<std::string> problem = Verify(f, VerifyDepth::kTypes);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(*problem, "dot_general: result %2 is f32[2,3], the primitive gives f32[2,4]");
}

TEST(KernelIrVerify, ReportsOperandUsedBeforeDefinition) {
  Function f{.name = "bad", .values = {F32(), F32()}};
  f.body.body.push_back(AddInstr(1, 0, 0));  // %0 is defined by the next instruction
  f.body.body.push_back(ConstantInstr(0, 1.5));
  std::optional<std::string> problem = Verify(f);
  ASSERT_TRUE(problem);
  EXPECT_EQ(*problem, "add: operand %0 used before its definition or outside its region");
}

TEST(KernelIrVerify, ReportsValueUsedOutsideItsRegion) {
  // %2 is defined inside the Cond's branch and used after the Cond.
  Function f{.name = "bad", .values = {ValueType{.dtype = DType::kBool}, F32(), F32(), F32()}};
  f.body.params = {0};
  Instr cond{.op = Op::kCond, .results = {1}, .operands = {0}};
  Region taken, other;
  taken.body.push_back(ConstantInstr(2, 1.0));
  taken.yields = {2};
  other.body.push_back(ConstantInstr(3, 2.0));
  other.yields = {3};
  cond.regions = {taken, other};
  f.body.body.push_back(cond);
  f.body.body.push_back(AddInstr(3, 1, 2));
  std::optional<std::string> problem = Verify(f);
  ASSERT_TRUE(problem);
  EXPECT_EQ(*problem, "add: operand %2 used before its definition or outside its region");
}

TEST(KernelIrVerify, ReportsDoubleDefinitionAndUnknownValues) {
  Function twice{.name = "twice", .values = {F32()}};
  twice.body.body.push_back(ConstantInstr(0, 1.0));
  twice.body.body.push_back(ConstantInstr(0, 2.0));
  EXPECT_EQ(Verify(twice), "Constant: %0 defined twice");

  Function untyped{.name = "untyped", .values = {F32()}};
  untyped.body.body.push_back(ConstantInstr(0, 1.0));
  untyped.body.body.push_back(AddInstr(0, 0, 7));
  std::optional<std::string> problem = Verify(untyped);
  ASSERT_TRUE(problem);
  EXPECT_EQ(*problem, "add: operand %7 has no type");
}

TEST(KernelIrVerify, ReportsBranchYieldCountAndBadRefs) {
  Function f{.name = "bad", .values = {ValueType{.dtype = DType::kBool}, F32(), F32()}};
  f.body.params = {0};
  Instr cond{.op = Op::kCond, .results = {1}, .operands = {0}};
  Region taken, other;  // `other` yields nothing
  taken.body.push_back(ConstantInstr(2, 1.0));
  taken.yields = {2};
  cond.regions = {taken, other};
  f.body.body.push_back(cond);
  EXPECT_EQ(Verify(f), "Cond: a branch yields 0 values for 1 results");

  Function load{.name = "load", .values = {F32()}};
  load.refs.push_back(RefType{.name = "x_ref", .shape = {}});
  load.body.body.push_back(Instr{.op = Op::kLoad, .results = {0}, .ref = {.ref = 3}});
  EXPECT_EQ(Verify(load), "Load: unknown ref 3");
}

// ---- The executor on a hand-built function ------------------------------------------------------

TEST(KernelIrExecutor, RunsAForLoopWithACarry) {
  // sum = 0.5; for i in [1, 5): sum = sum + i  -> 10.5; stored into ref #0.
  Function f{.name = "loop", .values = {I32(), I32(), F32(), F32(), I32(), F32(), F32(), F32()}};
  f.refs.push_back(RefType{.name = "o_ref", .shape = {}, .role = RefRole::kOutput});
  f.body.body.push_back(ConstantInstr(0, 1, DType::kInt32));
  f.body.body.push_back(ConstantInstr(1, 5, DType::kInt32));
  f.body.body.push_back(ConstantInstr(2, 0.5));
  Instr loop{.op = Op::kFor, .results = {3}, .operands = {0, 1, 2}};
  Region body;
  body.params = {4, 5};
  body.body.push_back(
      Instr{.op = Op::kConvertElementType,
            .results = {6},
            .operands = {4},
            .prim = {array::Prim::kConvertElementType, array::ConvertAttrs{DType::kFloat32}},
            .cost = {.flops = 1, .bytes = 8}});
  body.body.push_back(AddInstr(7, 5, 6));
  body.yields = {7};
  loop.regions = {body};
  f.body.body.push_back(loop);
  f.body.body.push_back(Instr{.op = Op::kStore, .operands = {3}, .ref = {.ref = 0}});
  ASSERT_EQ(Verify(f), std::nullopt);
  EXPECT_NE(Print(f).find("= For (%0, %1, %2) : f32[]"), std::string::npos) << Print(f);

  std::vector<int64_t> point;
  tpu::RefBuffer out{.data = Array::Scalar(DType::kFloat32, 0.0)};
  tpu::Counters counters;
  tpu::ExecContext context{.grid_point = &point, .refs = {&out}, .counters = &counters};
  int ticks = 0;
  context.tick = [&ticks] { ++ticks; };
  tpu::Executor executor(f, context);
  executor.Run({});
  EXPECT_EQ(out.data.GetDouble(0), 10.5);
  EXPECT_EQ(ticks, 4);
  EXPECT_EQ(counters.flops, 8);  // one convert and one add per iteration
}

TEST(KernelIr, AnIndexCoversADimensionWholeOnlyStatically) {
  EXPECT_TRUE(CoversDimension({.start = 0, .size = 8}, 8));
  EXPECT_FALSE(CoversDimension({.start = 0, .size = 4}, 8));  // half of it
  EXPECT_FALSE(CoversDimension({.start = 0, .size = 8, .stride = 2}, 8));
  EXPECT_FALSE(CoversDimension({.start = 0, .dynamic_start = 3, .size = 8}, 8));  // traced start
  EXPECT_TRUE(CoversDimension({.is_int = true, .start = 0}, 1));  // x[0] of a size-1 dim
  EXPECT_FALSE(CoversDimension({.is_int = true, .start = 0}, 4));
  Function f;
  f.refs.push_back({.name = "x_ref", .shape = {8, 1}});
  EXPECT_TRUE(CoversRef(f, {.ref = 0}));
  EXPECT_TRUE(CoversRef(f, {.ref = 0, .indexers = {{{.size = 8}, {.is_int = true}}}}));
  EXPECT_FALSE(CoversRef(
      f, {.ref = 0, .indexers = {{{.size = 8}, {.size = 1}}, {{.size = 8}, {.size = 1}}}}));
  EXPECT_FALSE(CoversRef(f, {.ref = 0, .indexers = {{{.start = 1, .size = 7}, {.size = 1}}}}));
}

}  // namespace
}  // namespace pz::kernel

// `pallas-puzzles roofline` and `tune` on the small programs of tests/unit/cli/roofline: numbers
// computed by hand for three kernels (a tiled matmul, a vector add at two block sizes, a
// compute-bound loop of products), a text and an SVG golden (PZ_UPDATE_GOLDEN=1 rewrites them),
// usage errors, and a tuning sweep whose table is then imported and queried by a program.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../scratch_dir.h"
#include "run_cli.h"

namespace {
namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kDir = fs::path(PZ_SOURCE_DIR) / "tests" / "unit" / "cli" / "roofline";

struct Result {
  int exit_code = -1;
  std::string out, err;
};

using pz::testing::Read;
using pz::testing::ScratchDir;

// Runs the CLI in `dir` with stdout and stderr kept apart.
Result RunCli(const std::string& args, const fs::path& dir = kDir) {
  ScratchDir scratch;
  fs::path err = scratch.path() / "stderr";
  std::string command = "cd '" + dir.string() + "' && env -u PALLAS_PUZZLES_COURSE NO_COLOR=1 " +
                        PZ_CLI_PATH + " " + args + " 2>'" + err.string() + "' </dev/null";
  pz::testing::Result run = pz::testing::RunShell(command);
  return {.exit_code = run.exit_code, .out = std::move(run.output), .err = Read(err)};
}

json Roofline(const std::string& args) {
  Result r = RunCli("roofline " + args + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out, nullptr, false);
}

void ExpectGolden(const std::string& name, const std::string& actual) {
  fs::path path = kDir / name;
  const char* update = std::getenv("PZ_UPDATE_GOLDEN");
  if (update != nullptr && *update != '\0') {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(fs::exists(path)) << path << " is missing; run with PZ_UPDATE_GOLDEN=1";
  EXPECT_EQ(actual, Read(path)) << "differs from " << path << " (PZ_UPDATE_GOLDEN=1 rewrites it)";
}

// TPU v5e per TensorCore, from JAX's table: 197e12 bf16 op/s, 820e9 HBM bytes/s.
constexpr double kV5eFlops = 197e12, kV5eBandwidth = 820e9, kStep = 0.35e-6;

TEST(Roofline, TiledMatmulByHand) {
  json j = Roofline("tiled_matmul.py");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["tpu"], "v5e");
  EXPECT_DOUBLE_EQ(j["ridge_flops_per_byte"].get<double>(), kV5eFlops / kV5eBandwidth);
  ASSERT_EQ(j["calls"].size(), 1u);
  const json& c = j["calls"][0];
  // grid (256/128, 256/128, 256/128) = 8 steps, one 128x128x128 product each.
  EXPECT_EQ(c["grid_steps"], 8);
  EXPECT_EQ(c["mxu_flops"], 2LL * 256 * 256 * 256);
  // k is the fastest axis, so both the x block (i, k) and the y block (k, j) change at every
  // step: 16 fetches of 128 x 128 x 4 bytes. The four output blocks are written once each.
  EXPECT_EQ(c["hbm_bytes_read"], 16 * 128 * 128 * 4);
  EXPECT_EQ(c["hbm_bytes_written"], 4 * 128 * 128 * 4);
  // VMEM: three double-buffered 64 KiB blocks and the 64 KiB accumulator.
  EXPECT_EQ(c["vmem_bytes"], 2 * 3 * 65536 + 65536);
  double memory = (16 + 4) * 65536 / kV5eBandwidth;  // 1.60 us
  EXPECT_NEAR(c["memory_seconds"].get<double>(), memory, 1e-15);
  EXPECT_NEAR(c["overhead_seconds"].get<double>(), 8 * kStep, 1e-15);
  // The products take 0.17 us at the peak: the 8 steps (2.8 us) outweigh the work.
  EXPECT_LT(c["compute_seconds"].get<double>(), memory);
  EXPECT_EQ(c["bound"], "per-step overhead");
  EXPECT_NEAR(c["bound_seconds"].get<double>(), memory + 8 * kStep, 1e-15);
  EXPECT_NEAR(c["intensity"].get<double>(), c["flops"].get<double>() / ((16 + 4) * 65536), 1e-9);
}

TEST(Roofline, VectorAddTwoBlockSizesByHand) {
  json j = Roofline("vector_add.py");
  ASSERT_EQ(j["calls"].size(), 2u);
  double bytes = 3.0 * 4 * (1 << 20);  // read x and y, write the sum: 12 MiB
  for (const json& c : j["calls"]) {
    EXPECT_EQ(c["flops"], 1 << 20);
    EXPECT_EQ(c["mxu_flops"], 0);
    EXPECT_EQ(c["hbm_bytes_read"], 8 << 20);
    EXPECT_EQ(c["hbm_bytes_written"], 4 << 20);
    EXPECT_NEAR(c["intensity"].get<double>(), 1.0 / 12, 1e-12);  // one add per 12 bytes
    EXPECT_NEAR(c["memory_seconds"].get<double>(), bytes / kV5eBandwidth, 1e-15);  // 15.3 us
  }
  // 2^20 / 8192 = 128 steps cost 44.8 us, three times the memory time; 8 steps cost 2.8 us.
  EXPECT_EQ(j["calls"][0]["grid_steps"], 128);
  EXPECT_EQ(j["calls"][0]["bound"], "per-step overhead");
  EXPECT_NEAR(j["calls"][0]["bound_seconds"].get<double>(), bytes / kV5eBandwidth + 128 * kStep,
              1e-15);
  EXPECT_EQ(j["calls"][1]["grid_steps"], 8);
  EXPECT_EQ(j["calls"][1]["bound"], "memory");
  EXPECT_NEAR(j["calls"][1]["bound_seconds"].get<double>(), bytes / kV5eBandwidth + 8 * kStep,
              1e-15);
  EXPECT_NEAR(j["total_seconds"].get<double>(), 2 * bytes / kV5eBandwidth + 136 * kStep, 1e-15);

  // TPU v6e: 1.64e12 bytes/s halves the memory time; a 1 us step cost changes the overhead.
  json v6e = Roofline("vector_add.py --tpu v6e --step-us 1");
  EXPECT_EQ(v6e["tpu"], "v6e");
  EXPECT_NEAR(v6e["calls"][1]["memory_seconds"].get<double>(), bytes / 1.64e12, 1e-15);
  EXPECT_NEAR(v6e["calls"][1]["overhead_seconds"].get<double>(), 8e-6, 1e-15);
}

TEST(Roofline, RepeatedMatmulIsComputeBound) {
  json j = Roofline("repeated_matmul.py");
  ASSERT_EQ(j["calls"].size(), 1u);
  const json& c = j["calls"][0];
  EXPECT_EQ(c["grid_steps"], 1);
  EXPECT_EQ(c["mxu_flops"], 64LL * 2 * 256 * 256 * 256);  // 2.15 G
  EXPECT_EQ(c["hbm_bytes_read"], 256 * 256 * 4);
  EXPECT_EQ(c["hbm_bytes_written"], 256 * 256 * 4);
  // 2.15 GFLOP at 197 TFLOP/s is 10.9 us; the 512 KiB move in 0.64 us.
  EXPECT_EQ(c["bound"], "compute");
  EXPECT_NEAR(c["bound_seconds"].get<double>(), 64.0 * 2 * 256 * 256 * 256 / kV5eFlops + kStep,
              1e-9);
  EXPECT_GT(c["intensity"].get<double>(), j["ridge_flops_per_byte"].get<double>());
}

TEST(Roofline, MegacoreSplitByHand) {
  json j = Roofline("megacore_add.py --tpu v5p --cores 2");
  ASSERT_EQ(j["calls"].size(), 1u);
  const json& c = j["calls"][0];
  // Two TensorCores of a v5p (2.46e12 HBM bytes/s per chip) share the 3 steps as 2 + 1: the
  // busier one pays 2 steps of overhead. 2 inputs and 1 output of 3072 floats move 36 KiB.
  EXPECT_EQ(c["cores"], 2);
  EXPECT_EQ(c["grid_steps"], 3);
  EXPECT_EQ(c["busiest_core_steps"], 2);
  EXPECT_EQ(c["hbm_bytes_read"].get<int64_t>() + c["hbm_bytes_written"].get<int64_t>(),
            3 * 3072 * 4);
  EXPECT_NEAR(c["overhead_seconds"].get<double>(), 2 * kStep, 1e-15);
  EXPECT_NEAR(c["memory_seconds"].get<double>(), 3 * 3072 * 4 / 2.46e12, 1e-15);
}

TEST(Roofline, TextAndSvgGoldens) {
  Result text = RunCli("roofline tiled_matmul.py");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  ExpectGolden("tiled_matmul.txt", text.out);
  ScratchDir scratch;
  fs::path svg = scratch.path() / "vector_add.svg";
  Result wrote = RunCli("roofline vector_add.py --no-plot --svg '" + svg.string() + "'");
  EXPECT_EQ(wrote.exit_code, 0) << wrote.err;
  std::string drawn = Read(svg);
  EXPECT_EQ(drawn.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  ExpectGolden("vector_add.svg", drawn);
}

TEST(Roofline, Errors) {
  Result chip = RunCli("roofline tiled_matmul.py --tpu v9");
  EXPECT_EQ(chip.exit_code, 64);
  EXPECT_NE(chip.err.find("`--tpu` is one of v2, v3"), std::string::npos) << chip.err;
  Result cores = RunCli("roofline tiled_matmul.py --cores 2");
  EXPECT_EQ(cores.exit_code, 64);
  EXPECT_NE(cores.err.find("megacore"), std::string::npos) << cores.err;
  Result missing = RunCli("roofline no_such_file.py");
  EXPECT_EQ(missing.exit_code, 74);
  ScratchDir scratch;
  fs::path broken = scratch.path() / "broken.py";
  std::ofstream(broken) << "import jax.numpy as jnp\nprint(jnp.ones(3) + jnp.ones(4))\n";
  Result error = RunCli("roofline '" + broken.string() + "'");
  EXPECT_EQ(error.exit_code, 70);
  EXPECT_NE(error.err.find("did not run to the end"), std::string::npos) << error.err;
}

TEST(Roofline, GenerationTableAndEveryGeneration) {
  Result table = RunCli("roofline --tpus");
  EXPECT_EQ(table.exit_code, 0) << table.err;
  // v5e: one TensorCore, 197 TFLOP/s and 820 GB/s, so its ridge point is 240 flop/B.
  EXPECT_NE(table.out.find("  v5e       1        197 T        394 T    17.2 GB       820 G    "
                           "128 MiB       240            197 T\n"),
            std::string::npos)
      << table.out;
  // Every generation from v4 on from one run: the 8-step vector add is memory bound everywhere;
  // on v5e its bound is 12 MiB / 820 GB/s + 8 x 0.35 us = 18.1 us.
  Result all = RunCli("roofline vector_add.py --tpu all");
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("  v5e      240  60.1 µs, per-step overhead    18.1 µs, memory"),
            std::string::npos)
      << all.out;
  for (const char* chip : {"  v4 ", "  v5p ", "  v6e ", "  7x "}) {
    EXPECT_NE(all.out.find(chip), std::string::npos) << chip << "\n" << all.out;
  }
}

TEST(Tune, SweepRanksRejectsAndWritesATable) {
  ScratchDir scratch;
  const fs::path& dir = scratch.path();
  Result r = RunCli(
      "tune tiled_matmul.py --param bm=4,128,256 --param bk=128,256 --shapes "
      "'M=256,N=256,K=256' --out '" +
      (dir / "tuned").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Progress: one line per configuration.
  EXPECT_NE(r.err.find("[6/6] M=256 N=256 K=256 bm=256 bk=256"), std::string::npos) << r.err;
  json j = json::parse(Read(dir / "tuned.json"), nullptr, false);
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j["results"].size(), 6u);
  for (const json& result : j["results"]) {
    bool lint = result["params"]["bm"] == "4";  // a (4, 128) block breaks the (8, 128) rule
    EXPECT_EQ(result["ok"], !lint) << result.dump();
    if (lint) {
      EXPECT_NE(result["reason"].get<std::string>().find("TPU tiling rule"), std::string::npos);
    }
    if (result["rank"] == 1) {
      // bm = bk = 256, bn = 128: grid (1, 2, 1); x is fetched once (256 KiB), y's two column
      // blocks once each (2 x 128 KiB), the output written once (256 KiB).
      EXPECT_EQ(result["params"]["bm"], "256");
      EXPECT_EQ(result["params"]["bk"], "256");
      EXPECT_EQ(result["grid_steps"], 2);
      EXPECT_EQ(result["hbm_bytes"], 3 * 262144);
      EXPECT_NEAR(result["bound_seconds"].get<double>(), 3 * 262144 / kV5eBandwidth + 2 * kStep,
                  1e-15);
    }
  }
  std::string csv = Read(dir / "tuned.csv");
  EXPECT_EQ(csv.rfind("tpu,dtype,M,N,K,bm,bk,status,rank,bound_seconds,", 0), 0u) << csv;
  std::string module = Read(dir / "tuned.py");
  EXPECT_NE(module.find("(\"v5e\", \"float32\", ((\"K\", 256), (\"M\", 256), (\"N\", 256))): "
                        "{\"bm\": 256, \"bk\": 256}"),
            std::string::npos)
      << module;
  EXPECT_NE(module.find("DEFAULT_BLOCK_SIZES = {\"bm\": 128, \"bk\": 128}"), std::string::npos);
  // The table is a module a program imports: 200 rounds up to the 256 bucket; an unknown shape
  // or generation falls back to the program's own block sizes.
  std::ofstream(dir / "use_table.py")
      << "from tuned import infer_block_sizes\n"
         "print(infer_block_sizes('v5e', 'float32', M=200, N=256, K=256))\n"
         "print(infer_block_sizes('v5e', 'float32', M=4096, N=256, K=256))\n"
         "print(infer_block_sizes('v6e', 'float32', M=256, N=256, K=256))\n";
  Result used = RunCli("run use_table.py", dir);
  EXPECT_EQ(used.exit_code, 0) << used.err;
  EXPECT_EQ(used.out, "{'bm': 256, 'bk': 256}\n{'bm': 128, 'bk': 128}\n{'bm': 128, 'bk': 128}\n");
}

TEST(Tune, Errors) {
  Result no_param = RunCli("tune tiled_matmul.py");
  EXPECT_EQ(no_param.exit_code, 64);
  Result unknown = RunCli("tune tiled_matmul.py --param block=128,256");
  EXPECT_EQ(unknown.exit_code, 64);
  EXPECT_NE(unknown.err.find("no module-level assignment `block = ...`"), std::string::npos)
      << unknown.err;
  Result shape = RunCli("tune tiled_matmul.py --param bm=128 --shapes 'M=big'");
  EXPECT_EQ(shape.exit_code, 64);
  // Every configuration rejected: exit 1, and the table holds only the defaults.
  Result none = RunCli("tune tiled_matmul.py --param bm=4");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.out.find("TUNED_BLOCK_SIZES = {\n}"), std::string::npos) << none.out;
}

}  // namespace

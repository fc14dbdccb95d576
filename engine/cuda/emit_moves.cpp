// The CUDA emitter's reductions, constants and data movement (see emit.h), each as strided loops
// over the result's elements; emit_prims.cpp has the elementwise ops, emit_dot.cpp the products.
#include <fmt/format.h>

#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <variant>

#include "array/creation.h"
#include "cuda/emit_internal.h"
#include "support/check.h"

namespace pz::cuda::detail {

namespace {

int64_t FloorPow2(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

int64_t CeilPow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

}  // namespace

Emitter::ReduceShape Emitter::ShapeReduce(int64_t results, int64_t reduced, int64_t threads) {
  ReduceShape shape;
  // The whole block per result when a warp each would leave most warps idle and each lane
  // would fold many elements: a lane's R / 32 elements against the block's K (R / T + ~20) for
  // its K results (the barriers and shuffles of each counted as some 20 elements).
  if (threads >= 64 && 32 * results < threads &&
      reduced * (threads - 32 * results) > 640 * results * threads) {
    shape.block = true;
    return shape;
  }
  // Else a group of lanes per result: as many as the block has threads for, or more where that
  // leaves a lane more than 64 elements to fold (the groups then take turns); never more lanes
  // than elements, nor more than a warp.
  int64_t lanes = std::max(FloorPow2(std::max<int64_t>(threads / std::max<int64_t>(results, 1), 1)),
                           CeilPow2((reduced + 63) / 64));
  shape.group = std::min<int64_t>({lanes, CeilPow2(std::max<int64_t>(reduced, 1)), 32});
  return shape;
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
  const auto& attrs = std::get<array::ReduceAttrs>(instr.prim.attrs);
  if (attrs.axes && (!arg || attrs.axes->size() == 1)) {
    reduced.assign(shape.size(), false);
    for (int axis : *attrs.axes) {
      if (axis < 0) axis += static_cast<int>(shape.size());
      reduced[static_cast<size_t>(axis)] = true;
    }
  }
  Shape kept_shape, red_shape;
  std::vector<int64_t> kept_strides, red_strides;
  Shape strides = Strides(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    (reduced[d] ? red_shape : kept_shape).push_back(shape[d]);
    (reduced[d] ? red_strides : kept_strides).push_back(strides[d]);
  }
  // The partial's type and identity, the statement folding element pz_x (index pz_r) into
  // pz_acc, the lambda merging two partials, and the result's register value from a partial.
  bool f = IsFloat(id);
  std::string type, identity, fold, merge;
  std::function<std::string(const std::string&)> result;
  std::string x = "pz_x";
  switch (prim) {
    case Prim::kReduceSum:
    case Prim::kReduceProd: {
      // Floats accumulate in float; integers in 64 bits, wrapping as the result dtype does.
      const char* op = prim == Prim::kReduceSum ? "+" : "*";
      identity = prim == Prim::kReduceSum ? "0" : "1";
      if (IsFloat(od)) {
        type = "float";
        fold = fmt::format("pz_acc = pz_acc {} {};", op, Cast(id, od, x));
        merge = fmt::format("[](float a, float b) {{ return a {} b; }}", op);
        result = [od](const std::string& acc) { return Cast(DType::kFloat32, od, acc); };
      } else {
        type = "long long";
        auto wrap = [op](const std::string& a, const std::string& b) {
          return fmt::format("(long long)((unsigned long long)({}) {} (unsigned long long)({}))", a,
                             op, b);
        };
        fold = fmt::format("pz_acc = {};", wrap("pz_acc", Cast(id, od, x)));
        merge = fmt::format("[](long long a, long long b) {{ return {}; }}", wrap("a", "b"));
        result = [od](const std::string& acc) { return Normalize(od, acc); };
      }
      break;
    }
    case Prim::kReduceMax:
    case Prim::kReduceMin: {
      bool max = prim == Prim::kReduceMax;
      if (f) {
        type = "float";
        identity = FloatLit(max ? -std::numeric_limits<float>::infinity()
                                : std::numeric_limits<float>::infinity());
        const char* pick = max ? "pz_fmax" : "pz_fmin";
        fold = fmt::format("pz_acc = {}(pz_acc, {});", pick, x);
        merge = fmt::format("[](float a, float b) {{ return {}(a, b); }}", pick);
        result = [id, od](const std::string& acc) { return Cast(id, od, acc); };
      } else {
        // Booleans as int (0 or 1), which the shuffles carry.
        bool boolean = id == DType::kBool;
        type = boolean ? "int" : RegType(id);
        identity = boolean ? (max ? "0" : "1") : IntLit(max ? MinOf(id) : MaxOf(id));
        const char* better = max ? ">" : "<";
        fold = fmt::format("if ({} {} pz_acc) pz_acc = {};", x, better, x);
        merge = fmt::format("[]({0} a, {0} b) {{ return b {1} a ? b : a; }}", type, better);
        result = [id, od, boolean](const std::string& acc) {
          return Cast(id, od, boolean ? "(" + acc + " != 0)" : acc);
        };
      }
      break;
    }
    case Prim::kReduceOr:
    case Prim::kReduceAnd: {
      bool any = prim == Prim::kReduceOr;
      const char* op = any ? "||" : "&&";
      type = "int";
      identity = any ? "0" : "1";
      fold = fmt::format("pz_acc = pz_acc {} ({});", op, x);
      merge = fmt::format("[](int a, int b) {{ return (int)(a {} b); }}", op);
      result = [od](const std::string& acc) {
        return Cast(DType::kBool, od, "(" + acc + " != 0)");
      };
      break;
    }
    case Prim::kArgmax:
    case Prim::kArgmin: {
      const char* max = prim == Prim::kArgmax ? "true" : "false";
      std::string best = id == DType::kBool ? "int" : RegType(id);
      type = fmt::format("pz_arg<{}>", best);
      identity = type + "{0, 0, -1}";
      fold = fmt::format("pz_acc = pz_arg_merge(pz_acc, {}{{({}){}, {}, pz_r}}, {});", type, best,
                         x, f ? "(int)isnan(" + x + ")" : "0", max);
      merge = fmt::format("[]({0} a, {0} b) {{ return pz_arg_merge(a, b, {1}); }}", type, max);
      result = [od](const std::string& acc) {
        return Cast(DType::kInt32, od, "(int)" + acc + ".at");
      };
      break;
    }
    default:
      Fail(instr, fmt::format("the CUDA backend cannot run `{}` yet", array::PrimName(prim)));
  }
  const int64_t results = Count(kept_shape), count = Count(red_shape);
  const bool scalar = TypeOf(out).shape.empty();
  // Folds the elements of result `o` from pz_r = `first` on, `step` apart, into pz_acc.
  auto fold_elements = [&](const std::string& o, const std::string& first,
                           const std::string& step) {
    std::vector<std::string> kc = Unravel(w_, kept_shape, o, "k");
    w_.Line(fmt::format("const long long pz_base = {};", Affine("", kc, kept_strides)));
    w_.Open(fmt::format("for (long long pz_r = {}; pz_r < {}; pz_r += {}) {{", first, count, step));
    std::vector<std::string> rc = Unravel(w_, red_shape, "pz_r", "r");
    w_.Line(fmt::format(
        "const {} pz_x = {};", RegType(id),
        LoadExpr(id, fmt::format("{}[pz_base + {}]", Name(in), Affine("", rc, red_strides)))));
    w_.Line(fold);
    w_.Close();
  };
  auto store = [&](const std::string& o, const std::string& acc) {
    return scalar ? fmt::format("{} = {};", Name(out), result(acc))
                  : fmt::format("{}[{}] = {};", Name(out), o, StoreExpr(od, result(acc)));
  };
  // The forms are planned for the kernel's threads; they run with any block whose threads are a
  // multiple of 32 or a power of two below 32 (the host device's blocks of 4), a warp then
  // holding all of the block's threads.
  ReduceShape form = ShapeReduce(results, count, threads_);
  if (form.block) {
    PZ_CHECK(!reduce_at_.empty());  // Run() reserves the partials for every block form
    // The block per result: each thread folds every blockDim.x-th element, each warp merges its
    // lanes' partials, the first warp those of the warps (through shared memory, alternate halves
    // for consecutive results).
    w_.Open("{");
    w_.Line(fmt::format("{0}* const pz_part = ({0}*){1};", type, reduce_at_));
    w_.Line("const int pz_lane = threadIdx.x & 31, pz_warp = threadIdx.x >> 5;");
    w_.Line("const unsigned pz_width = blockDim.x < 32 ? blockDim.x : 32;");
    w_.Open(fmt::format("for (long long pz_o = 0; pz_o < {}; ++pz_o) {{", results));
    w_.Line(fmt::format("{}* const pz_half = pz_part + (pz_o & 1) * 33;", type));
    w_.Line(fmt::format("{} pz_acc = {};", type, identity));
    fold_elements("pz_o", "threadIdx.x", "blockDim.x");
    w_.Line(fmt::format("pz_acc = pz_group_reduce(pz_acc, pz_width, {});", merge));
    w_.Line("if (pz_lane == 0) pz_half[pz_warp] = pz_acc;");
    Sync();
    w_.Open("if (pz_warp == 0) {");
    w_.Line(fmt::format("pz_acc = pz_lane < (int)((blockDim.x + 31) >> 5) ? pz_half[pz_lane] : {};",
                        identity));
    w_.Line(fmt::format("pz_acc = pz_group_reduce(pz_acc, pz_width, {});", merge));
    w_.Line(scalar ? "if (pz_lane == 0) pz_half[32] = pz_acc;"
                   : "if (pz_lane == 0) " + store("pz_o", "pz_acc"));
    w_.Close();
    if (scalar) {
      Sync();
      w_.Line(store("pz_o", "pz_half[32]"));
    }
    w_.Close();
    w_.Close();
    if (!scalar) Sync();
    return;
  }
  if (form.group > 1) {
    // A group of lanes per result, each lane folding every group-th element; the groups take
    // turns where there are more results than groups. A scalar is computed by every group, so
    // that each thread has it.
    int64_t g = form.group;
    w_.Open("{");
    w_.Line(fmt::format("const unsigned pz_width = blockDim.x < {0} ? blockDim.x : {0};", g));
    w_.Line("const int pz_lane = threadIdx.x & (pz_width - 1);");
    if (scalar) {
      w_.Open("{");
    } else {
      w_.Open(fmt::format(
          "for (long long pz_o0 = 0; pz_o0 < {}; pz_o0 += blockDim.x / pz_width) {{", results));
    }
    // (A fold whose elements do not depend on the result, a scalar's, never reads pz_o.)
    w_.Line(scalar ? "[[maybe_unused]] const long long pz_o = 0;"
                   : "const long long pz_o = pz_o0 + threadIdx.x / pz_width;");
    w_.Line(fmt::format("{} pz_acc = {};", type, identity));
    w_.Open(fmt::format("if (pz_o < {}) {{", results));
    fold_elements("pz_o", "pz_lane", "pz_width");
    w_.Close();
    w_.Line(fmt::format("pz_acc = pz_group_reduce(pz_acc, pz_width, {});", merge));
    w_.Line(scalar ? store("pz_o", "pz_acc")
                   : fmt::format("if (pz_lane == 0 && pz_o < {}) {}", results,
                                 store("pz_o", "pz_acc")));
    w_.Close();
    w_.Close();
    if (!scalar) Sync();
    return;
  }
  // One thread per result, folding its elements in order.
  ForEachElement(out, [&](Writer& w) -> std::string {
    w.Line(fmt::format("{} pz_acc = {};", type, identity));
    // (Nor does one whose result has a single element, scalar or not.)
    w.Line(fmt::format("[[maybe_unused]] const long long pz_o = {};", scalar ? "0" : "pz_i"));
    fold_elements("pz_o", "0", "1");
    return result("pz_acc");
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
  w_.Line(ElementLoop(n) +
          fmt::format(" {}[pz_i] = ({}){}[pz_i];", Name(out), StorageType(d), table));
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
        w_.Open(ElementLoop(Count(ps)) + " {");
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

}  // namespace pz::cuda::detail

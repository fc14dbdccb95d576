// The CUDA emitter's reductions, constants and data movement (see emit.h), each as strided loops
// over the result's elements; emit_prims.cpp has the elementwise ops, emit_dot.cpp the products.
#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <optional>
#include <variant>

#include "array/creation.h"
#include "cuda/emit_internal.h"

namespace pz::cuda::detail {

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
    case Prim::kReduceProd: {
      // Floats accumulate in float; integers in 64 bits, wrapping as the result dtype does.
      const char* op = prim == Prim::kReduceSum ? "+" : "*";
      acc_type = IsFloat(od) ? "float" : "long long";
      init = prim == Prim::kReduceSum ? "0" : "1";
      combine = IsFloat(od) ? fmt::format("pz_acc = pz_acc {} {};", op, Cast(id, od, x))
                            : fmt::format(
                                  "pz_acc = (long long)((unsigned long long)pz_acc {} "
                                  "(unsigned long long)({}));",
                                  op, Cast(id, od, x));
      break;
    }
    case Prim::kReduceMax:
    case Prim::kReduceMin: {
      bool max = prim == Prim::kReduceMax;
      acc_type = RegType(id);
      if (f) {
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

// The reverse-mode rules of the primitives (vjp.h). Every rule is written with the eager ops
// themselves, so that a cotangent is computed in the dtype JAX computes it in.
#include "array/vjp.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

#include "array/creation.h"

namespace pz::array {

namespace {

using Cts = std::vector<std::optional<Array>>;

Array Const(double value, DType dtype) {
  Array c = Array::Scalar(dtype, value);
  c.set_weak_type(true);
  return c;
}
Array Add(const Array& a, const Array& b) { return Binary(BinaryOp::kAdd, a, b); }
Array Sub(const Array& a, const Array& b) { return Binary(BinaryOp::kSub, a, b); }
Array Mul(const Array& a, const Array& b) { return Binary(BinaryOp::kMul, a, b); }
Array Div(const Array& a, const Array& b) { return Binary(BinaryOp::kDiv, a, b); }
Array Neg(const Array& a) { return Unary(UnaryOp::kNeg, a); }
Array Scale(const Array& a, double c) { return Mul(a, Const(c, a.dtype())); }

// The cotangent of operand `x` from `ct`, a cotangent of the (broadcast) result, when `x`
// carries one.
std::optional<Array> To(const Array& x, const Array& ct) {
  if (!Differentiable(x.dtype())) return std::nullopt;
  return Unbroadcast(ct, x.shape(), x.dtype());
}

// A zero cotangent for `x`, in the cotangent's dtype.
Array ZerosFor(const Array& x, DType dtype) { return Zeros(x.shape(), dtype); }

// The inverse of an axis permutation.
std::vector<int> Inverse(const std::vector<int>& perm) {
  std::vector<int> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<size_t>(perm[i])] = static_cast<int>(i);
  return inverse;
}

std::vector<int> Sorted(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v;
}

int PositionOf(const std::vector<int>& v, int value) {
  return static_cast<int>(std::find(v.begin(), v.end(), value) - v.begin());
}

// The operand dims that are neither batch nor contracting, in order.
std::vector<int> FreeDims(int rank, const std::vector<int>& batch,
                          const std::vector<int>& contracting) {
  std::vector<int> free;
  for (int d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) == contracting.end()) {
      free.push_back(d);
    }
  }
  return free;
}

// dot_general's cotangent for one operand. `x` is the operand, `y` the other one; `xc`, `xb`
// (and `yc`, `yb`) their contracting and batch dims; `x_first` whether x is the lhs (the result
// holds the batch dims, then lhs's free dims, then rhs's).
Array DotTranspose(const Array& g, const Array& x, const Array& y, const std::vector<int>& xc,
                   const std::vector<int>& xb, const std::vector<int>& yc,
                   const std::vector<int>& yb, bool x_first) {
  int nb = static_cast<int>(xb.size());
  std::vector<int> xf = FreeDims(x.rank(), xb, xc);
  std::vector<int> yf = FreeDims(y.rank(), yb, yc);
  // g's dims holding x's free dims and y's free dims.
  int y_free_start = x_first ? nb + static_cast<int>(xf.size()) : nb;
  DotDimensionNumbers dims;
  for (int i = 0; i < nb; ++i) {
    dims.lhs_batch.push_back(i);
    dims.rhs_batch.push_back(yb[static_cast<size_t>(i)]);
  }
  for (size_t j = 0; j < yf.size(); ++j) {
    dims.lhs_contracting.push_back(y_free_start + static_cast<int>(j));
    dims.rhs_contracting.push_back(yf[j]);
  }
  Array other = y.dtype() == g.dtype() ? y : y.AsType(g.dtype());
  // The product holds the batch dims, g's dims of x's free dims, then y's remaining dims (its
  // contracting dims, in increasing order).
  Array product = DotGeneral(g, other, dims, g.dtype(), "jax.grad");
  std::vector<int> y_rest = Sorted(yc);
  std::vector<int> perm(static_cast<size_t>(x.rank()));
  for (int d = 0; d < x.rank(); ++d) {
    int at = PositionOf(xb, d);
    if (at < nb) {
      perm[static_cast<size_t>(d)] = at;
      continue;
    }
    at = PositionOf(xf, d);
    if (at < static_cast<int>(xf.size())) {
      perm[static_cast<size_t>(d)] = nb + at;
      continue;
    }
    int k = PositionOf(xc, d);  // x's contracting dim k pairs with y's yc[k]
    perm[static_cast<size_t>(d)] =
        nb + static_cast<int>(xf.size()) + PositionOf(y_rest, yc[static_cast<size_t>(k)]);
  }
  Array ct = Transpose(product, perm);
  return ct.dtype() == x.dtype() ? ct : ct.AsType(x.dtype());
}

// The index of a Slice / Gather / Scatter with its index arrays filled in from `in` (from
// operand `first` on).
std::vector<Index> FillIndex(std::vector<Index> index, const std::vector<Array>& in, size_t first) {
  for (Index& ix : index) {
    if (ix.kind == Index::Kind::kArray) ix.array = in.at(first++);
  }
  return index;
}

[[noreturn]] void Unsupported(const PrimCall& call, std::string why) {
  throw VjpUnsupported{std::string(PrimName(call.prim)), std::move(why)};
}

// The rules of the unary elementwise primitives: d(out)/d(x) times g, from x, the result y and g.
std::optional<Array> UnaryVjp(const PrimCall& call, const Array& x, const Array& y,
                              const Array& g) {
  switch (call.prim) {
    case Prim::kNeg:
      return Neg(g);
    case Prim::kCopy:
      return g;
    case Prim::kAbs:  // g where x >= 0 (at 0 too, as JAX), else -g
      return Where(Binary(BinaryOp::kGe, x, Const(0, x.dtype())), g, Neg(g));
    case Prim::kExp:
      return Mul(g, y);
    case Prim::kExp2:
      return Mul(g, Scale(y, std::numbers::ln2));
    case Prim::kLog:
      return Div(g, x);
    case Prim::kLog1p:
      return Div(g, Add(x, Const(1, x.dtype())));
    case Prim::kExpm1:
      return Mul(g, Add(y, Const(1, y.dtype())));
    case Prim::kSqrt:
      return Div(g, Scale(y, 2));
    case Prim::kRsqrt:
      return Mul(g, Scale(Div(y, x), -0.5));
    case Prim::kTanh:  // (g + g y)(1 - y), as JAX writes it: no cancellation in 1 - y^2
      return Mul(Add(g, Mul(g, y)), Sub(Const(1, y.dtype()), y));
    case Prim::kSin:
      return Mul(g, Unary(UnaryOp::kCos, x));
    case Prim::kCos:
      return Neg(Mul(g, Unary(UnaryOp::kSin, x)));
    case Prim::kTan:
      return Mul(g, Add(Const(1, y.dtype()), Mul(y, y)));
    case Prim::kErf:
      return Mul(g, Scale(Unary(UnaryOp::kExp, Neg(Mul(x, x))), 2 / std::sqrt(std::numbers::pi)));
    case Prim::kLogistic:
      return Mul(g, Mul(y, Sub(Const(1, y.dtype()), y)));
    case Prim::kSquare:
      return Mul(g, Scale(x, 2));
    case Prim::kReciprocal:
      return Neg(Mul(g, Mul(y, y)));
    case Prim::kSign:
    case Prim::kFloor:
    case Prim::kCeil:
    case Prim::kRound:
      return Zeros(x.shape(), g.dtype());
    default:
      Unsupported(call, "it has no reverse-mode rule");
  }
}

// max / min: the cotangent goes to the operand that was chosen, halved where both were equal.
std::pair<Array, Array> ChooserVjp(const Array& x, const Array& y, const Array& out,
                                   const Array& g) {
  auto share = [&](const Array& mine, const Array& other) {
    Array one = Const(1, g.dtype()), half = Const(0.5, g.dtype()), zero = Const(0, g.dtype());
    Array chosen = Binary(BinaryOp::kEq, mine, out);
    Array tie = Binary(BinaryOp::kEq, other, out);
    return Mul(g, Where(chosen, Where(tie, half, one), zero));
  };
  return {share(x, y), share(y, x)};
}

Cts BinaryVjp(const PrimCall& call, const Array& x, const Array& y, const Array& out,
              const Array& g) {
  switch (call.prim) {
    case Prim::kAdd:
      return {To(x, g), To(y, g)};
    case Prim::kSub:
      return {To(x, g), To(y, Neg(g))};
    case Prim::kMul:
      return {To(x, Mul(g, y)), To(y, Mul(g, x))};
    case Prim::kDiv:
      return {To(x, Div(g, y)), To(y, Neg(Div(Mul(g, out), y)))};
    case Prim::kFloorDivide:
      return {To(x, Zeros(out.shape(), g.dtype())), To(y, Zeros(out.shape(), g.dtype()))};
    case Prim::kRemainder:
      // x - y * floor(x / y): 1 for x, -floor(x / y) for y.
      return {To(x, g), To(y, Neg(Mul(g, Unary(UnaryOp::kFloor, Div(x, y)))))};
    case Prim::kPow: {
      std::optional<Array> dx, dy;
      if (Differentiable(x.dtype())) {
        // y * x^(y - 1), zero where y is 0 (JAX's rule: no NaN from 0 * inf at x = 0).
        Array ym1 = Sub(y, Const(1, y.dtype()));
        Array d = Mul(y, Binary(BinaryOp::kPow, x, ym1));
        d = Where(Binary(BinaryOp::kEq, y, Const(0, y.dtype())), Const(0, d.dtype()), d);
        dx = To(x, Mul(g, d));
      }
      if (Differentiable(y.dtype())) {
        // log(x) x^y, with log(1) where x is 0.
        Array safe = Where(Binary(BinaryOp::kEq, x, Const(0, x.dtype())), Const(1, x.dtype()), x);
        dy = To(y, Mul(g, Mul(Unary(UnaryOp::kLog, safe), out)));
      }
      return {dx, dy};
    }
    case Prim::kMax:
    case Prim::kMin: {
      auto [dx, dy] = ChooserVjp(x, y, out, g);
      return {To(x, dx), To(y, dy)};
    }
    case Prim::kAtan2: {
      Array denom = Add(Mul(x, x), Mul(y, y));
      return {To(x, Mul(g, Div(y, denom))), To(y, Neg(Mul(g, Div(x, denom))))};
    }
    default:
      return {std::nullopt, std::nullopt};  // integer, boolean and comparison results
  }
}

// reduce_max / reduce_min: the cotangent is shared equally between the elements equal to the
// result.
Array ChooserReduceVjp(const Array& x, const Array& out, const Array& g, const ReduceAttrs& a) {
  Shape kept = x.shape();
  if (a.axes) {
    for (int axis : *a.axes) kept[static_cast<size_t>(axis)] = 1;
  } else {
    std::fill(kept.begin(), kept.end(), 1);
  }
  Array out_b = Reshape(out, kept);
  Array g_b = Reshape(g, kept);
  Array where = Binary(BinaryOp::kEq, x, out_b).AsType(g.dtype());
  Array counts = Reduce(ReduceOp::kSum, where, a.axes, true, std::nullopt);
  return Mul(Div(where, counts), g_b);
}

}  // namespace

bool Differentiable(DType dtype) { return IsFloating(dtype); }

Array Unbroadcast(const Array& ct, const Shape& shape, DType dtype) {
  int lead = ct.rank() - static_cast<int>(shape.size());
  std::vector<int> axes;
  for (int i = 0; i < lead; ++i) axes.push_back(i);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1 && ct.shape()[static_cast<size_t>(lead) + i] != 1) {
      axes.push_back(lead + static_cast<int>(i));
    }
  }
  Array summed = axes.empty() ? ct : Reduce(ReduceOp::kSum, ct, axes, false, std::nullopt);
  if (!SameDims(summed.shape(), shape)) summed = Reshape(summed, shape);
  if (summed.dtype() != dtype) summed = summed.AsType(dtype);
  summed.set_weak_type(false);
  return summed;
}

std::vector<std::optional<Array>> Vjp(const PrimCall& call, const std::vector<Array>& in,
                                      const std::vector<Array>& outputs,
                                      const std::vector<std::optional<Array>>& output_cts) {
  Cts none(in.size());
  bool any = std::any_of(output_cts.begin(), output_cts.end(),
                         [](const std::optional<Array>& ct) { return ct.has_value(); });
  if (!any) return none;
  if (call.prim == Prim::kSplit) {
    // The parts' cotangents joined again, zeros for the parts that had none.
    DType dtype = std::find_if(output_cts.begin(), output_cts.end(),
                               [](const std::optional<Array>& ct) { return ct.has_value(); })
                      ->value()
                      .dtype();
    std::vector<Array> parts;
    for (size_t k = 0; k < outputs.size(); ++k) {
      parts.push_back(output_cts[k] ? *output_cts[k] : ZerosFor(outputs[k], dtype));
    }
    Cts cts = none;
    cts[0] = To(in[0], Concatenate(parts, std::get<SplitAttrs>(call.attrs).axis));
    return cts;
  }
  if (!output_cts.at(0)) return none;
  const Array& g = *output_cts[0];
  const Array& out = outputs.at(0);
  const Array& x = in.at(0);
  Cts cts = none;
  if (UnaryOpOf(call.prim)) {
    if (!Differentiable(x.dtype()) || !Differentiable(out.dtype())) return none;
    cts[0] = To(x, *UnaryVjp(call, x, out, g));
    return cts;
  }
  if (BinaryOpOf(call.prim)) {
    if (!Differentiable(out.dtype())) return none;
    return BinaryVjp(call, x, in.at(1), out, g);
  }
  switch (call.prim) {
    case Prim::kIntegerPow: {
      int64_t y = std::get<IntegerPowAttrs>(call.attrs).y;
      if (y == 0) return {To(x, Zeros(out.shape(), g.dtype()))};
      Array d = y == 1 ? Const(1, x.dtype()) : Scale(IntegerPow(x, y - 1), static_cast<double>(y));
      return {To(x, Mul(g, d))};
    }
    case Prim::kConvertElementType:
      if (!Differentiable(out.dtype())) return none;
      return {To(x, g)};
    case Prim::kSelectN: {
      // operands: predicate, on_false, on_true
      Array zero = Const(0, g.dtype());
      return {std::nullopt, To(in.at(1), Where(x, zero, g)), To(in.at(2), Where(x, g, zero))};
    }
    case Prim::kClamp: {
      // operands: lo, x, hi
      const Array& lo = x;
      const Array& v = in.at(1);
      const Array& hi = in.at(2);
      Array zero = Const(0, g.dtype());
      Array inside =
          Binary(BinaryOp::kLogicalAnd, Binary(BinaryOp::kGt, v, lo), Binary(BinaryOp::kLt, v, hi));
      return {To(lo, Where(Binary(BinaryOp::kLogicalAnd, Binary(BinaryOp::kGt, lo, v),
                                  Binary(BinaryOp::kLt, lo, hi)),
                           g, zero)),
              To(v, Where(inside, g, zero)), To(hi, Where(Binary(BinaryOp::kLt, hi, v), g, zero))};
    }
    case Prim::kReduceSum: {
      const auto& a = std::get<ReduceAttrs>(call.attrs);
      if (!Differentiable(out.dtype())) return none;
      Shape kept = x.shape();
      if (a.axes) {
        for (int axis : *a.axes) kept[static_cast<size_t>(axis)] = 1;
      } else {
        std::fill(kept.begin(), kept.end(), 1);
      }
      return {To(x, BroadcastTo(Reshape(g, kept), x.shape()))};
    }
    case Prim::kReduceMax:
    case Prim::kReduceMin:
      if (!Differentiable(out.dtype())) return none;
      return {To(x, ChooserReduceVjp(x, out, g, std::get<ReduceAttrs>(call.attrs)))};
    case Prim::kReduceOr:
    case Prim::kReduceAnd:
    case Prim::kArgmax:
    case Prim::kArgmin:
    case Prim::kArgsort:
      return none;
    case Prim::kCumsum: {
      if (!Differentiable(out.dtype())) return none;
      std::optional<int> axis = std::get<AxisAttrs>(call.attrs).axis;
      Array reversed = Flip(CumSum(Flip(g, std::nullopt), std::nullopt), std::nullopt);
      if (axis) {
        std::vector<int> along{*axis};
        reversed = Flip(CumSum(Flip(g, along), *axis), along);
      }
      return {To(x, Reshape(reversed, x.shape()))};
    }
    case Prim::kDotGeneral: {
      if (!Differentiable(out.dtype())) return none;
      const auto& d = std::get<DotAttrs>(call.attrs).dims;
      const Array& y = in.at(1);
      Cts result(2);
      if (Differentiable(x.dtype())) {
        result[0] = DotTranspose(g, x, y, d.lhs_contracting, d.lhs_batch, d.rhs_contracting,
                                 d.rhs_batch, true);
      }
      if (Differentiable(y.dtype())) {
        result[1] = DotTranspose(g, y, x, d.rhs_contracting, d.rhs_batch, d.lhs_contracting,
                                 d.lhs_batch, false);
      }
      return result;
    }
    case Prim::kReshape:
    case Prim::kSqueeze:
    case Prim::kExpandDims:
      return {To(x, Reshape(g, x.shape()))};
    case Prim::kTranspose: {
      std::optional<std::vector<int>> axes = std::get<AxesAttrs>(call.attrs).axes;
      std::vector<int> perm(static_cast<size_t>(x.rank()));
      if (axes) {
        perm = *axes;
        for (int& p : perm) p = p < 0 ? p + x.rank() : p;
      } else {
        for (int i = 0; i < x.rank(); ++i) perm[static_cast<size_t>(i)] = x.rank() - 1 - i;
      }
      return {To(x, Transpose(g, Inverse(perm)))};
    }
    case Prim::kBroadcastInDim:
      return {To(x, g)};
    case Prim::kRev:
      return {To(x, Flip(g, std::get<AxesAttrs>(call.attrs).axes))};
    case Prim::kSlice:
    case Prim::kGather: {
      if (!Differentiable(x.dtype())) return none;
      const auto& a = std::get<IndexAttrs>(call.attrs);
      std::vector<Index> index = FillIndex(a.index, in, 1);
      // A clamped read sends its cotangent to the element it read; a filled one nowhere.
      cts[0] = UpdateIndexed(Zeros(x.shape(), g.dtype()), index, g, UpdateOp::kAdd,
                             a.mode == IndexMode::kClip ? IndexMode::kClip : IndexMode::kDrop);
      cts[0] = To(x, *cts[0]);
      return cts;
    }
    case Prim::kDynamicSlice: {
      if (!Differentiable(x.dtype())) return none;
      const Shape& size = std::get<ShapeAttrs>(call.attrs).shape;
      std::vector<Index> index;
      for (int d = 0; d < x.rank(); ++d) {
        int64_t start = in.at(static_cast<size_t>(d) + 1).GetInt(0);
        int64_t dim = x.shape()[static_cast<size_t>(d)], n = size[static_cast<size_t>(d)];
        start = std::clamp<int64_t>(start, 0, dim - n);
        index.push_back(Index{.kind = Index::Kind::kSlice, .start = start, .stop = start + n});
      }
      cts[0] = To(x, UpdateIndexed(Zeros(x.shape(), g.dtype()), index, g, UpdateOp::kAdd));
      return cts;
    }
    case Prim::kScatter: {
      const auto& a = std::get<ScatterAttrs>(call.attrs);
      std::vector<Index> index = FillIndex(a.index, in, 2);
      const Array& values = in.at(1);
      if (a.op == UpdateOp::kSet) {
        cts[0] = To(x, UpdateIndexed(g, index, Const(0, g.dtype()), UpdateOp::kSet, a.mode));
      } else if (a.op == UpdateOp::kAdd) {
        cts[0] = To(x, g);
      } else {
        Unsupported(call, "only .at[...].set and .at[...].add have reverse-mode rules here");
      }
      if (Differentiable(values.dtype())) {
        try {
          cts[1] = To(values,
                      GetIndexed(g, index,
                                 a.mode == IndexMode::kClip ? IndexMode::kClip : IndexMode::kFill));
        } catch (const ArrayError&) {
          Unsupported(call, "an update with out-of-bounds indices");
        }
      }
      return cts;
    }
    case Prim::kConcatenate: {
      int axis = std::get<ConcatAttrs>(call.attrs).axis;
      if (axis < 0) axis += out.rank();
      std::vector<int64_t> points;
      int64_t at = 0;
      for (size_t k = 0; k + 1 < in.size(); ++k) {
        at += in[k].shape()[static_cast<size_t>(axis)];
        points.push_back(at);
      }
      std::vector<Array> parts = Split(g, points, axis);
      for (size_t k = 0; k < in.size(); ++k) cts[k] = To(in[k], parts[k]);
      return cts;
    }
    case Prim::kPad: {
      const PadWidth& widths = std::get<PadAttrs>(call.attrs).widths;
      std::vector<Index> index;
      for (int d = 0; d < x.rank(); ++d) {
        auto [lo, hi] = widths.at(widths.size() == 1 ? 0 : static_cast<size_t>(d));
        if (lo < 0 || hi < 0) Unsupported(call, "negative padding has no reverse-mode rule here");
        index.push_back(Index{.kind = Index::Kind::kSlice,
                              .start = lo,
                              .stop = lo + x.shape()[static_cast<size_t>(d)]});
      }
      return {To(x, GetIndexed(g, index))};
    }
    case Prim::kRoll: {
      const auto& a = std::get<RollAttrs>(call.attrs);
      std::vector<int64_t> back = a.shifts;
      for (int64_t& s : back) s = -s;
      return {To(x, Roll(g, back, a.axes))};
    }
    case Prim::kTile: {
      std::vector<int64_t> reps = std::get<TileAttrs>(call.attrs).reps;
      Shape shape = x.shape();
      size_t rank = std::max(reps.size(), shape.size());
      reps.insert(reps.begin(), rank - reps.size(), 1);
      shape.insert(shape.begin(), rank - shape.size(), 1);
      Shape split;
      std::vector<int> rep_axes;
      for (size_t i = 0; i < rank; ++i) {
        rep_axes.push_back(static_cast<int>(split.size()));
        split.push_back(reps[i]);
        split.push_back(shape[i]);
      }
      Array summed = Reduce(ReduceOp::kSum, Reshape(g, split), rep_axes, false, std::nullopt);
      return {To(x, Reshape(summed, x.shape()))};
    }
    case Prim::kRepeat: {
      const auto& a = std::get<RepeatAttrs>(call.attrs);
      if (a.repeats.size() != 1 || a.total_repeat_length) {
        Unsupported(call, "only a single repeat count has a reverse-mode rule here");
      }
      int64_t r = a.repeats[0];
      Array flat = a.axis ? x : Reshape(x, {x.size()});
      int axis = a.axis ? (*a.axis < 0 ? *a.axis + x.rank() : *a.axis) : 0;
      Shape split = flat.shape();
      split.insert(split.begin() + axis + 1, r);
      Array summed = Reduce(ReduceOp::kSum, Reshape(g, split), std::vector<int>{axis + 1}, false,
                            std::nullopt);
      return {To(x, Reshape(summed, x.shape()))};
    }
    case Prim::kBitcastConvertType:
    case Prim::kIota:
    case Prim::kRandomSeed:
    case Prim::kRandomFoldIn:
    case Prim::kRandomSplit:
    case Prim::kRandomBits:
    case Prim::kRandomNormal:
    case Prim::kRandomRandint:
      return none;
    case Prim::kRandomUniform:
      if (Differentiable(in.at(1).dtype()) || Differentiable(in.at(2).dtype())) {
        Unsupported(call, "differentiating a draw with respect to minval or maxval");
      }
      return none;
    case Prim::kShiftRightLogical:  // integers only
      return none;
    case Prim::kRandomShuffle:
    case Prim::kSort:
    case Prim::kReduceProd:
      Unsupported(call, "it has no reverse-mode rule in this emulator yet");
    // Handled before the switch (elementwise unary and binary primitives, split); no default,
    // so that a primitive added to prims.def without a rule is a -Wswitch warning.
    case Prim::kNeg:
    case Prim::kCopy:
    case Prim::kAbs:
    case Prim::kNot:
    case Prim::kLogicalNot:
    case Prim::kExp:
    case Prim::kExp2:
    case Prim::kLog:
    case Prim::kLog1p:
    case Prim::kExpm1:
    case Prim::kSqrt:
    case Prim::kRsqrt:
    case Prim::kTanh:
    case Prim::kSin:
    case Prim::kCos:
    case Prim::kTan:
    case Prim::kErf:
    case Prim::kLogistic:
    case Prim::kSign:
    case Prim::kFloor:
    case Prim::kCeil:
    case Prim::kRound:
    case Prim::kIsNan:
    case Prim::kIsInf:
    case Prim::kIsFinite:
    case Prim::kSquare:
    case Prim::kReciprocal:
    case Prim::kAdd:
    case Prim::kSub:
    case Prim::kMul:
    case Prim::kDiv:
    case Prim::kFloorDivide:
    case Prim::kRemainder:
    case Prim::kPow:
    case Prim::kMax:
    case Prim::kMin:
    case Prim::kAnd:
    case Prim::kOr:
    case Prim::kXor:
    case Prim::kShiftLeft:
    case Prim::kShiftRightArithmetic:
    case Prim::kEq:
    case Prim::kNe:
    case Prim::kLt:
    case Prim::kLe:
    case Prim::kGt:
    case Prim::kGe:
    case Prim::kLogicalAnd:
    case Prim::kLogicalOr:
    case Prim::kAtan2:
    case Prim::kSplit:
      break;
  }
  Unsupported(call, "it has no reverse-mode rule");
}

}  // namespace pz::array

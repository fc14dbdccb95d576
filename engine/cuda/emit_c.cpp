// Dtypes as C types and expressions, and index arithmetic, for the CUDA emitter.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "cuda/emit_internal.h"
#include "support/check.h"

namespace pz::cuda::detail {

// ---- dtypes as C types -----------------------------------------------------------------------

bool IsFloat(DType d) {
  return d == DType::kFloat32 || d == DType::kBFloat16 || d == DType::kFloat16;
}
bool IsUnsignedInt(DType d) {
  return d == DType::kUInt4 || d == DType::kUInt8 || d == DType::kUInt16 || d == DType::kUInt32;
}
bool IsSignedInt(DType d) {
  return d == DType::kInt4 || d == DType::kInt8 || d == DType::kInt16 || d == DType::kInt32;
}
int Bits(DType d) {
  return d == DType::kInt4 || d == DType::kUInt4 ? 4 : static_cast<int>(array::ItemSize(d)) * 8;
}

// The type an element is stored as in memory.
std::string StorageType(DType d) {
  switch (d) {
    case DType::kBool:
    case DType::kUInt8:
    case DType::kUInt4:
      return "unsigned char";
    case DType::kInt8:
    case DType::kInt4:
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
    case DType::kInt4:  // wrap modulo 2^4, sign-extended
      return "((((int)(" + x + ") & 15) ^ 8) - 8)";
    case DType::kUInt4:
      return "((unsigned)(" + x + ") & 15u)";
    default:
      return "(" + RegType(d) + ")(" + StorageType(d) + ")(" + x + ")";
  }
}

int64_t MinOf(DType d) {
  switch (d) {
    case DType::kInt4:
      return -8;
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
    case DType::kInt4:
      return 7;
    case DType::kUInt4:
      return 15;
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

std::string ElementOffset(Writer& w, const std::string& base, const Shape& shape,
                          const std::vector<int64_t>& strides, const std::string& i) {
  Shape row_major = Strides(shape);
  bool contiguous = true;
  for (size_t d = 0; d < shape.size(); ++d) {
    contiguous = contiguous && (shape[d] == 1 || strides[d] == row_major[d]);
  }
  if (!contiguous) return Affine(base, Unravel(w, shape, i, "c"), strides);
  return base.empty() || base == "0" ? i : base + " + " + i;
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

}  // namespace pz::cuda::detail

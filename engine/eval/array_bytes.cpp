// Arrays as raw bytes, numpy's buffer view of them: `x.tobytes()` (numpy and JAX arrays) and
// `np.frombuffer` / `jnp.frombuffer`. Elements are stored as numpy lays them out on a
// little-endian machine (bool and 4-bit ints one byte each, bfloat16 and float16 two), so the
// bytes are the storage of a row-major copy.
#include <fmt/format.h>

#include <cstring>

#include "array/element.h"
#include "array/shape_ops.h"
#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "eval/bytes.h"

namespace pz::eval {

std::string ArrayToBytes(const array::Array& value, char order) {
  array::Array ordered = order == 'F' ? array::Transpose(value) : value;
  array::Array dense = ordered.Contiguous();
  size_t length = static_cast<size_t>(dense.size()) * array::ItemSize(dense.dtype());
  return std::string(reinterpret_cast<const char*>(dense.raw()), length);
}

Value ArrayToBytesMethod(Interpreter& interp, const array::Array& value, CallArgs& args) {
  auto bound = BindArgs(interp, "tobytes", args, {"order="});
  char order = 'C';
  if (bound[0] && !bound[0]->is_none()) {
    const std::string& text = ToStr(interp, *bound[0], "order must be str, not %s");
    if (text.size() != 1 || std::string_view("CFAK").find(text[0]) == std::string_view::npos) {
      interp.Raise(interp.types().value_error,
                   fmt::format("order must be one of 'C', 'F', 'A', or 'K' (got '{}')", text));
    }
    order = text[0];  // 'A' and 'K' keep the logical (C) order of the engine's arrays
  }
  return MakeBytes(ArrayToBytes(value, order));
}

namespace {

// Reads `count` elements of `dtype` from `bytes` at `offset` into a new 1-d array. Bools and
// 4-bit ints are normalised to the values the engine stores for them.
array::Array ArrayFromBytes(std::string_view bytes, array::DType dtype, int64_t count) {
  array::Array out = array::Array::Empty(dtype, {count});
  if (!bytes.empty()) std::memcpy(out.raw(), bytes.data(), bytes.size());
  array::DispatchDType(dtype, [&](auto tag) {
    constexpr array::DType D = decltype(tag)::value;
    if constexpr (D == array::DType::kBool || D == array::DType::kInt4 ||
                  D == array::DType::kUInt4) {
      auto* items = out.data<array::StorageOf<D>>();
      using E = array::Element<D>;
      for (int64_t i = 0; i < count; ++i) items[i] = E::Store(E::Load(items[i]));
    }
  });
  return out;
}

Value FromBuffer(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "frombuffer", args, {"buffer", "dtype=", "count=", "offset="});
  const std::string& buffer = BytesLike(interp, *bound[0]);
  array::DType dtype = ToDType(interp, bound[1].value_or(interp.builtins().at("float")));
  int64_t count = bound[2] ? ToIndex(interp, *bound[2]) : -1;
  int64_t offset = bound[3] ? ToIndex(interp, *bound[3]) : 0;
  auto length = static_cast<int64_t>(buffer.size());
  auto item = static_cast<int64_t>(array::ItemSize(dtype));
  const BuiltinTypes& t = interp.types();
  if (offset < 0 || offset > length) {
    interp.Raise(
        t.value_error,
        fmt::format("offset must be non-negative and no greater than buffer length ({})", length));
  }
  int64_t available = length - offset;
  if (count < 0) {
    if (available % item != 0) {
      interp.Raise(t.value_error, "buffer size must be a multiple of element size");
    }
    count = available / item;
  } else if (count > available / item) {
    interp.Raise(t.value_error, "buffer is smaller than requested size");
  }
  std::string_view data = std::string_view(buffer).substr(offset, count * item);
  return WrapArray(GuardArrayOp(interp, [&] { return ArrayFromBytes(data, dtype, count); }));
}

}  // namespace

void InstallArrayBytes(Interpreter& interp, const ArrayModules& modules) {
  AddFunction(interp, {&modules.jnp, &modules.np}, "frombuffer", FromBuffer);
}

}  // namespace pz::eval

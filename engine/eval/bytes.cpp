// The `bytes` type (bytes.h): its repr, its protocol hooks (indexing, slicing, `+`, `*`,
// comparison, membership, iteration, hashing), the `bytes(...)` constructor and `bytes.fromhex`,
// and int.to_bytes / int.from_bytes, as CPython 3.11. Methods are in bytes_methods.cpp, encodings
// in bytes_codecs.cpp.
#include "eval/bytes.h"

#include <fmt/format.h>

#include <algorithm>

#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "eval/format.h"

namespace pz::eval {

Value MakeBytes(std::string bytes) {
  return Value(std::make_shared<BytesObject>(std::move(bytes)));
}

std::string BytesRepr(std::string_view bytes) {
  // CPython prefers single quotes; double quotes only avoid escaping a ' when there is no ".
  bool double_quote =
      bytes.find('\'') != std::string_view::npos && bytes.find('"') == std::string_view::npos;
  char quote = double_quote ? '"' : '\'';
  std::string out = "b";
  out += quote;
  for (char c : bytes) {
    auto u = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u >= 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  out += quote;
  return out;
}

const std::string& BytesLike(Interpreter& interp, const Value& value) {
  if (auto* bytes = value.as<BytesObject>()) return bytes->value;
  interp.Raise(interp.types().type_error,
               fmt::format("a bytes-like object is required, not '{}'", interp.TypeName(value)));
}

// ---- Protocol hooks -----------------------------------------------------------------------------

std::string BytesObject::Repr(Interpreter&) const { return BytesRepr(value); }

std::optional<Value> BytesObject::GetAttr(Interpreter& interp, std::string_view name) {
  if (name == "fromhex") return interp.TypeOf(Value(shared_from_this()))->attrs.at("fromhex");
  return GetBytesMethod(interp, Value(shared_from_this()), name);
}

std::optional<Value> BytesObject::GetItem(Interpreter& interp, const Value& key) {
  if (auto* slice = key.as<SliceObject>()) {
    SliceBounds b = ResolveSlice(interp, *slice, static_cast<int64_t>(value.size()));
    if (b.step == 1) return MakeBytes(value.substr(b.start, b.count));
    std::string out;
    out.reserve(b.count);
    for (int64_t i = 0, j = b.start; i < b.count; ++i, j += b.step) out += value[j];
    return MakeBytes(std::move(out));
  }
  bool index_like = key.is_integral() || (key.is(ObjectKind::kExtension) &&
                                          interp.TryGetAttr(key, "__index__").has_value());
  if (!index_like) {
    interp.Raise(
        interp.types().type_error,
        fmt::format("byte indices must be integers or slices, not {}", interp.TypeName(key)));
  }
  int64_t size = static_cast<int64_t>(value.size());
  int64_t i = ToIndex(interp, key);
  if (i < 0) i += size;
  if (i < 0 || i >= size) interp.Raise(interp.types().index_error, "index out of range");
  return Value::Int(static_cast<unsigned char>(value[i]));
}

std::optional<Value> BytesObject::Binary(Interpreter& interp, lang::BinOpKind op,
                                         const Value& other, bool reflected) {
  if (op == lang::BinOpKind::kAdd) {
    // `other + self` with a non-bytes `other` is that type's error ("can only concatenate str").
    if (reflected) return std::nullopt;
    if (auto* tail = other.as<BytesObject>()) {
      CheckStringLength(interp, static_cast<int64_t>(value.size() + tail->value.size()));
      return MakeBytes(value + tail->value);
    }
    interp.Raise(interp.types().type_error,
                 fmt::format("can't concat {} to bytes", interp.TypeName(other)));
  }
  if (op == lang::BinOpKind::kMul) {
    if (!other.is_integral()) {
      // A sequence times bytes names bytes as the non-int, anything else names itself.
      bool sequence = reflected && (other.is(ObjectKind::kStr) || other.is(ObjectKind::kList) ||
                                    other.is(ObjectKind::kTuple));
      interp.Raise(interp.types().type_error,
                   fmt::format("can't multiply sequence by non-int of type '{}'",
                               sequence ? "bytes" : interp.TypeName(other)));
    }
    int64_t count = std::max<int64_t>(0, other.integral());
    auto size = static_cast<int64_t>(value.size());
    if (size > 0 && count > kMaxStringLength / size) {
      interp.Raise(
          interp.types().overflow_error,
          fmt::format("repeated bytes are too long (more than {} bytes)", kMaxStringLength));
    }
    std::string out;
    out.reserve(value.size() * count);
    for (int64_t i = 0; i < count; ++i) out += value;
    return MakeBytes(std::move(out));
  }
  return std::nullopt;
}

std::optional<Value> BytesObject::Compare(Interpreter& interp, lang::CmpOpKind op,
                                          const Value& other, bool reflected) {
  auto* that = other.as<BytesObject>();
  if (that == nullptr) return std::nullopt;  // == is False, ordering a TypeError
  // std::string compares as unsigned char, which is bytes' lexicographic order.
  int c = reflected ? that->value.compare(value) : value.compare(that->value);
  switch (op) {
    case lang::CmpOpKind::kEq:
      return Value::Bool(c == 0);
    case lang::CmpOpKind::kNotEq:
      return Value::Bool(c != 0);
    case lang::CmpOpKind::kLt:
      return Value::Bool(c < 0);
    case lang::CmpOpKind::kLtE:
      return Value::Bool(c <= 0);
    case lang::CmpOpKind::kGt:
      return Value::Bool(c > 0);
    case lang::CmpOpKind::kGtE:
      return Value::Bool(c >= 0);
    default:
      return std::nullopt;
  }
}

std::optional<bool> BytesObject::Contains(Interpreter& interp, const Value& item) {
  if (item.is_integral()) {
    int64_t byte = item.integral();
    if (byte < 0 || byte > 255) {
      interp.Raise(interp.types().value_error, "byte must be in range(0, 256)");
    }
    return value.find(static_cast<char>(byte)) != std::string::npos;
  }
  return value.find(BytesLike(interp, item)) != std::string::npos;
}

ObjectRef BytesObject::Iter(Interpreter& interp) {
  auto self = std::static_pointer_cast<BytesObject>(shared_from_this());
  auto position = std::make_shared<size_t>(0);
  return std::make_shared<IteratorObject>(
      "bytes_iterator", [self, position](Interpreter&) -> std::optional<Value> {
        if (*position >= self->value.size()) return std::nullopt;
        return Value::Int(static_cast<unsigned char>(self->value[(*position)++]));
      });
}

std::optional<size_t> BytesObject::Hash(Interpreter&) {
  // The same hash as the str of the same characters, as in CPython (b'a' != 'a' all the same).
  return std::hash<std::string>{}(value);
}

// ---- The type: constructor and fromhex --------------------------------------------------------

namespace {

// bytes(iterable_of_ints): each item an int (or has __index__) in range(0, 256).
std::string BytesFromInts(Interpreter& interp, const Value& iterable) {
  std::string out;
  interp.ForEach(iterable, [&](const Value& item) {
    int64_t byte = ToIndex(interp, item);
    if (byte < 0 || byte > 255) {
      interp.Raise(interp.types().value_error, "bytes must be in range(0, 256)");
    }
    out += static_cast<char>(byte);
    return true;
  });
  return out;
}

// An optional str argument of bytes() (`encoding`, `errors`), with CPython's TypeError.
std::optional<std::string> StrParameter(Interpreter& interp, const std::optional<Value>& value,
                                        std::string_view function, std::string_view name) {
  if (!value) return std::nullopt;
  return ToStr(interp, *value,
               fmt::format("{}() argument '{}' must be str, not %s", function, name));
}

Value BytesConstructor(Interpreter& interp, TypeObject&, CallArgs& args) {
  auto bound = BindArgs(interp, "bytes", args, {"source=", "encoding=", "errors="});
  std::optional<std::string> encoding = StrParameter(interp, bound[1], "bytes", "encoding");
  std::optional<std::string> errors = StrParameter(interp, bound[2], "bytes", "errors");
  const BuiltinTypes& t = interp.types();
  if (!bound[0]) {
    if (encoding || errors) interp.Raise(t.type_error, "encoding without a string argument");
    return MakeBytes("");
  }
  const Value& source = *bound[0];
  if (auto* str = source.as<StrObject>()) {
    if (!encoding) interp.Raise(t.type_error, "string argument without an encoding");
    return MakeBytes(EncodeText(interp, str->value, *encoding, errors.value_or("strict")));
  }
  if (encoding || errors) {
    interp.Raise(t.type_error, encoding ? "encoding without a string argument"
                                        : "errors without a string argument");
  }
  if (source.is(ObjectKind::kExtension) && source.as<BytesObject>()) return source;
  if (source.is_integral()) {
    if (source.integral() < 0) interp.Raise(t.value_error, "negative count");
    CheckStringLength(interp, source.integral());
    return MakeBytes(std::string(static_cast<size_t>(source.integral()), '\0'));
  }
  // numpy arrays hand over their raw buffer (CPython's buffer protocol).
  if (auto* array = source.as<ArrayObject>(); array != nullptr && array->numpy) {
    return MakeBytes(ArrayToBytes(array->value));
  }
  if (source.is(ObjectKind::kExtension)) {
    if (std::optional<Value> method = interp.TryGetAttr(source, "__bytes__")) {
      Value result = interp.Call(*method, std::vector<Value>{});
      if (!result.as<BytesObject>()) {
        interp.Raise(t.type_error, fmt::format("__bytes__ returned non-bytes (type {})",
                                               interp.TypeName(result)));
      }
      return result;
    }
  }
  if (source.is(ObjectKind::kStr) || !interp.TryGetIter(source)) {
    interp.Raise(t.type_error,
                 fmt::format("cannot convert '{}' object to bytes", interp.TypeName(source)));
  }
  return MakeBytes(BytesFromInts(interp, source));
}

int HexDigit(char32_t c) {
  if (c >= '0' && c <= '9') return static_cast<int>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<int>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<int>(c - 'A' + 10);
  return -1;
}

// bytes.fromhex(string): pairs of hex digits, with ASCII whitespace allowed between pairs.
Value FromHex(Interpreter& interp, CallArgs& args) {
  const Value& arg = OneArg(interp, "bytes.fromhex", args);
  std::u32string text = DecodeUtf8(ToStr(interp, arg, "fromhex() argument must be str, not %s"));
  auto is_space = [](char32_t c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  auto fail = [&](size_t position) {
    interp.Raise(
        interp.types().value_error,
        fmt::format("non-hexadecimal number found in fromhex() arg at position {}", position));
  };
  std::string out;
  size_t i = 0;
  while (true) {
    while (i < text.size() && is_space(text[i])) ++i;
    if (i == text.size()) break;
    int high = HexDigit(text[i]);
    if (high < 0) fail(i);
    ++i;
    int low = i < text.size() ? HexDigit(text[i]) : -1;
    if (low < 0) fail(i);
    ++i;
    out += static_cast<char>(high * 16 + low);
  }
  return MakeBytes(std::move(out));
}

// The `byteorder` argument of int.to_bytes / int.from_bytes: true for "little".
bool LittleEndian(Interpreter& interp, const std::optional<Value>& byteorder,
                  std::string_view function) {
  if (!byteorder) return false;
  const std::string& order = ToStr(
      interp, *byteorder, fmt::format("{}() argument 'byteorder' must be str, not %s", function));
  if (order != "little" && order != "big") {
    interp.Raise(interp.types().value_error, "byteorder must be either 'little' or 'big'");
  }
  return order == "little";
}

// int.from_bytes(bytes, byteorder='big', *, signed=False), within the engine's 64-bit ints.
Value IntFromBytes(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "from_bytes", args, {"bytes", "byteorder=", "*", "signed="});
  const Value& source = *bound[0];
  if (source.is(ObjectKind::kStr) || (!source.as<BytesObject>() && !interp.TryGetIter(source))) {
    interp.Raise(interp.types().type_error,
                 fmt::format("cannot convert '{}' object to bytes", interp.TypeName(source)));
  }
  std::string data =
      source.as<BytesObject>() ? source.as<BytesObject>()->value : BytesFromInts(interp, source);
  if (LittleEndian(interp, bound[1], "from_bytes")) std::reverse(data.begin(), data.end());
  bool is_signed = bound[2] && interp.Truthy(*bound[2]);
  bool negative = is_signed && !data.empty() && (static_cast<unsigned char>(data[0]) & 0x80);
  // Bytes before the last eight only extend the sign; anything else does not fit in 64 bits.
  size_t extra = data.size() > 8 ? data.size() - 8 : 0;
  for (size_t i = 0; i < extra; ++i) {
    if (data[i] != (negative ? '\xff' : '\0')) RaiseIntOverflow(interp);
  }
  uint64_t bits = negative ? ~uint64_t{0} : 0;
  for (size_t i = extra; i < data.size(); ++i) {
    bits = (bits << 8) | static_cast<unsigned char>(data[i]);
  }
  // An unsigned value needs bit 63 clear; a negative one needs it set (its sign bits reach it).
  if (!negative && (bits >> 63) != 0) RaiseIntOverflow(interp);
  if (negative && (bits >> 63) == 0) RaiseIntOverflow(interp);
  return Value::Int(static_cast<int64_t>(bits));
}

}  // namespace

Value IntToBytesMethod(Interpreter& interp, const Value& self, CallArgs& args) {
  auto bound = BindArgs(interp, "to_bytes", args, {"length=", "byteorder=", "*", "signed="});
  int64_t length = bound[0] ? ToIndex(interp, *bound[0]) : 1;
  if (length < 0) interp.Raise(interp.types().value_error, "length argument must be non-negative");
  bool little = LittleEndian(interp, bound[1], "to_bytes");
  bool is_signed = bound[2] && interp.Truthy(*bound[2]);
  int64_t v = self.integral();
  if (v < 0 && !is_signed) {
    interp.Raise(interp.types().overflow_error, "can't convert negative int to unsigned");
  }
  // Whether v fits in `length` bytes: [0, 2^(8 length)) unsigned, [-2^(8 length - 1),
  // 2^(8 length - 1)) signed; every int64 fits in eight bytes.
  bool fits = length >= 8;
  if (!fits) {
    int bits = static_cast<int>(8 * length) - (is_signed ? 1 : 0);
    fits = bits < 0 ? v == 0 : (v >= -(int64_t{1} << bits) && v < (int64_t{1} << bits));
  }
  if (!fits) interp.Raise(interp.types().overflow_error, "int too big to convert");
  CheckStringLength(interp, length);
  std::string out(static_cast<size_t>(length), v < 0 ? '\xff' : '\0');  // sign extension
  for (int64_t i = 0; i < std::min<int64_t>(length, 8); ++i) {
    out[i] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xFF);
  }
  if (!little) std::reverse(out.begin(), out.end());
  return MakeBytes(std::move(out));
}

void InstallBytesType(Interpreter& interp) {
  interp.types().int_type->Store("from_bytes", interp.MakeBuiltin("from_bytes", IntFromBytes));
  TypeObject* type = interp.ExtensionType("bytes");
  type->constructor = BytesConstructor;
  type->Store("fromhex", interp.MakeBuiltin("fromhex", FromHex));
  // `bytes.hex(b)` & co.: each method taking its bytes as the first argument.
  for (std::string_view name : BytesMethodNames()) {
    std::string method(name);
    type->Store(method, interp.MakeBuiltin(method, [method](Interpreter& interp, CallArgs& args) {
      if (args.positional.empty() || !args.positional[0].as<BytesObject>()) {
        interp.Raise(interp.types().type_error,
                     fmt::format("descriptor '{}' for 'bytes' objects doesn't apply to a '{}' "
                                 "object",
                                 method,
                                 args.positional.empty() ? "NoneType"
                                                         : interp.TypeName(args.positional[0])));
      }
      Value self = args.positional[0];
      args.positional.erase(args.positional.begin());
      return interp.Call(*GetBytesMethod(interp, self, method), std::move(args));
    }));
  }
  interp.builtins()["bytes"] = TypeValue(type);
}

}  // namespace pz::eval

// Python's `bytes`: an immutable sequence of byte values (ints in range(0, 256)). BytesObject holds
// them in a std::string (any values, not UTF-8) and takes part in the evaluator's protocols
// through Object's hooks, with CPython's semantics and messages. Made by `b'...'` literals, the
// `bytes` builtin, `str.encode` and `ndarray.tobytes()`; `np.frombuffer` reads them back.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "eval/interpreter.h"
#include "eval/value.h"

namespace pz::eval {

class BytesObject final : public Object {
 public:
  explicit BytesObject(std::string value)
      : Object(ObjectKind::kExtension), value(std::move(value)) {}
  std::string_view type_name() const override { return "bytes"; }

  std::string Repr(Interpreter& interp) const override;
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  std::optional<Value> GetItem(Interpreter& interp, const Value& key) override;
  std::optional<Value> Binary(Interpreter& interp, lang::BinOpKind op, const Value& other,
                              bool reflected) override;
  std::optional<Value> Compare(Interpreter& interp, lang::CmpOpKind op, const Value& other,
                               bool reflected) override;
  std::optional<bool> Truthy(Interpreter& interp) override { return !value.empty(); }
  std::optional<int64_t> Len(Interpreter& interp) override {
    return static_cast<int64_t>(value.size());
  }
  std::optional<bool> Contains(Interpreter& interp, const Value& item) override;
  ObjectRef Iter(Interpreter& interp) override;
  std::optional<size_t> Hash(Interpreter& interp) override;

  const std::string value;  // the bytes, never mutated
};

Value MakeBytes(std::string bytes);

// repr(bytes) as CPython writes it: b'...' (b"..." when the bytes hold a ' and no "), with
// \t \n \r \\ and the quote escaped, other bytes outside 0x20-0x7e as \xhh.
std::string BytesRepr(std::string_view bytes);

// The bytes of a bytes-like argument (only bytes here), or CPython's TypeError "a bytes-like
// object is required, not 'str'".
const std::string& BytesLike(Interpreter& interp, const Value& value);

// ---- Codecs (bytes_codecs.cpp): utf-8, ascii and latin-1 under their usual aliases ------------
// `errors` is "strict" (UnicodeEncodeError/UnicodeDecodeError with CPython's message), "ignore"
// or "replace"; an unknown encoding is a LookupError. A str holds UTF-8, so `text` is UTF-8.
std::string EncodeText(Interpreter& interp, std::string_view text, std::string_view encoding,
                       std::string_view errors);
std::string DecodeBytes(Interpreter& interp, std::string_view bytes, std::string_view encoding,
                        std::string_view errors);
// `str.encode(encoding='utf-8', errors='strict')`, bound to a str `self`.
Value StrEncodeMethod(Interpreter& interp, const Value& self, CallArgs& args);

// The methods of bytes (bytes_methods.cpp), bound to `self`; nullopt when there is none.
std::optional<Value> GetBytesMethod(Interpreter& interp, const Value& self, std::string_view name);
// Names of every method of bytes, for the type's unbound methods (`bytes.hex(b)`).
std::vector<std::string_view> BytesMethodNames();

// `n.to_bytes(length=1, byteorder='big', *, signed=False)`, bound to an int `self`.
Value IntToBytesMethod(Interpreter& interp, const Value& self, CallArgs& args);

// Installs the `bytes` type (its constructor, `bytes.fromhex` and unbound methods) as a builtin,
// and `int.from_bytes`.
void InstallBytesType(Interpreter& interp);

}  // namespace pz::eval

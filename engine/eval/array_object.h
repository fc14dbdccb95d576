// Python-facing arrays: ArrayObject wraps an array::Array as an evaluator value (the type JAX
// prints as `Array(...)`), DTypeObject is `jnp.float32` & co. (a dtype that is also a scalar
// constructor). The jax.numpy / jax.lax / jax.nn / jax.random / numpy modules are filled by
// installers, one per op family (jnp_*.cpp), each registering its functions into the modules.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "array/array.h"
#include "array/elementwise.h"
#include "array/indexing.h"
#include "eval/interpreter.h"
#include "eval/value.h"

namespace pz::eval {

// Where an array came from, for whoever explains it later (the check harness asks which
// pallas_call produced an output, and how): later layers derive their records from it.
struct ArrayOrigin {
  virtual ~ArrayOrigin() = default;
};

class ArrayObject final : public Object {
 public:
  explicit ArrayObject(array::Array value, bool numpy = false)
      : Object(ObjectKind::kExtension),
        value(std::move(value)),
        numpy(numpy),
        serial(NextSerial()) {}
  std::string_view type_name() const override { return numpy ? "ndarray" : "ArrayImpl"; }

  std::string Repr(Interpreter& interp) const override;
  std::string Str(Interpreter& interp) const override;
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  bool SetAttr(Interpreter& interp, std::string_view name, const Value& value) override;
  std::optional<Value> GetItem(Interpreter& interp, const Value& key) override;
  bool SetItem(Interpreter& interp, const Value& key, const Value& value) override;
  std::optional<Value> Binary(Interpreter& interp, lang::BinOpKind op, const Value& other,
                              bool reflected) override;
  std::optional<Value> Unary(Interpreter& interp, lang::UnaryOpKind op) override;
  std::optional<Value> Compare(Interpreter& interp, lang::CmpOpKind op, const Value& other,
                               bool reflected) override;
  std::optional<bool> Truthy(Interpreter& interp) override;
  std::optional<int64_t> Len(Interpreter& interp) override;
  ObjectRef Iter(Interpreter& interp) override;
  std::optional<std::string> Format(Interpreter& interp, std::string_view spec) override;

  array::Array value;
  // Made by the `numpy` module rather than `jax.numpy`: prints as `array([...])`, and operators
  // between numpy arrays (or with Python scalars) stay numpy arrays.
  bool numpy = false;
  // Creation order of array objects (per process): a kernel trace knows which arrays existed
  // before it started, i.e. which ones a kernel would capture as constants.
  const uint64_t serial;
  // What made this array, when a later layer recorded it (a pallas_call output's record).
  std::shared_ptr<const ArrayOrigin> origin;
  static uint64_t NextSerial();
  static uint64_t CurrentSerial();
};

// `jnp.float32`, `np.int32`, ...: usable as a dtype argument and callable as a scalar constructor
// (`jnp.float32(2)` → a 0-d float32 Array).
class DTypeObject final : public Object {
 public:
  explicit DTypeObject(array::DType dtype) : Object(ObjectKind::kExtension), dtype(dtype) {}
  std::string_view type_name() const override { return "dtype"; }
  std::string Repr(Interpreter& interp) const override;
  std::string Str(Interpreter& interp) const override;
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override;
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  std::optional<Value> Compare(Interpreter& interp, lang::CmpOpKind op, const Value& other,
                               bool reflected) override;
  std::optional<size_t> Hash(Interpreter& interp) override {
    return static_cast<size_t>(dtype) * 0x9E3779B9u;
  }
  array::DType dtype;
};

// ---- Conversions used by every binding ---------------------------------------------------------

Value WrapArray(array::Array value);
// `float32[3,4]`: an array's abstract value as JAX's messages print it.
std::string AvalString(const array::Array& a);
// Converts a Python subscript (int, slice, None, ..., array, list, or a tuple of them) to
// indices. A list as the whole subscript is numpy's fancy indexing, which JAX refuses (`numpy`
// false).
std::vector<array::Index> ToIndices(Interpreter& interp, const Value& key, bool numpy = false);
// `array[index]` as JAX reads it: out-of-bounds integer indices follow `mode` (nullopt: JAX's
// default, clamping, with a warning at the current line when an index was out of bounds).
array::Array IndexWithWarning(Interpreter& interp, const array::Array& array,
                              const std::vector<array::Index>& index,
                              std::optional<array::IndexMode> mode = std::nullopt, double fill = 0);
// The array of a value: an Array as is; Python scalars, nested lists/tuples of numbers and
// bools become arrays (Python scalars are weakly typed, as in JAX); `dtype` forces a dtype.
// Raises TypeError for anything else ("expected an array, got str").
array::Array ToArray(Interpreter& interp, const Value& value,
                     std::optional<array::DType> dtype = std::nullopt);
// A dtype argument: a DTypeObject, a dtype name string, the builtins `float`/`int`/`bool`, or an
// array's `.dtype`. Raises TypeError otherwise.
array::DType ToDType(Interpreter& interp, const Value& value);
// An axis argument (None → nullopt, an int, or a tuple of ints) normalised against `rank`
// (negative axes count from the end); raises ValueError/TypeError as JAX does.
std::optional<std::vector<int>> ToAxes(Interpreter& interp, const Value& value, int rank);
// A shape argument: an int or a tuple/list of ints.
array::Shape ToShape(Interpreter& interp, const Value& value);

// Raises JAX's TypeError when a function of jax.numpy / jax.lax / jax.nn / jax.scipy.special
// (`module` is its dotted name) is given a Python list or tuple where it takes an array; other
// modules (numpy) accept sequences.
void CheckArrayLike(Interpreter& interp, std::string_view module, std::string_view name,
                    const CallArgs& args);

// The array layer's op for a Python operator (`+` → kAdd, `<` → kLt); nullopt for `@` and for
// comparisons that are not elementwise (`is`, `in`). Shared by arrays and kernel tracers.
std::optional<array::BinaryOp> ToBinaryOp(lang::BinOpKind op);
std::optional<array::BinaryOp> ToCompareOp(lang::CmpOpKind op);

// The bytes numpy's `tobytes(order)` gives for `value`: its elements in row-major ('C') or
// column-major ('F') order, each as stored in memory (little-endian) (array_bytes.cpp).
std::string ArrayToBytes(const array::Array& value, char order = 'C');
// `x.tobytes(order='C')` as a method call on `value`: bytes, or numpy's ValueError for a bad order.
Value ArrayToBytesMethod(Interpreter& interp, const array::Array& value, CallArgs& args);

// jax.dtypes.TypePromotionError, a ValueError, made on first use.
TypeObject* TypePromotionErrorType(Interpreter& interp);

// Runs an array operation, turning array::ArrayError into the matching Python exception at the
// current span.
template <typename F>
auto GuardArrayOp(Interpreter& interp, F&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const array::ArrayError& error) {
    const BuiltinTypes& t = interp.types();
    switch (error.kind) {
      case array::ArrayError::Kind::kTypeError:
        interp.Raise(t.type_error, error.message);
      case array::ArrayError::Kind::kValueError:
        interp.Raise(t.value_error, error.message);
      case array::ArrayError::Kind::kIndexError:
        interp.Raise(t.index_error, error.message);
      case array::ArrayError::Kind::kMemoryError:
        interp.Raise(t.value_error, error.message);
      case array::ArrayError::Kind::kTypePromotion:
        interp.Raise(TypePromotionErrorType(interp), error.message);
    }
    throw;
  }
}

// The builtin modules arrays live in, created by InstallModules; installers add functions.
struct ArrayModules {
  ModuleObject& jax;
  ModuleObject& jnp;      // jax.numpy
  ModuleObject& lax;      // jax.lax
  ModuleObject& nn;       // jax.nn
  ModuleObject& random;   // jax.random
  ModuleObject& special;  // jax.scipy.special
  ModuleObject& np;       // numpy
};

// How a registered array function meets a kernel trace: traced when an argument is a tracer
// (the default), or always, for functions whose result is a primitive of its own even from
// static arguments (lax.iota), which JAX records rather than folding into a constant.
enum class TraceWhen { kGivenTracers, kAlways };

// Registers `fn` as `module.name`.
void AddFunction(Interpreter& interp, ModuleObject& module, const std::string& name,
                 BuiltinFunctionObject::Fn fn, TraceWhen trace = TraceWhen::kGivenTracers);
// Registers `fn` under `name` in each of `modules` (jax.numpy and numpy, say).
void AddFunction(Interpreter& interp, std::initializer_list<ModuleObject*> modules,
                 const std::string& name, const BuiltinFunctionObject::Fn& fn);

// Installers, one per op family; each adds its functions to the modules (and, for methods such as
// `x.sum()`, is consulted by ArrayObject::GetAttr through ArrayMethod below).
void InstallArrayCore(Interpreter& interp, const ArrayModules& modules);  // dtypes, creation, shape
void InstallArrayMath(Interpreter& interp, const ArrayModules& modules);  // elementwise, reductions
void InstallArrayLinalg(Interpreter& interp, const ArrayModules& modules);  // dot, matmul, einsum
void InstallArrayRandom(Interpreter& interp, const ArrayModules& modules);  // jax.random
void InstallArrayHost(Interpreter& interp, const ArrayModules& modules);    // sort, npy, testing
void InstallDTypeInfo(Interpreter& interp, const ArrayModules& modules);    // finfo, iinfo
void InstallArrayBytes(Interpreter& interp, const ArrayModules& modules);   // frombuffer
// Runs all of the above on the interpreter's modules (called by InstallModules).
void InstallArrayModules(Interpreter& interp);

}  // namespace pz::eval

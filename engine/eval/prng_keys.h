// Typed PRNG keys (`jax.random.key`): arrays of dtype key<impl> over uint32 key data, with
// JAX's default implementation (threefry2x32, in the array layer) or one a program registers
// with jax._src.random.prng.PRNGImpl, whose seed / split / fold_in / random_bits functions are
// called on the key data (JAX's Pallas Philox kernels register theirs that way).
// `jax.random.PRNGKey` keeps returning raw uint32[2] key data, as in JAX.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "array/array.h"
#include "eval/interpreter.h"

namespace pz::eval {

// A PRNG implementation: threefry2x32 (builtin) or a registered one (Python callables).
struct PrngImpl {
  std::string name;  // "threefry2x32"
  std::string tag;   // "fry": the dtype prints as key<fry>
  array::Shape key_shape{2};
  bool builtin = false;
  Value seed, split, random_bits, fold_in;  // None for the builtin implementation
};

// An array of keys: `data` has the batch shape followed by the implementation's key shape.
class KeyArrayObject final : public Object {
 public:
  KeyArrayObject(array::Array data, std::shared_ptr<const PrngImpl> impl)
      : Object(ObjectKind::kExtension), data(std::move(data)), impl(std::move(impl)) {}
  std::string_view type_name() const override { return "PRNGKeyArray"; }
  std::string Repr(Interpreter& interp) const override;
  std::string Str(Interpreter& interp) const override { return Repr(interp); }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  std::optional<Value> GetItem(Interpreter& interp, const Value& key) override;
  // Arithmetic on keys is JAX's TypeError ("add does not accept dtypes key<fry>, int32.").
  std::optional<Value> Binary(Interpreter& interp, lang::BinOpKind op, const Value& other,
                              bool reflected) override;
  std::optional<int64_t> Len(Interpreter& interp) override;
  ObjectRef Iter(Interpreter& interp) override;
  // The batch shape (the key data's shape without the key shape).
  array::Shape shape() const;

  array::Array data;
  std::shared_ptr<const PrngImpl> impl;
};

// The key data and implementation of a key argument: a typed key, or raw uint32[2] key data
// (then threefry2x32, untyped).
struct KeyInput {
  array::Array data;
  std::shared_ptr<const PrngImpl> impl;
  bool typed = false;
};
KeyInput ReadKey(Interpreter& interp, const Value& value);
// A key result: typed when the input was, raw key data otherwise.
Value WrapKey(const KeyInput& like, array::Array data);
// Raises JAX's TypeError unless `key` is a single key (no batch dimensions); `function` names
// the caller ("jax.random.split").
void CheckScalarKey(Interpreter& interp, const KeyInput& key, std::string_view function);
// threefry2x32 key data for a seed: a Python int or an integer scalar array (a traced seed
// inside a kernel).
array::Array ThreefrySeed(Interpreter& interp, const Value& seed);
// The threefry2x32 implementation.
std::shared_ptr<const PrngImpl> Threefry();

// jax.random's key functions on typed keys (key, split, fold_in, bits, key_data,
// wrap_key_data, key_impl) and jax._src.random.prng / threefry2x32. Called by
// InstallArrayRandom, which registers the samplers.
void InstallPrngKeys(Interpreter& interp, ModuleObject& random);

// Random bits of `shape` for a key of a registered implementation (its random_bits function);
// raises for the builtin one (callers use array::Bits).
array::Array CustomBits(Interpreter& interp, const KeyInput& key, const array::Shape& shape,
                        array::DType dtype);

}  // namespace pz::eval

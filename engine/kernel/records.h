// Plain data objects of the Pallas API (`pl.BlockSpec`, `jax.ShapeDtypeStruct`, `pltpu.VMEM(...)`,
// `pl.ds(...)`, compiler params, ...): a type name and named fields, readable as attributes and
// printed like the JAX dataclasses they stand for. Consumers read fields by name.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "eval/interpreter.h"
#include "eval/value.h"
#include "support/source.h"

namespace pz::kernel {

class RecordObject final : public eval::Object {
 public:
  RecordObject(std::string type, std::vector<std::pair<std::string, eval::Value>> fields)
      : Object(eval::ObjectKind::kExtension), type_(std::move(type)), fields_(std::move(fields)) {}
  std::string_view type_name() const override { return type_; }
  std::string Repr(eval::Interpreter& interp) const override;
  std::optional<eval::Value> GetAttr(eval::Interpreter& interp, std::string_view name) override;
  std::optional<size_t> Hash(eval::Interpreter& interp) override;
  void ClearReferences() override { fields_.clear(); }

  // The field's value (None when absent).
  const eval::Value& Get(std::string_view name) const;
  bool Has(std::string_view name) const;
  const std::vector<std::pair<std::string, eval::Value>>& fields() const { return fields_; }

  // Where the record was built (`pltpu.CompilerParams(...)`), when a constructor call made it;
  // messages point at it as a second place.
  SourceSpan span;

 private:
  std::string type_;
  std::vector<std::pair<std::string, eval::Value>> fields_;
};

// The record if `value` is one of type `type`, else nullptr.
RecordObject* AsRecord(const eval::Value& value, std::string_view type);

eval::Value MakeRecord(std::string type, std::vector<std::pair<std::string, eval::Value>> fields);

}  // namespace pz::kernel

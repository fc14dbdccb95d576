#include "kernel/records.h"

#include <fmt/format.h>

namespace pz::kernel {

namespace {
const eval::Value kNone;
}  // namespace

std::string RecordObject::Repr(eval::Interpreter& interp) const {
  std::string out = type_ + "(";
  for (size_t i = 0; i < fields_.size(); ++i) {
    out += fmt::format("{}{}={}", i ? ", " : "", fields_[i].first, interp.Repr(fields_[i].second));
  }
  return out + ")";
}

std::optional<eval::Value> RecordObject::GetAttr(eval::Interpreter& interp, std::string_view name) {
  for (const auto& field : fields_) {
    if (field.first == name) return field.second;
  }
  return std::nullopt;
}

std::optional<size_t> RecordObject::Hash(eval::Interpreter& interp) {
  size_t h = std::hash<std::string>()(type_);
  for (const auto& field : fields_) h = h * 31 + interp.Hash(field.second);
  return h;
}

const eval::Value& RecordObject::Get(std::string_view name) const {
  for (const auto& field : fields_) {
    if (field.first == name) return field.second;
  }
  return kNone;
}

bool RecordObject::Has(std::string_view name) const {
  for (const auto& field : fields_) {
    if (field.first == name) return true;
  }
  return false;
}

RecordObject* AsRecord(const eval::Value& value, std::string_view type) {
  auto* record = value.as<RecordObject>();
  return record != nullptr && record->type_name() == type ? record : nullptr;
}

eval::Value MakeRecord(std::string type, std::vector<std::pair<std::string, eval::Value>> fields) {
  return eval::Value(std::make_shared<RecordObject>(std::move(type), std::move(fields)));
}

}  // namespace pz::kernel

// Internal to the grid-point split (split.cpp): the dimensions of every value and ref of a
// kernel body ("slots"), unified into classes whose members must split alike, and the classes
// that may not split at all. split_dimensions.cpp walks the body.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "kernel/ir.h"

namespace pz::cuda {

// The dimensions of every value and ref of a kernel ("slots"), unified into classes whose
// members must split alike.
class Dimensions {
 public:
  explicit Dimensions(const kernel::Function& f) : f_(f) {
    int total = 0;
    for (const kernel::ValueType& t : f.values) {
      value_base_.push_back(total);
      total += static_cast<int>(t.shape.size());
    }
    for (const kernel::RefType& r : f.refs) {
      ref_base_.push_back(total);
      total += static_cast<int>(r.shape.size());
    }
    parent_.resize(static_cast<size_t>(total));
    std::iota(parent_.begin(), parent_.end(), 0);
    forbidden_.assign(static_cast<size_t>(total), false);
  }

  int Value(kernel::ValueId v, size_t d) const {
    return value_base_[static_cast<size_t>(v)] + static_cast<int>(d);
  }
  int Ref(kernel::RefId r, size_t d) const {
    return ref_base_[static_cast<size_t>(r)] + static_cast<int>(d);
  }
  size_t ValueRank(kernel::ValueId v) const {
    return f_.values[static_cast<size_t>(v)].shape.size();
  }
  size_t RefRank(kernel::RefId r) const { return f_.refs[static_cast<size_t>(r)].shape.size(); }
  int64_t ValueDim(kernel::ValueId v, size_t d) const {
    return f_.values[static_cast<size_t>(v)].shape[d];
  }
  size_t slots() const { return parent_.size(); }

  int Find(int s) const {
    while (parent_[static_cast<size_t>(s)] != s) s = parent_[static_cast<size_t>(s)];
    return s;
  }
  void Unite(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent_[static_cast<size_t>(std::max(a, b))] = std::min(a, b);
  }
  void Forbid(int s) { forbidden_[static_cast<size_t>(s)] = true; }
  void ForbidValue(kernel::ValueId v) {
    for (size_t d = 0; d < ValueRank(v); ++d) Forbid(Value(v, d));
  }
  void ForbidRef(kernel::RefId r) {
    for (size_t d = 0; d < RefRank(r); ++d) Forbid(Ref(r, d));
  }
  // The rows and columns of products (not their batch dimensions).
  const std::vector<int>& product_slots() const { return product_slots_; }
  // Whether any member of `root`'s class is forbidden.
  std::vector<bool> ForbiddenClasses() const {
    std::vector<bool> out(parent_.size(), false);
    for (size_t s = 0; s < parent_.size(); ++s) {
      if (forbidden_[s]) out[static_cast<size_t>(Find(static_cast<int>(s)))] = true;
    }
    return out;
  }

  // Walks the body; false when the kernel does something no split allows.
  bool Walk(const kernel::Region& region);

 private:
  bool Visit(const kernel::Instr& instr);
  static bool Uniform(const array::Array& a);
  void ForbidAll(const kernel::Instr& instr);

  // A load or store of `v` through `path`: whole dimensions of the ref pair with the value's.
  void Access(const kernel::RefPath& path, kernel::ValueId v);

  // Operands aligned with the result at their trailing dimensions; a dimension of size 1 that
  // broadcasts stays whole.
  void Broadcasting(const kernel::Instr& instr);

  static std::vector<int> Normalized(const std::vector<int>& axes, size_t rank);
  void Primitive(const kernel::Instr& instr);

  const kernel::Function& f_;
  std::vector<int> value_base_, ref_base_;
  std::vector<int> parent_;
  std::vector<bool> forbidden_;
  std::vector<int> product_slots_;
};

}  // namespace pz::cuda

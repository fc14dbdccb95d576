// Pytrees as JAX defines them for the Python values our programs build: tuples (NamedTuples
// keep their class), lists, dicts (in key order) and None are nodes; everything else is a leaf. Used for pallas_call operands
// and specs, loop carries and branch results.
#pragma once

#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "eval/value.h"

namespace pz::kernel {

struct TreeDef {
  enum class Kind { kLeaf, kNone, kTuple, kList, kDict };
  Kind kind = Kind::kLeaf;
  std::vector<TreeDef> children;
  std::vector<eval::Value> keys;  // kDict, sorted as JAX sorts dict keys
  eval::TypeObject* named_tuple = nullptr;  // kTuple: the NamedTuple class, if any

  size_t num_leaves() const;
  // "(*, [*, *])" — JAX's PyTreeDef notation, for error messages.
  std::string ToString(eval::Interpreter& interp) const;
};

// Appends the leaves of `value` to `leaves` (depth-first, dict values in sorted-key order).
// `is_leaf` may stop the descent at a node (e.g. a BlockSpec record is always a leaf).
TreeDef Flatten(eval::Interpreter& interp, const eval::Value& value,
                std::vector<eval::Value>& leaves);
// Rebuilds a value of structure `def` from `leaves` (consumed from `next`).
eval::Value Unflatten(eval::Interpreter& interp, const TreeDef& def,
                      const std::vector<eval::Value>& leaves, size_t& next);
eval::Value Unflatten(eval::Interpreter& interp, const TreeDef& def,
                      const std::vector<eval::Value>& leaves);
bool SameStructure(const TreeDef& a, const TreeDef& b, eval::Interpreter& interp);

}  // namespace pz::kernel

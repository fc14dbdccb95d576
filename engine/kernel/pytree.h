// Pytrees as JAX defines them for the Python values our programs build: tuples (NamedTuples
// keep their class), lists, dicts (in key order), None, and instances of the classes registered
// with jax.tree_util (register_pytree_node & co., CustomNodes) are nodes; everything else is a
// leaf. Used for pallas_call operands and specs, loop carries, branch results and the
// transformations (vmap, tree_map).
#pragma once

#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "eval/value.h"

namespace pz::kernel {

struct TreeDef {
  enum class Kind { kLeaf, kNone, kTuple, kList, kDict, kCustom };
  Kind kind = Kind::kLeaf;
  std::vector<TreeDef> children;
  std::vector<eval::Value> keys;            // kDict, sorted as JAX sorts dict keys
  eval::TypeObject* named_tuple = nullptr;  // kTuple: the NamedTuple class, if any
  eval::TypeObject* node_type = nullptr;    // kCustom: the registered class
  eval::Value aux;                          // kCustom: its flatten function's auxiliary data

  size_t num_leaves() const;
  // "(*, [*, *])" — JAX's PyTreeDef notation, for error messages.
  std::string ToString(eval::Interpreter& interp) const;
};

// Appends the leaves of `value` to `leaves` (depth-first, dict values in sorted-key order).
// `is_leaf`, when not None, is called on every node and stops the descent where it is true.
TreeDef Flatten(eval::Interpreter& interp, const eval::Value& value,
                std::vector<eval::Value>& leaves, const eval::Value& is_leaf = eval::Value());

// A class registered as a pytree node: `flatten(x)` gives (children, aux) and
// `unflatten(aux, children)` rebuilds it (jax.tree_util.register_pytree_node's contract).
struct NodeRegistration {
  eval::Value flatten;
  eval::Value unflatten;
};
// Registers `type` for this interpreter; a second registration is JAX's ValueError.
void RegisterNode(eval::Interpreter& interp, eval::TypeObject* type, NodeRegistration node);
// The registration of `type`, or nullptr.
const NodeRegistration* FindNode(eval::Interpreter& interp, const eval::TypeObject* type);
// Rebuilds a value of structure `def` from `leaves` (consumed from `next`).
eval::Value Unflatten(eval::Interpreter& interp, const TreeDef& def,
                      const std::vector<eval::Value>& leaves, size_t& next);
eval::Value Unflatten(eval::Interpreter& interp, const TreeDef& def,
                      const std::vector<eval::Value>& leaves);
bool SameStructure(const TreeDef& a, const TreeDef& b, eval::Interpreter& interp);

}  // namespace pz::kernel

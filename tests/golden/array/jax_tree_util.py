# jax.tree_util and jax.tree: map, flatten/unflatten, leaves, structure, registered node classes
import dataclasses
from typing import NamedTuple
import jax
import jax.numpy as jnp
from jax import tree_util

tree = {"b": (1, 2.5), "a": [3, None, {"c": 4}]}
leaves, treedef = tree_util.tree_flatten(tree)
print(leaves, treedef.num_leaves)
print(tree_util.tree_unflatten(treedef, [10, 20, 30, 40]))
print(jax.tree.map(lambda x, y: x + y, (1, [2, 3]), (10, [20, 30])))
print(jax.tree.leaves([1, (2, 3)], is_leaf=lambda t: isinstance(t, tuple)))
print(jax.tree.structure((1, 2)) == jax.tree.structure((3, 4)), jax.tree.structure((1, 2)) == jax.tree.structure([1, 2]))


class Pair(NamedTuple):
  x: int
  y: int

print(jax.tree.map(lambda v: v * 10, Pair(1, 2)))


@tree_util.register_pytree_node_class
class Box:
  def __init__(self, value, label):
    self.value, self.label = value, label

  def tree_flatten(self):
    return (self.value,), self.label

  @classmethod
  def tree_unflatten(cls, label, children):
    return cls(children[0], label)

b = jax.tree.map(lambda v: v + 1, Box(jnp.arange(3), "lbl"))
print(type(b).__name__, b.label, b.value)


@dataclasses.dataclass
class Params:
  w: jax.Array
  scale: float

jax.tree_util.register_dataclass(Params, data_fields=["w"], meta_fields=["scale"])
p = jax.tree.map(lambda v: v * 2, Params(jnp.ones(2), 0.5))
print(p.w, p.scale, len(jax.tree.leaves(p)))
# expect: [3, 4, 1, 2.5] 4
# expect: {'a': [10, None, {'c': 20}], 'b': (30, 40)}
# expect: (11, [22, 33])
# expect: [1, (2, 3)]
# expect: True False
# expect: Pair(x=10, y=20)
# expect: Box lbl [1 2 3]
# expect: [2. 2.] 0.5 1

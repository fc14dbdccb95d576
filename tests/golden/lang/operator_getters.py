# operator.itemgetter, attrgetter (dotted names) and methodcaller, as sort keys and in map().
from operator import attrgetter, itemgetter, methodcaller

rows = [("b", 2, "x"), ("a", 3, "y"), ("c", 1, "z")]
print(sorted(rows, key=itemgetter(1)), list(map(itemgetter(0, 2), rows)))
print(itemgetter(1)("abc"), itemgetter("k")({"k": 9}), itemgetter(slice(2))([1, 2, 3]))


class Node:
    def __init__(self, name, child=None):
        self.name = name
        self.child = child


tree = Node("root", Node("leaf"))
print(attrgetter("name")(tree), attrgetter("child.name")(tree), attrgetter("name", "child.name")(tree))
print(sorted([Node("b"), Node("a")], key=attrgetter("name"))[0].name)
print(methodcaller("split", ",")("a,b"), methodcaller("replace", "a", "b", 1)("aaa"))
print(methodcaller("split", maxsplit=1)("x y z"), list(map(methodcaller("upper"), ["a", "b"])))
print(itemgetter(1, "a"), attrgetter("a", "b.c"), methodcaller("split", ",", maxsplit=1))
try:
    attrgetter("child.missing")(tree)
except AttributeError as e:
    print(e)
# expect: [('c', 1, 'z'), ('b', 2, 'x'), ('a', 3, 'y')] [('b', 'x'), ('a', 'y'), ('c', 'z')]
# expect: b 9 [1, 2]
# expect: root leaf ('root', 'leaf')
# expect: a
# expect: ['a', 'b'] baa
# expect: ['x', 'y z'] ['A', 'B']
# expect: operator.itemgetter(1, 'a') operator.attrgetter('a', 'b.c') operator.methodcaller('split', ',', maxsplit=1)
# expect: 'Node' object has no attribute 'missing'

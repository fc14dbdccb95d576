# collections.OrderedDict: a dict subclass with move_to_end, popitem(last=) and its repr.
from collections import OrderedDict

od = OrderedDict([("a", 1), ("b", 2), ("c", 3)])
od.move_to_end("a")
print(od, list(od))
od.move_to_end("c", last=False)
print(od, od.popitem(), od.popitem(last=False), od, OrderedDict())
print(isinstance(od, dict), od == {"b": 2}, OrderedDict(x=1) | {"y": 2}, od.copy())
od["z"] = 26
od.update(q=0)
print(od, type(od).__name__, dict(od))
try:
    od.move_to_end("nope")
except KeyError as e:
    print("KeyError", e)
# expect: OrderedDict([('b', 2), ('c', 3), ('a', 1)]) ['b', 'c', 'a']
# expect: OrderedDict([('b', 2)]) ('a', 1) ('c', 3) OrderedDict([('b', 2)]) OrderedDict()
# expect: True True OrderedDict([('x', 1), ('y', 2)]) OrderedDict([('b', 2)])
# expect: OrderedDict([('b', 2), ('z', 26), ('q', 0)]) OrderedDict {'b': 2, 'z': 26, 'q': 0}
# expect: KeyError 'nope'

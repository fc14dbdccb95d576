# collections.defaultdict: default_factory for missing keys, a real dict subclass, its repr.
from collections import defaultdict

groups = defaultdict(list)
for word in ["apple", "bob", "avocado", "cat", "banana"]:
    groups[word[0]].append(word)
print(groups)
print(groups["a"], groups["z"], len(groups), "q" in groups, groups.get("x"))
counts = defaultdict(int)
for ch in "mississippi":
    counts[ch] += 1
print(dict(counts), sorted(counts.items(), key=lambda kv: -kv[1])[0])
print(isinstance(counts, dict), type(counts).__name__, counts.default_factory)
print(counts == {"m": 1, "i": 4, "s": 4, "p": 2}, counts.copy(), type(counts.copy()).__name__)
nested = defaultdict(lambda: defaultdict(int))
nested["x"]["y"] += 3
print({k: dict(v) for k, v in nested.items()})
plain = defaultdict(None, {"a": 1})
print(plain, defaultdict(), defaultdict(set, a={1}))
try:
    plain["missing"]
except KeyError as e:
    print("KeyError", e)
plain.default_factory = str
print(repr(plain["b"]), plain, plain | {"c": 3})
print(list(counts.keys()), counts.pop("m"), counts.setdefault("z", 9), counts["z"])
# expect: defaultdict(<class 'list'>, {'a': ['apple', 'avocado'], 'b': ['bob', 'banana'], 'c': ['cat']})
# expect: ['apple', 'avocado'] [] 4 False None
# expect: {'m': 1, 'i': 4, 's': 4, 'p': 2} ('i', 4)
# expect: True defaultdict <class 'int'>
# expect: True defaultdict(<class 'int'>, {'m': 1, 'i': 4, 's': 4, 'p': 2}) defaultdict
# expect: {'x': {'y': 3}}
# expect: defaultdict(None, {'a': 1}) defaultdict(None, {}) defaultdict(<class 'set'>, {'a': {1}})
# expect: KeyError 'missing'
# expect: '' defaultdict(<class 'str'>, {'a': 1, 'b': ''}) defaultdict(<class 'str'>, {'a': 1, 'b': '', 'c': 3})
# expect: ['m', 'i', 's', 'p'] 1 9 9

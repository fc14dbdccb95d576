# Building dicts with dict(): keyword arguments, pairs and zip.
print(dict(a=1, b=2))  # expect: {'a': 1, 'b': 2}
print(dict([("x", 1), ("y", 2)]))  # expect: {'x': 1, 'y': 2}
print(dict(zip("abc", range(3))))  # expect: {'a': 0, 'b': 1, 'c': 2}
print(dict())  # expect: {}
base = {"a": 1}
print(dict(base, b=2))  # expect: {'a': 1, 'b': 2}
print(dict([("k", 1), ("k", 2)]))  # expect: {'k': 2}
print({(0, 1): "tile", "n": None})  # expect: {(0, 1): 'tile', 'n': None}

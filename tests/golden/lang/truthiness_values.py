# Which values count as false in `if`, `while` and bool().
values = [0, 0.0, -0.0, "", [], (), {}, None, False, 1, -1, 0.5, " ", "0", [0], (None,), {"": 0}]
for v in values:
    print(repr(v), "->", bool(v))
# expect: 0 -> False
# expect: 0.0 -> False
# expect: -0.0 -> False
# expect: '' -> False
# expect: [] -> False
# expect: () -> False
# expect: {} -> False
# expect: None -> False
# expect: False -> False
# expect: 1 -> True
# expect: -1 -> True
# expect: 0.5 -> True
# expect: ' ' -> True
# expect: '0' -> True
# expect: [0] -> True
# expect: (None,) -> True
# expect: {'': 0} -> True
print(bool(set()), bool(float("nan")), bool(range(0)))  # expect: False True False
if not []:
    print("empty list is falsy")  # expect: empty list is falsy

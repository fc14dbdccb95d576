# isinstance with one type or a tuple of types; bool is a kind of int.
values = [1, 2.0, "s", True, [1], (1,), {"k": 1}, None]
for v in values:
    print(repr(v), isinstance(v, (int, float)), isinstance(v, (list, tuple)))
# expect: 1 True False
# expect: 2.0 True False
# expect: 's' False False
# expect: True True False
# expect: [1] False True
# expect: (1,) False True
# expect: {'k': 1} False False
# expect: None False False
print(isinstance(True, int), isinstance(1, bool))  # expect: True False
print(isinstance(1, float), isinstance(1.0, int))  # expect: False False
print(isinstance("x", str), isinstance({}, dict))  # expect: True True


def describe(x):
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, int):
        return "int"
    if isinstance(x, str):
        return "str"
    return "other"


print([describe(v) for v in (False, 0, "0", 0.0)])  # expect: ['bool', 'int', 'str', 'other']

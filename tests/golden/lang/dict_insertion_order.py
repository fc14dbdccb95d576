# Dicts remember insertion order; updating a key keeps its position.
d = {}
d["zeta"] = 1
d["alpha"] = 2
d["mid"] = 3
print(d)  # expect: {'zeta': 1, 'alpha': 2, 'mid': 3}
d["zeta"] = 10
print(list(d))  # expect: ['zeta', 'alpha', 'mid']
del d["zeta"]
d["zeta"] = 11
print(list(d.keys()))  # expect: ['alpha', 'mid', 'zeta']
for key in d:
    print(key, d[key])
# expect: alpha 2
# expect: mid 3
# expect: zeta 11
print(len(d), "mid" in d, 3 in d)  # expect: 3 True False
numbers = {3: "c", 1: "a", 2: "b"}
print(numbers)  # expect: {3: 'c', 1: 'a', 2: 'b'}
print({1: "int", 1.0: "float"})  # expect: {1: 'float'}

# del removes names, list items and dict entries.
xs = [1, 2, 3, 4]
del xs[1]
print(xs)  # expect: [1, 3, 4]
d = {"a": 1, "b": 2, "c": 3}
del d["b"]
print(d)  # expect: {'a': 1, 'c': 3}
tmp = 5
del tmp
try:
    print(tmp)
except NameError as e:
    print(e)  # expect: name 'tmp' is not defined
a, b = 1, 2
del a, b
try:
    print(a + b)
except NameError as e:
    print("after del:", e)  # expect: after del: name 'a' is not defined
grid = [[1, 2], [3, 4]]
del grid[0][1]
print(grid)  # expect: [[1], [3, 4]]

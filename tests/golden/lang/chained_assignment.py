# a = b = value binds both names to the same object.
a = b = 0
b += 1
print(a, b)  # expect: 0 1
xs = ys = []
ys.append(1)
print(xs)  # expect: [1]
x = y = z = "same"
print(x, y, z)  # expect: same same same
first, second = pair = (1, 2)
print(first, second, pair)  # expect: 1 2 (1, 2)
d = {}
d["a"] = d["b"] = 5
print(d)  # expect: {'a': 5, 'b': 5}

# Nested unpacking in for loops and assignments.
points = [(1, (2, 3)), (4, (5, 6))]
for label, (x, y) in points:
    print(label, x + y)
# expect: 1 5
# expect: 4 11
(a, b), c = (1, 2), 3
print(a, b, c)  # expect: 1 2 3
for i, (k, v) in enumerate({"x": 1, "y": 2}.items()):
    print(i, k, v)
# expect: 0 x 1
# expect: 1 y 2
pairs = list(zip("ab", [1, 2]))
for (letter, number) in pairs:
    print(letter * number)
# expect: a
# expect: bb

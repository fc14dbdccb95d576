# A comprehension has its own scope: its loop variable does not leak or clobber.
x = "outer"
squares = [x * x for x in range(4)]
print(x, squares)  # expect: outer [0, 1, 4, 9]
total = sum(i for i in range(5))
print(total)  # expect: 10
scale = 3
print([scale * v for v in (1, 2)])  # expect: [3, 6]


def make():
    factor = 10
    return [factor * k for k in range(3)]


print(make())  # expect: [0, 10, 20]

# enumerate yields (index, item) pairs, optionally from another start.
for i, c in enumerate("ab"):
    print(i, c)
# expect: 0 a
# expect: 1 b
for n, word in enumerate(["x", "y"], start=1):
    print(f"{n}. {word}")
# expect: 1. x
# expect: 2. y
print(list(enumerate([10, 20], 5)))  # expect: [(5, 10), (6, 20)]
print(dict(enumerate("ab")))  # expect: {0: 'a', 1: 'b'}
best = max(enumerate([3, 9, 2]), key=lambda p: p[1])
print(best)  # expect: (1, 9)

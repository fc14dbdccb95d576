# List comprehensions with filters and conditional expressions.
xs = range(10)
print([x * x for x in xs])  # expect: [0, 1, 4, 9, 16, 25, 36, 49, 64, 81]
print([x for x in xs if x % 3 == 0])  # expect: [0, 3, 6, 9]
print([x for x in xs if x % 2 if x > 3])  # expect: [5, 7, 9]
print([x if x % 2 == 0 else -x for x in range(5)])  # expect: [0, -1, 2, -3, 4]
print([c.upper() for c in "abc"])  # expect: ['A', 'B', 'C']
print([len(w) for w in "the quick fox".split()])  # expect: [3, 5, 3]
print([])  # expect: []
print([i for i in []])  # expect: []

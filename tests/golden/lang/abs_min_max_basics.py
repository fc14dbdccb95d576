# abs, min and max on numbers and sequences.
print(abs(-3), abs(3), abs(-2.5), abs(0))  # expect: 3 3 2.5 0
print(min(3, 1, 2), max(3, 1, 2))  # expect: 1 3
print(min([4, -1, 7]), max((4, -1, 7)))  # expect: -1 7
print(min("hello"), max("hello"))  # expect: e o
print(max("apple", "banana", "cherry"))  # expect: cherry
print(min([[2, 1], [1, 5], [1, 2]]))  # expect: [1, 2]
errors = [0.5, -2.25, 1.0]
print(max(abs(e) for e in errors))  # expect: 2.25
print(max(-5, -1.5))  # expect: -1.5

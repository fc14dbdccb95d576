# More values than targets.
pair = [1, 2]
a, b = pair
print(a, b)  # expect: 1 2
a, b = [1, 2, 3]  # error: ValueError: too many values to unpack (expected 2)

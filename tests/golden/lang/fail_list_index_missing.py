# Searching for a value that is not in the list.
xs = [5, 6]
print(xs.index(6))  # expect: 1
print(7 in xs)  # expect: False
print(xs.index(7))  # error: ValueError: 7 is not in list

# Removing a value that is not in the list.
xs = [1, 2, 3]
xs.remove(2)
print(xs)  # expect: [1, 3]
xs.remove(2)  # error: ValueError: list.remove(x): x not in list

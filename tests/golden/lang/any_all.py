# any() and all(), including on empty inputs.
print(any([]), all([]))  # expect: False True
print(any([0, "", None]), any([0, 1]))  # expect: False True
print(all([1, "x", [0]]), all([1, 0]))  # expect: True False
shape = (8, 128)
print(all(d % 8 == 0 for d in shape))  # expect: True
print(any(d > 1000 for d in shape))  # expect: False
grid = [[1, 1], [1, 0]]
print(all(all(row) for row in grid), any(0 in row for row in grid))  # expect: False True
print(any("a"), all(""))  # expect: True True

# An off-by-one loop bound.
xs = [1, 2, 3]
total = 0
for i in range(len(xs) + 1):
    total += xs[i]  # error: IndexError: list index out of range

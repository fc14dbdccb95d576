# A 2-D shape indexed as if it were 3-D.
shape = (8, 128)
rows, cols = shape
print(rows * cols)  # expect: 1024
depth = shape[2]  # error: IndexError: tuple index out of range

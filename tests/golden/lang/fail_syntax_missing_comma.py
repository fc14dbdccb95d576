# Two list items with no comma between them.
grid = [2, 4]
shape = [8 128]  # error:
print(grid, shape)

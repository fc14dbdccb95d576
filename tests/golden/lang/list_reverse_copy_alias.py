# reverse() in place, copy() is shallow, assignment only aliases.
xs = [1, 2, 3]
xs.reverse()
print(xs)  # expect: [3, 2, 1]
alias = xs
clone = xs.copy()
alias.append(0)
print(xs, clone)  # expect: [3, 2, 1, 0] [3, 2, 1]
grid = [[0, 0], [0, 0]]
shallow = grid.copy()
shallow[0][0] = 9
print(grid)  # expect: [[9, 0], [0, 0]]
sliced = xs[:]
sliced[0] = -1
print(xs[0], sliced[0])  # expect: 3 -1
rows = [[0] * 2] * 2
rows[0][1] = 5
print(rows)  # expect: [[0, 5], [0, 5]]
rows = [[0] * 2 for _ in range(2)]
rows[0][1] = 5
print(rows)  # expect: [[0, 5], [0, 0]]

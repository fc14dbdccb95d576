# Several `for` clauses run left to right, like nested loops.
print([(i, j) for i in range(3) for j in range(i)])  # expect: [(1, 0), (2, 0), (2, 1)]
print([a + b for a in "xy" for b in "12"])  # expect: ['x1', 'x2', 'y1', 'y2']
matrix = [[1, 2], [3, 4], [5, 6]]
print([v for row in matrix for v in row if v % 2 == 0])  # expect: [2, 4, 6]
print([[v * 10 for v in row] for row in matrix])  # expect: [[10, 20], [30, 40], [50, 60]]
grid = (2, 3)
steps = [(i, j) for i in range(grid[0]) for j in range(grid[1])]
print(len(steps), steps[-1])  # expect: 6 (1, 2)
print([x for x in [y * 2 for y in range(3)]])  # expect: [0, 2, 4]

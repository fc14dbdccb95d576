# Tuples as dict keys, e.g. a sparse grid of tiles; d[i, j] means d[(i, j)].
tiles = {}
for i in range(2):
    for j in range(3):
        tiles[i, j] = i * 10 + j
print(tiles[(1, 2)], tiles[0, 1])  # expect: 12 1
print((1, 0) in tiles, (2, 0) in tiles)  # expect: True False
print(sorted(tiles)[:3])  # expect: [(0, 0), (0, 1), (0, 2)]
visited = {(0, 0): "start"}
visited[(0, 1)] = "next"
print(visited)  # expect: {(0, 0): 'start', (0, 1): 'next'}

# Planning a grid of blocks over an array, the way a Pallas kernel author would.
def cdiv(a, b):
    return (a + b - 1) // b


def plan(shape, block):
    grid = tuple(cdiv(s, b) for s, b in zip(shape, block))
    padded = tuple(g * b for g, b in zip(grid, block))
    waste = 1 - (shape[0] * shape[1]) / (padded[0] * padded[1])
    return grid, padded, waste


for shape in [(1024, 512), (1000, 300)]:
    grid, padded, waste = plan(shape, (256, 128))
    print(f"shape={shape} grid={grid} padded={padded} waste={waste:.1%}")
# expect: shape=(1024, 512) grid=(4, 4) padded=(1024, 512) waste=0.0%
# expect: shape=(1000, 300) grid=(4, 3) padded=(1024, 384) waste=23.7%
steps = [(i, j) for i in range(2) for j in range(3)]
print(steps)  # expect: [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
print([(i * 256, j * 128) for i, j in steps[:2]])  # expect: [(0, 0), (0, 128)]

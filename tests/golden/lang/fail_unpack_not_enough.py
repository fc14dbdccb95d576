# Fewer values than targets, inside a loop.
points = [(1, 2, 3), (4, 5)]
for x, y, z in points:  # error: ValueError: not enough values to unpack (expected 3, got 2)
    print(x + y + z)  # expect: 6
print("not reached")

# np.ndindex: every index tuple of a shape, last axis fastest
import numpy as np

print(list(np.ndindex(2, 3)))
print(list(np.ndindex((2, 1, 2))))
print(list(np.ndindex(0, 3)), list(np.ndindex()))
total = 0
for i, j in np.ndindex(4, 5):
  total += i * j
print(total)
# expect: [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
# expect: [(0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 0, 1)]
# expect: [] [()]
# expect: 60

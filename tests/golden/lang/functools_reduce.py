# functools.reduce folds a sequence, optionally from an initial value.
from functools import reduce
import functools

print(reduce(lambda acc, x: acc + x, [1, 2, 3, 4]))  # expect: 10
print(reduce(lambda acc, x: acc * x, range(1, 6), 1))  # expect: 120
print(reduce(lambda acc, x: acc + [x * 2], [1, 2], []))  # expect: [2, 4]
print(functools.reduce(max, [3, 9, 2]))  # expect: 9
print(reduce(lambda a, b: a + b, [], "empty"))  # expect: empty
print(reduce(lambda a, b: a * 10 + b, [1, 2, 3]))  # expect: 123
shapes = [(8, 128), (16, 128), (8, 256)]
print(reduce(lambda acc, s: acc + s[0] * s[1], shapes, 0))  # expect: 5120

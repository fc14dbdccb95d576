# itertools' combinatoric iterators: product (repeat=), permutations, combinations (with replacement).
from itertools import combinations, combinations_with_replacement, permutations, product

print(list(product("ab", [1, 2])), list(product(range(2), repeat=2)))
print(list(product()), list(product("ab", [])), len(list(product(range(3), "xy", repeat=2))))
print(list(permutations([1, 2, 3])))
print(list(permutations("abc", 2)), list(permutations([], 0)), list(permutations([1], 2)))
print(list(combinations(range(4), 2)), list(combinations("abc", 0)), list(combinations("ab", 3)))
print(list(combinations_with_replacement("abc", 2)), list(combinations_with_replacement([], 1)))
print(sum(1 for _ in combinations(range(10), 3)), ["".join(p) for p in permutations("xyz")])
grid = [(r, c) for r, c in product(range(2), range(3)) if r != c]
print(grid, max(combinations([3, 1, 4, 1, 5], 2), key=sum))
pairs = combinations([(0, 0), (3, 4), (6, 8)], 2)
print([((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5 for a, b in pairs])
# expect: [('a', 1), ('a', 2), ('b', 1), ('b', 2)] [(0, 0), (0, 1), (1, 0), (1, 1)]
# expect: [()] [] 36
# expect: [(1, 2, 3), (1, 3, 2), (2, 1, 3), (2, 3, 1), (3, 1, 2), (3, 2, 1)]
# expect: [('a', 'b'), ('a', 'c'), ('b', 'a'), ('b', 'c'), ('c', 'a'), ('c', 'b')] [()] []
# expect: [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] [()] []
# expect: [('a', 'a'), ('a', 'b'), ('a', 'c'), ('b', 'b'), ('b', 'c'), ('c', 'c')] []
# expect: 120 ['xyz', 'xzy', 'yxz', 'yzx', 'zxy', 'zyx']
# expect: [(0, 1), (0, 2), (1, 0), (1, 2)] (4, 5)
# expect: [5.0, 10.0, 5.0]

# map and filter, consumed by list() and friends.
print(list(map(str, [1, 2, 3])))  # expect: ['1', '2', '3']
print(list(map(lambda x: x * x, range(4))))  # expect: [0, 1, 4, 9]
print(list(map(lambda a, b: a + b, [1, 2], [10, 20, 30])))  # expect: [11, 22]
print(list(filter(lambda x: x % 2, range(6))))  # expect: [1, 3, 5]
print(list(filter(None, [0, 1, "", "a", None, []])))  # expect: [1, 'a']
print(sum(map(int, "1 2 3".split())))  # expect: 6
print(", ".join(map(lambda s: s.upper(), ["a", "b"])))  # expect: A, B
words = ["x", "longer", "mid"]
print(sorted(filter(lambda w: len(w) > 1, words)))  # expect: ['longer', 'mid']
for n in map(abs, [-1, 2]):
    print(n)
# expect: 1
# expect: 2

# zip pairs items and stops at the shortest input.
names = ["a", "b", "c"]
scores = [1, 2]
print(list(zip(names, scores)))  # expect: [('a', 1), ('b', 2)]
for n, s, f in zip(names, scores, [0.5, 1.5, 2.5]):
    print(n, s, f)
# expect: a 1 0.5
# expect: b 2 1.5
print(list(zip()))  # expect: []
print(list(zip("xy")))  # expect: [('x',), ('y',)]
pairs = [(1, "one"), (2, "two")]
nums, words = zip(*pairs)
print(nums, words)  # expect: (1, 2) ('one', 'two')
a = [1, 2, 3]
b = [4, 5, 6]
print(sum(x * y for x, y in zip(a, b)))  # expect: 32
print([y - x for x, y in zip(a, a[1:])])  # expect: [1, 1]

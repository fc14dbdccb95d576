# Permutations and subsets built recursively.
def permutations(items):
    if len(items) <= 1:
        return [items]
    out = []
    for i in range(len(items)):
        for rest in permutations(items[:i] + items[i + 1:]):
            out.append([items[i]] + rest)
    return out


for p in permutations([1, 2, 3]):
    print(p)
# expect: [1, 2, 3]
# expect: [1, 3, 2]
# expect: [2, 1, 3]
# expect: [2, 3, 1]
# expect: [3, 1, 2]
# expect: [3, 2, 1]


def subsets(xs):
    if not xs:
        return [()]
    smaller = subsets(xs[1:])
    return smaller + [(xs[0],) + s for s in smaller]


print(subsets((1, 2)))  # expect: [(), (2,), (1,), (1, 2)]

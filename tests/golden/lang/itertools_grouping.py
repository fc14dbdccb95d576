# itertools over finite inputs: chain, accumulate, groupby, pairwise, zip_longest, starmap, tee...
import operator
from itertools import (accumulate, chain, compress, dropwhile, filterfalse, groupby, pairwise,
                       starmap, tee, zip_longest)

print(list(chain([1, 2], "ab", ())), list(chain.from_iterable([[1], [2, 3], []])))
print(list(accumulate([1, 2, 3, 4])), list(accumulate([3, 1, 4], max)), list(accumulate([1, 2], initial=10)))
print(list(accumulate([1, 2, 3], operator.mul)), list(accumulate([])))
print([(k, list(g)) for k, g in groupby("aaabbcaa")])
print([(k, len(list(g))) for k, g in groupby([1, 3, 2, 4, 5], key=lambda x: x % 2)])
stale = list(groupby("aabb"))
print([(k, list(g)) for k, g in stale], [k for k, _ in groupby(sorted("mississippi"))])
print(list(pairwise("abcd")), list(pairwise([1])), list(zip_longest("abc", [1])))
print(list(zip_longest("ab", "xyz", fillvalue="-")), list(starmap(pow, [(2, 3), (3, 2)])))
print(list(dropwhile(lambda x: x < 3, [1, 2, 3, 1])), list(filterfalse(lambda x: x % 2, range(6))))
print(list(filterfalse(None, [0, 1, "", "a"])), list(compress("abcdef", [1, 0, 1, 0, 1, 1])))
a, b = tee(iter([1, 2, 3]))
print(next(a), list(b), list(a), len(tee([1], 3)))
runs = [sum(g) for _, g in groupby([1, 1, 2, 2, 2, 1])]
print(runs, dict((k, list(v)) for k, v in groupby(["ant", "ape", "bee"], key=lambda w: w[0])))
# expect: [1, 2, 'a', 'b'] [1, 2, 3]
# expect: [1, 3, 6, 10] [3, 3, 4] [10, 11, 13]
# expect: [1, 2, 6] []
# expect: [('a', ['a', 'a', 'a']), ('b', ['b', 'b']), ('c', ['c']), ('a', ['a', 'a'])]
# expect: [(1, 2), (0, 2), (1, 1)]
# expect: [('a', []), ('b', [])] ['i', 'm', 'p', 's']
# expect: [('a', 'b'), ('b', 'c'), ('c', 'd')] [] [('a', 1), ('b', None), ('c', None)]
# expect: [('a', 'x'), ('b', 'y'), ('-', 'z')] [8, 9]
# expect: [3, 1] [0, 2, 4]
# expect: [0, ''] ['a', 'c', 'e', 'f']
# expect: 1 [1, 2, 3] [2, 3] 3
# expect: [2, 6, 1] {'a': ['ant', 'ape'], 'b': ['bee']}

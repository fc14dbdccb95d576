# collections.Counter: counting, most_common, elements, update/subtract, total and arithmetic.
from collections import Counter

c = Counter("abracadabra")
print(c, c["a"], c["zzz"], len(c), c.total())
print(c.most_common(2), c.most_common()[-1], sorted(c.elements())[:6])
c.update("aaz")
c.update({"b": 10})
c.subtract(["a", "a"])
print(c)
words = Counter("the quick the lazy the end".split())
print(words.most_common(1), words["the"], list(words))
a, b = Counter(a=3, b=1, c=2), Counter(a=1, b=2, d=4)
print(a + b, a - b)
print(a | b, a & b)
print(+Counter(x=2, y=-1, z=0), -Counter(x=2, y=-1))
print(Counter(), Counter(cats=4, dogs=0), Counter({"k": 2}) == {"k": 2}, isinstance(c, dict))
acc = Counter()
alias = acc
acc += Counter("aab")
acc -= Counter("a")
print(alias, acc is alias, dict(acc))
print(sorted(Counter([3, 1, 3, 2, 3, 1]).items()), Counter("hello").most_common(3))
# expect: Counter({'a': 5, 'b': 2, 'r': 2, 'c': 1, 'd': 1}) 5 0 5 11
# expect: [('a', 5), ('b', 2)] ('d', 1) ['a', 'a', 'a', 'a', 'a', 'b']
# expect: Counter({'b': 12, 'a': 5, 'r': 2, 'c': 1, 'd': 1, 'z': 1})
# expect: [('the', 3)] 3 ['the', 'quick', 'lazy', 'end']
# expect: Counter({'a': 4, 'd': 4, 'b': 3, 'c': 2}) Counter({'a': 2, 'c': 2})
# expect: Counter({'d': 4, 'a': 3, 'b': 2, 'c': 2}) Counter({'a': 1, 'b': 1})
# expect: Counter({'x': 2}) Counter({'y': 1})
# expect: Counter() Counter({'cats': 4, 'dogs': 0}) True True
# expect: Counter({'a': 1, 'b': 1}) True {'a': 1, 'b': 1}
# expect: [(1, 2), (2, 1), (3, 3)] [('l', 2), ('h', 1), ('e', 1)]

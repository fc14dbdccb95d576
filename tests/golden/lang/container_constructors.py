# tuple(), list(), set() and dict() from other iterables.
print(tuple([1, 2]), tuple("ab"), tuple())  # expect: (1, 2) ('a', 'b') ()
print(list("abc"), list((1, 2)), list())  # expect: ['a', 'b', 'c'] [1, 2] []
print(list({"x": 1, "y": 2}))  # expect: ['x', 'y']
print(list(range(3)), tuple(range(2, 0, -1)))  # expect: [0, 1, 2] (2, 1)
print(sorted(set([3, 1, 3])), set("aa"))  # expect: [1, 3] {'a'}
print(dict(zip(["a"], [1])), list(dict(a=1).values()))  # expect: {'a': 1} [1]
original = [1, 2]
copy = list(original)
copy.append(3)
print(original, copy)  # expect: [1, 2] [1, 2, 3]
print(list(reversed((1, 2, 3))))  # expect: [3, 2, 1]

# itertools' infinite iterators are lazy: count, cycle and repeat stop under zip, islice, takewhile.
import itertools
from itertools import count, cycle, islice, repeat, takewhile

print(list(zip(count(), "abc")), list(islice(count(5, 2), 4)), list(zip(count(0.5, 0.25), range(3))))
print(list(zip(range(5), cycle("xy"))), list(repeat("z", 3)), list(zip(repeat(7), range(2))))
print(list(takewhile(lambda n: n * n < 50, count(1))), list(cycle([])), list(repeat(1, -2)))
print(list(islice("abcdefg", 2)), list(islice("abcdefg", 2, 4)), list(islice("abcdefg", 2, None)))
print(list(islice("abcdefg", 0, None, 3)), list(islice(count(), 1, 10, 4)), list(islice([], 3)))
evens = filter(lambda n: n % 2 == 0, count())
print(next(evens), next(evens), next(evens))
squares = map(lambda n: n * n, count(1))
print([next(squares) for _ in range(5)], next(itertools.dropwhile(lambda x: x < 100, count(90, 3))))
it = count(10)
print(next(it), next(it), list(zip(it, "ab")), next(it))
colors = cycle(["red", "green"])
print([f"{i}:{next(colors)}" for i in range(3)], next(itertools.filterfalse(lambda x: x < 1000, count())))
# expect: [(0, 'a'), (1, 'b'), (2, 'c')] [5, 7, 9, 11] [(0.5, 0), (0.75, 1), (1.0, 2)]
# expect: [(0, 'x'), (1, 'y'), (2, 'x'), (3, 'y'), (4, 'x')] ['z', 'z', 'z'] [(7, 0), (7, 1)]
# expect: [1, 2, 3, 4, 5, 6, 7] [] []
# expect: ['a', 'b'] ['c', 'd'] ['c', 'd', 'e', 'f', 'g']
# expect: ['a', 'd', 'g'] [1, 5, 9] []
# expect: 0 2 4
# expect: [1, 4, 9, 16, 25] 102
# expect: 10 11 [(12, 'a'), (13, 'b')] 15
# expect: ['0:red', '1:green', '2:red'] 1000

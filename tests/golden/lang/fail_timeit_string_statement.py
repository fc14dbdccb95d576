# Engine-specific: timeit takes the statement as a callable (CPython also accepts source text).
import timeit

print(timeit.timeit(lambda: 2 ** 10, number=3) >= 0)  # expect: True
timeit.timeit("sum(range(10))", number=3)  # error: NotImplementedError: timeit takes the stmt as a callable here

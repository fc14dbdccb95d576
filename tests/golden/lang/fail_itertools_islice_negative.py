# islice takes no negative indices (a list slice would count from the end).
from itertools import islice

print(list(islice("abcdef", 1, 3)))  # expect: ['b', 'c']
print(list(islice("abcdef", -2)))  # error: ValueError: Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize.

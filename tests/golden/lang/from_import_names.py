# from ... import brings names in directly; `as` renames them.
from math import sqrt, pi, inf
from math import gcd as greatest_common_divisor
from functools import partial, reduce

print(sqrt(49), pi > 3)  # expect: 7.0 True
print(greatest_common_divisor(48, 36))  # expect: 12
print(-inf < 0)  # expect: True
add = lambda a, b: a + b
print(reduce(add, range(5)))  # expect: 10
inc = partial(add, 1)
print(inc(41))  # expect: 42
import math
print(math.sqrt(4) == sqrt(4))  # expect: True

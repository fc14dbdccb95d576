# Infinities, NaN and negative zero.
import math

inf = float("inf")
nan = float("nan")
print(inf, -inf)  # expect: inf -inf
print(nan)  # expect: nan
print(inf > 1e308)  # expect: True
print(inf + 1 == inf)  # expect: True
print(nan == nan, nan != nan)  # expect: False True
print(inf - inf)  # expect: nan
print(math.inf == inf)  # expect: True
print(-0.0)  # expect: -0.0
print(-0.0 == 0.0)  # expect: True
print(0.0 * -1)  # expect: -0.0
print(abs(-0.0))  # expect: 0.0
print(1e308 * 10)  # expect: inf
print([inf, nan])  # expect: [inf, nan]
print(min(3.0, inf), max(-inf, -1))  # expect: 3.0 -1

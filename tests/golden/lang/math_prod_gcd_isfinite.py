# prod, gcd and isfinite.
import math

shape = (4, 8, 128)
print(math.prod(shape))  # expect: 4096
print(math.prod([]), math.prod([2.5, 2]))  # expect: 1 5.0
print(math.prod(range(1, 6)))  # expect: 120
print(math.gcd(12, 18), math.gcd(17, 5), math.gcd(0, 9))  # expect: 6 1 9
print(math.gcd(-12, 8))  # expect: 4
print(math.isfinite(1.0), math.isfinite(math.inf), math.isfinite(float("nan")))
# expect: True False False
print(math.isfinite(10 ** 18))  # expect: True
lcm = 12 * 18 // math.gcd(12, 18)
print(lcm)  # expect: 36

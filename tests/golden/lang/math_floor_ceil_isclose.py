# floor and ceil return ints; isclose compares floats with a tolerance.
import math

print(math.floor(2.7), math.floor(-2.5), math.floor(3))  # expect: 2 -3 3
print(math.ceil(2.1), math.ceil(-2.5), math.ceil(4.0))  # expect: 3 -2 4
print(math.ceil(1000 / 128))  # expect: 8
print(math.isclose(0.1 + 0.2, 0.3))  # expect: True
print(math.isclose(1.0, 1.001))  # expect: False
print(math.isclose(1.0, 1.001, rel_tol=1e-2))  # expect: True
print(math.isclose(0.0, 1e-12))  # expect: False
print(math.isclose(0.0, 1e-12, abs_tol=1e-9))  # expect: True
print(0.1 + 0.2 == 0.3, abs((0.1 + 0.2) - 0.3) < 1e-9)  # expect: False True

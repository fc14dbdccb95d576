# import math: sqrt, exp, log and the constants.
import math

print(math.sqrt(16), math.sqrt(2))  # expect: 4.0 1.4142135623730951
print(math.pi)  # expect: 3.141592653589793
print(math.exp(0), math.exp(1))  # expect: 1.0 2.718281828459045
print(math.log(1), math.log(math.exp(2)))  # expect: 0.0 2.0
print(math.log(8, 2), math.log(100, 10))  # expect: 3.0 2.0
print(math.inf, -math.inf)  # expect: inf -inf
print(math.inf > 10 ** 18)  # expect: True
print(round(math.pi * 2 ** 2, 4))  # expect: 12.5664
x = 0.5
print(1 / (1 + math.exp(-x)))  # expect: 0.6224593312018546

# sqrt of a negative number.
import math

print(math.sqrt(4))  # expect: 2.0
print(math.sqrt(-1))  # error: ValueError: math domain error

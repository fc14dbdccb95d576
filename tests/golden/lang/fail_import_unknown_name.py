# A name that the math module does not have.
from math import sqrt, pi

print(sqrt(pi * pi))  # expect: 3.141592653589793
from math import sqroot  # error: ImportError: cannot import name 'sqroot' from 'math'

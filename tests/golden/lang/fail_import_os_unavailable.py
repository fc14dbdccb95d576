# Only math, functools and the JAX modules exist in the engine (CPython has os).
import math
import functools

print(math.floor(2.5))  # expect: 2
import os  # error: No module named

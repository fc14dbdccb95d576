# import ... as binds the module under another name.
import math as m
import functools as ft

print(m.sqrt(81))  # expect: 9.0
print(m.floor(m.pi * 100) / 100)  # expect: 3.14
print(ft.reduce(lambda a, b: a * b, [1, 2, 3, 4]))  # expect: 24


def hypot(a, b):
    return m.sqrt(a * a + b * b)


print(hypot(3, 4))  # expect: 5.0

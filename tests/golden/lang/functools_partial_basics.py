# functools.partial fixes some arguments of a callable.
import functools


def power(base, exponent):
    return base ** exponent


square = functools.partial(power, exponent=2)
two_to = functools.partial(power, 2)
print(square(5), two_to(10))  # expect: 25 1024
print(square(3, exponent=3))  # expect: 27
print(list(map(square, range(4))))  # expect: [0, 1, 4, 9]


def fmt(value, width, fill):
    return str(value).rjust(width, fill)


pad5 = functools.partial(fmt, width=5, fill="0")
print(pad5(42), pad5(7, fill="."))  # expect: 00042 ....7
nested = functools.partial(functools.partial(fmt, 1), 3)
print(nested("*"))  # expect: **1

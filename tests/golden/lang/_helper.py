# A module the import goldens import (a `_` name: the golden runner does not run it alone).
print("loading _helper")
__all__ = ["double", "triple"]


def double(x):
    return 2 * x


def triple(x):
    return 3 * x


def greet(name):
    return f"hello, {name}"

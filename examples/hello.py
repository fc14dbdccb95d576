# A first program for `pallas-puzzles run`: plain Python, printed as CPython would print it.
import math


def tiles(n, block):
    """How many blocks of `block` elements cover `n` elements."""
    return (n + block - 1) // block


for n in (8, 100, 1024):
    print(f"{n:>5} elements -> {tiles(n, 128)} tile(s) of 128")

print("sqrt(2) =", math.sqrt(2))

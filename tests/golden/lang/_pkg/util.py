# A submodule of _pkg.


def clamp(x, low, high):
    return max(low, min(x, high))

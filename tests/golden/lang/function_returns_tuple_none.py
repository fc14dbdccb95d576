# Returning several values as a tuple, returning early, and falling off the end.
def min_max(xs):
    if not xs:
        return None
    return min(xs), max(xs)


print(min_max([3, 1, 2]))  # expect: (1, 3)
lo, hi = min_max([5])
print(lo, hi)  # expect: 5 5
print(min_max([]))  # expect: None


def no_return(x):
    x + 1


def bare_return():
    return


print(no_return(1), bare_return())  # expect: None None


def sign(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    return 0


print([sign(v) for v in (-2, 0, 3)])  # expect: [-1, 0, 1]

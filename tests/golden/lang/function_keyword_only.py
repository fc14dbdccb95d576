# Parameters after `*` or `*args` must be passed by keyword.
def pallas_call(kernel, *, grid=(1,), interpret=False):
    return f"{kernel} grid={grid} interpret={interpret}"


print(pallas_call("add"))  # expect: add grid=(1,) interpret=False
print(pallas_call("add", grid=(4, 2)))  # expect: add grid=(4, 2) interpret=False
print(pallas_call("add", interpret=True, grid=(8,)))  # expect: add grid=(8,) interpret=True


def clip(x, *, lo, hi=10):
    return max(lo, min(x, hi))


print(clip(15, lo=0), clip(-3, lo=0), clip(5, lo=6, hi=9))  # expect: 10 0 6


def first_and_rest(first, *rest, reverse=False):
    return (rest[::-1] if reverse else rest), first


print(first_and_rest(1, 2, 3, reverse=True))  # expect: ((3, 2), 1)

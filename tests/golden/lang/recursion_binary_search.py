# Recursive binary search returning the index or -1.
def search(xs, target, lo=0, hi=None):
    if hi is None:
        hi = len(xs)
    if lo >= hi:
        return -1
    mid = (lo + hi) // 2
    if xs[mid] == target:
        return mid
    if xs[mid] < target:
        return search(xs, target, mid + 1, hi)
    return search(xs, target, lo, mid)


xs = [1, 3, 5, 7, 9, 11]
print([search(xs, t) for t in (1, 7, 11, 4, 0, 12)])  # expect: [0, 3, 5, -1, -1, -1]


def gcd(a, b):
    return a if b == 0 else gcd(b, a % b)


print(gcd(1071, 462))  # expect: 21

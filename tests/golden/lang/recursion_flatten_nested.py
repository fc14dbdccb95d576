# Flattening arbitrarily nested lists and tuples with isinstance.
def flatten(x):
    if not isinstance(x, (list, tuple)):
        return [x]
    out = []
    for item in x:
        out.extend(flatten(item))
    return out


print(flatten([1, [2, [3, (4, 5)]], [], "s"]))  # expect: [1, 2, 3, 4, 5, 's']


def nesting_depth(x):
    if isinstance(x, list):
        return 1 + max((nesting_depth(i) for i in x), default=0)
    return 0


print(nesting_depth([1, [2, [3]]]), nesting_depth(7), nesting_depth([]))  # expect: 3 0 1

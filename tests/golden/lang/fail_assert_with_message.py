# A failing assert with a formatted message, inside a helper.
def check(expected, actual):
    assert len(expected) == len(actual), f"shapes differ: {len(expected)} vs {len(actual)}"  # error: AssertionError: shapes differ: 3 vs 4


check([1, 2, 3], [1, 2, 3])
check([1, 2, 3], [1, 2, 3, 4])

# Generators are outside the supported subset.
def count_up(n):
    i = 0
    while i < n:
        yield i  # error:
        i += 1

# The same parameter given positionally and by keyword.
def clip(x, lo, hi):
    return max(lo, min(x, hi))


clip(5, 0, 10, x=3)  # error: TypeError: clip() got multiple values for argument 'x'

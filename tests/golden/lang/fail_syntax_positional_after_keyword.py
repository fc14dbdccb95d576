# A positional argument after a keyword argument.
def scale(x, factor):
    return x * factor


print(scale(x=2, 3))  # error:

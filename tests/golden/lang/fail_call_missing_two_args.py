# Two required arguments missing.
def blend(x, y, alpha):
    return x * alpha + y * (1 - alpha)


blend(1.0)  # error: TypeError: blend() missing 2 required positional arguments: 'y' and 'alpha'

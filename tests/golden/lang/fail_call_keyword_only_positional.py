# Passing a keyword-only parameter positionally.
def pallas_call(kernel, *, grid):
    return kernel, grid


pallas_call("k", (4,))  # error: TypeError: pallas_call() takes 1 positional argument but 2 were given

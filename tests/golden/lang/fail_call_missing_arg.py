# Calling a function without a required argument.
def f(a, b):
    return a * b


f(1)  # error: TypeError: f() missing 1 required positional argument: 'b'

# A function call is not an assignment target.
def f():
    return 1


f() = 1  # error:

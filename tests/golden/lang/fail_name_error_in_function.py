# An undefined helper called from inside a function: the traceback names both lines.
def normalise(xs):
    total = sum(xs)
    return [scale(x, total) for x in xs]  # error: NameError: name 'scale' is not defined


print("start")  # expect: start
normalise([1, 2])

# str(e) and e.args for different ways of raising.
try:
    raise ValueError("bad value", 42)
except ValueError as e:
    print(e.args)  # expect: ('bad value', 42)
    print(str(e))  # expect: ('bad value', 42)
try:
    raise ValueError("just one")
except ValueError as e:
    print(e.args, str(e))  # expect: ('just one',) just one
try:
    raise RuntimeError
except RuntimeError as e:
    print(e.args, repr(str(e)))  # expect: () ''
try:
    raise KeyError("missing")
except KeyError as e:
    print(str(e), e.args[0])  # expect: 'missing' missing
try:
    raise TypeError(3)
except TypeError as e:
    print(e, e.args)  # expect: 3 (3,)
e = ValueError("not raised")
print(e)  # expect: not raised
print(repr(ValueError("x")))  # expect: ValueError('x')

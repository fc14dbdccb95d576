# One handler for several exception types, binding the exception.
def parse(text):
    try:
        return int(text) * [1, 2][len(text) - 1]
    except (ValueError, IndexError) as e:
        return f"bad input: {e}"


print(parse("7"))  # expect: 7
print(parse("x"))  # expect: bad input: invalid literal for int() with base 10: 'x'
print(parse("123"))  # expect: bad input: list index out of range
try:
    {}["k"]
except (TypeError, KeyError) as err:
    print("caught", repr(str(err)))  # expect: caught "'k'"
try:
    [][0]
except ValueError:
    print("not this one")
except IndexError as e:
    print("second handler:", e)  # expect: second handler: list index out of range

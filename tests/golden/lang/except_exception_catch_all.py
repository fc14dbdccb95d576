# `except Exception` catches the usual errors; handlers are tried in order.
def risky(kind):
    if kind == "value":
        raise ValueError("v")
    if kind == "key":
        return {}["k"]
    if kind == "zero":
        return 1 / 0
    return "fine"


for kind in ("value", "key", "zero", "none"):
    try:
        print(risky(kind))
    except ValueError as e:
        print("ValueError", e)
    except Exception as e:
        print("other", repr(e))
# expect: ValueError v
# expect: other KeyError('k')
# expect: other ZeroDivisionError('division by zero')
# expect: fine

# A bare `raise` inside an except block re-raises the current exception.
def checked_div(a, b):
    try:
        return a / b
    except ZeroDivisionError:
        print("logging the failure")
        raise


try:
    checked_div(1, 0)
except ZeroDivisionError as e:
    print("outer saw:", e)
# expect: logging the failure
# expect: outer saw: division by zero
try:
    try:
        raise KeyError("inner")
    except KeyError:
        raise ValueError("converted")
except ValueError as e:
    print(e)  # expect: converted

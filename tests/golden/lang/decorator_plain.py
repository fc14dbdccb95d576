# A decorator replaces a function with a wrapper around it.
def announce(fn):
    def wrapper(*args, **kwargs):
        print("calling with", args, kwargs)
        result = fn(*args, **kwargs)
        print("got", result)
        return result

    return wrapper


@announce
def add(a, b=0):
    return a + b


add(2, b=3)
# expect: calling with (2,) {'b': 3}
# expect: got 5
x = add(1)
# expect: calling with (1,) {}
# expect: got 1
print(x)  # expect: 1

# A decorator factory takes arguments and returns the decorator.
def repeat(times):
    def decorate(fn):
        def wrapper(*args):
            return [fn(*args) for _ in range(times)]

        return wrapper

    return decorate


@repeat(3)
def greet(name):
    return "hi " + name


print(greet("ada"))  # expect: ['hi ada', 'hi ada', 'hi ada']


def clamp_result(lo, hi):
    def decorate(fn):
        return lambda *a: max(lo, min(hi, fn(*a)))

    return decorate


@clamp_result(lo=0, hi=100)
def percent(part, whole):
    return part * 100 // whole


print(percent(1, 4), percent(9, 4), percent(-1, 4))  # expect: 25 100 0

# partial objects as decorators: partial(decorator_factory, ...) applied with @.
from functools import partial


def wrap(fn, before, after):
    def wrapper(*args):
        return before + str(fn(*args)) + after

    return wrapper


@partial(wrap, before="[", after="]")
def area(w, h):
    return w * h


print(area(3, 4))  # expect: [12]
bracket = partial(wrap, before="<", after=">")


@bracket
def name():
    return "kernel"


print(name())  # expect: <kernel>

# The other half: `_circ_a` is only partially initialised here, so use it later, in a function.
import _circ_a

print("b sees a without `first`:", not hasattr(_circ_a, "first"))
second = "b"


def from_b():
    return _circ_a.both()

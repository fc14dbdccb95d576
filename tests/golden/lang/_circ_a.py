# Half of a circular import (import_circular.py): _circ_a imports _circ_b, which imports _circ_a.
import _circ_b

first = "a"


def both():
    return first + _circ_b.second

# A submodule of _pkg importing its siblings with `from . import` and `from .name import`.
from . import util
from .util import clamp as limit


def area(w, h):
    return limit(w * h, 0, 100)


same = util.clamp is limit

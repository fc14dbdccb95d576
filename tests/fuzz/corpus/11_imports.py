import a.b.c as d, e
from . import sibling
from ..pkg.mod import (one as uno, two,)
from x import y
import math; import functools; x = math.sqrt(2)

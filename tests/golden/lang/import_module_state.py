# A module runs once; `mod.x` reads its current globals, and `mod.x = v` rebinds them.
import _counter  # expect: running _counter as _counter
import _counter as again
from _counter import bump

print(again is _counter)  # expect: True
bump()
bump()
print(_counter.count)  # expect: 2
_counter.count = 10
print(bump(), _counter.count)  # expect: 11 11
_counter.extra = "new"
print(again.extra)  # expect: new
import _counter

print(_counter.count)  # expect: 11

# A package folder with `__init__.py`: `import pkg.sub`, `from pkg import sub`, relative imports.
import _pkg.shapes  # expect: init _pkg _pkg
from _pkg import shapes as s2
from _pkg.shapes import area
import _pkg

print(_pkg.shapes is s2, area(30, 4))  # expect: True 100
print(_pkg.VERSION, _pkg.clamp(-3, 0, 9))  # expect: 1.0 0
print(_pkg.shapes.__name__, _pkg.shapes.__package__)  # expect: _pkg.shapes _pkg
print(s2.same)  # expect: True
from _pkg.inner import deep

print(deep.twice_area(2, 3), deep.clamp(50, 0, 10))  # expect: 12 10
print(deep.name, deep.package)  # expect: _pkg.inner.deep _pkg.inner
import _pkg.inner.deep as d

print(d is deep, _pkg.inner.deep is deep)  # expect: True True

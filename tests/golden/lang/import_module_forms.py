# Importing a `.py` file beside the program: `import`, `as`, `from ... import` with aliases.
import _helper  # expect: loading _helper
import _helper as h
from _helper import double, greet as hello

print(_helper.double(4))  # expect: 8
print(h is _helper)  # expect: True
print(double is _helper.double)  # expect: True
print(hello("pz"))  # expect: hello, pz
print(_helper.__name__, h.triple(3))  # expect: _helper 9
print(type(_helper).__name__)  # expect: module
print(_helper.__file__.endswith("_helper.py"))  # expect: True
print([n for n in dir(h) if not n.startswith("_")])  # expect: ['double', 'greet', 'triple']

# `from module import *` binds the names in the module's `__all__` and nothing else.
from _helper import *  # expect: loading _helper

print(double(2), triple(2))  # expect: 4 6
try:
    greet("x")
except NameError as e:
    print(e)  # expect: name 'greet' is not defined

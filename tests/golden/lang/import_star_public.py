# Without `__all__`, `from module import *` binds the names that do not start with `_`.
from _public import *

print(alpha, beta, gamma())  # expect: 1 [2, 3] 5
try:
    print(_hidden)
except NameError as e:
    print(e)  # expect: name '_hidden' is not defined
